// gds/index.h - what an index probe looks for, and whether a record is it.
//
// One index per region maps identities to the newest record of each. An identity is either
// numeric (space, entity, key) or a string in a space (a dynamic key, a host name).
// The same matching code runs in the writer (on its own memory) and in readers (through a
// bounds-checked resolver), so both agree on what "the same identity" means.
#pragma once

#include "gds/keys.h"
#include "gds/layout.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace pmix::gds {

// Acquire/release access to 8-byte words in a segment (the root Ref and index slots). A reader's
// mapping is const (PROT_READ); an 8-byte atomic load is a plain load and never writes.
inline std::uint64_t load_acquire(const std::uint64_t* word) noexcept {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}
inline void store_release(std::uint64_t* word, std::uint64_t value) noexcept {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

struct Probe {
    layout::Space space = layout::Space::job;
    std::uint32_t entity = 0;  // numeric spaces: entity id; key_id space: the key id
    std::uint32_t key = 0;     // numeric spaces: key id (kHeadKey: the entity's head record)
    std::string_view text{};   // string spaces
    std::uint64_t hash = 0;

    static Probe value(layout::Space level, std::uint32_t entity, std::uint32_t key) noexcept {
        return {level,
                entity,
                key,
                {},
                keys::hash_identity(static_cast<std::uint8_t>(level), entity, key)};
    }
    static Probe head(layout::Space level, std::uint32_t entity) noexcept {
        return value(level, entity, layout::kHeadKey);
    }
    static Probe column(std::uint32_t key) noexcept {
        return {layout::Space::column,
                0,
                key,
                {},
                keys::hash_identity(static_cast<std::uint8_t>(layout::Space::column), 0, key)};
    }
    static Probe key_id(std::uint32_t id) noexcept {
        return {layout::Space::key_id,
                id,
                0,
                {},
                keys::hash_identity(static_cast<std::uint8_t>(layout::Space::key_id), id, 0)};
    }
    static Probe name(layout::Space space, std::string_view text) noexcept {
        return name(space, text, keys::hash_text(text));
    }
    static Probe name(layout::Space space, std::string_view text,
                      std::uint64_t text_hash) noexcept {
        return {space, 0, 0, text, keys::seeded(text_hash, static_cast<std::uint8_t>(space))};
    }
    bool numeric_level() const noexcept {  // job, app, node, proc, session: 1..5
        const auto level = static_cast<std::uint8_t>(space);
        return level >= static_cast<std::uint8_t>(layout::Space::job) &&
               level <= static_cast<std::uint8_t>(layout::Space::session);
    }
};

enum class Match { no, yes, corrupt };

// Bytes a record of the probe's kind occupies before any trailing string.
inline std::size_t fixed_size(const Probe& p) noexcept {
    using namespace layout;
    if (p.numeric_level()) {
        return p.key == kHeadKey ? sizeof(HeadRecord) : sizeof(ValueRecord);
    }
    switch (p.space) {
        case Space::column:
            return sizeof(ColumnRecord);
        default:
            return sizeof(NameRecord);
    }
}

// Numeric identities: compare the fixed fields of the record's kind.
inline Match match_numeric(const Probe& p, const std::byte* raw) noexcept {
    using namespace layout;
    RecordHead head;
    std::memcpy(&head, raw, sizeof(head));
    if (p.space == Space::column) {
        ColumnRecord r;
        std::memcpy(&r, raw, sizeof(r));
        return head.kind == Kind::column && r.key == p.key ? Match::yes : Match::no;
    }
    if (p.key == kHeadKey) {
        HeadRecord r;
        std::memcpy(&r, raw, sizeof(r));
        return head.kind == Kind::head && r.level == static_cast<std::uint8_t>(p.space) &&
                       r.entity == p.entity
                   ? Match::yes
                   : Match::no;
    }
    ValueRecord r;
    std::memcpy(&r, raw, sizeof(r));
    return head.kind == Kind::value && r.level == static_cast<std::uint8_t>(p.space) &&
                   r.entity == p.entity && r.key == p.key
               ? Match::yes
               : Match::no;
}

// Does the record at `ref` hold the probe's identity? `resolve(ref, n)` returns the record's
// first n bytes, or nullptr when they are not all inside the mapping.
template <typename Resolve>
Match match_record(const Probe& p, layout::Ref ref, Resolve&& resolve) noexcept {
    using namespace layout;
    const std::byte* raw = resolve(ref, fixed_size(p));
    if (raw == nullptr) {
        return Match::corrupt;
    }
    if (p.numeric_level() || p.space == Space::column) {
        return match_numeric(p, raw);
    }
    RecordHead head;
    std::memcpy(&head, raw, sizeof(head));
    NameRecord r;
    std::memcpy(&r, raw, sizeof(r));
    if (head.kind != Kind::name) {
        return Match::no;
    }
    if (p.space == Space::key_id) {  // the reverse entry of an interned key
        return head.aux == static_cast<std::uint16_t>(Space::key_name) && r.id == p.entity
                   ? Match::yes
                   : Match::no;
    }
    if (head.aux != static_cast<std::uint16_t>(p.space)) {
        return Match::no;
    }
    const std::uint32_t length = r.length;
    const std::size_t fixed = sizeof(NameRecord);
    if (length != p.text.size()) {
        return Match::no;
    }
    const std::byte* full = resolve(ref, fixed + length + 1);
    if (full == nullptr) {
        return Match::corrupt;
    }
    return std::memcmp(full + fixed, p.text.data(), length) == 0 ? Match::yes : Match::no;
}

}  // namespace pmix::gds
