// server/id_table.h - items waiting for something, each under an id handed to a callback.
//
// The server gives a host upcall or a timer an id (never a pointer) and looks the item up when
// the answer comes: an item answered, timed out or dropped in between is simply not found, so a
// late answer is ignored instead of touching freed memory. Ids start at 1 and are never reused.
// Not thread-safe: each table belongs to one thread (the server's loop, see state.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace pmix::server {

template <class T>
class IdTable {
public:
    using Map = std::map<std::uint64_t, T>;

    // Stores `item` under a fresh id; the reference stays valid until the item is erased.
    std::pair<std::uint64_t, T&> add(T item) {
        const std::uint64_t id = next_++;
        T& slot = items_.emplace(id, std::move(item)).first->second;
        return {id, slot};
    }
    T* find(std::uint64_t id) {
        auto it = items_.find(id);
        return it == items_.end() ? nullptr : &it->second;
    }
    // Removes and returns the item; nullopt when it is gone already.
    std::optional<T> take(std::uint64_t id) {
        auto it = items_.find(id);
        if (it == items_.end()) return std::nullopt;
        std::optional<T> out(std::move(it->second));
        items_.erase(it);
        return out;
    }
    bool erase(std::uint64_t id) { return items_.erase(id) != 0; }
    typename Map::iterator erase(typename Map::iterator it) { return items_.erase(it); }
    typename Map::iterator begin() { return items_.begin(); }
    typename Map::iterator end() { return items_.end(); }
    bool empty() const noexcept { return items_.empty(); }
    void clear() { items_.clear(); }

private:
    Map items_;
    std::uint64_t next_ = 1;
};

}  // namespace pmix::server
