// gds/backing_heap.cpp - segments in ordinary memory, for the in-process (heap) store.
//
// The engine is the same as for shared memory, so heap readers get the same lock-free get path
// and the same semantics; only the memory differs. A block lives while the writer or any reader
// holds it: deleting a namespace removes its names, and the memory goes with the last reader,
// exactly as unlinked shared memory does.
#include "gds/backing.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace pmix::gds {
namespace {

struct Block {
    explicit Block(std::size_t n) : bytes(static_cast<std::byte*>(std::calloc(1, n))), size(n) {}
    ~Block() { std::free(bytes); }
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;
    std::byte* bytes;  // calloc: zero-filled, aligned for any scalar, pages touched lazily
    std::size_t size;
};

class Registry {
public:
    std::shared_ptr<Block> find(std::string_view name) {
        std::lock_guard lock(mutex_);
        const auto it = blocks_.find(std::string(name));
        return it == blocks_.end() ? nullptr : it->second;
    }
    std::string add(std::shared_ptr<Block> block) {
        std::lock_guard lock(mutex_);
        std::string name = "heap-" + std::to_string(++counter_);
        blocks_.emplace(name, std::move(block));
        return name;
    }
    void remove(const std::string& name) {
        std::lock_guard lock(mutex_);
        blocks_.erase(name);
    }

private:
    std::mutex mutex_;  // create/open only: never on a get path
    std::map<std::string, std::shared_ptr<Block>, std::less<>> blocks_;
    std::uint64_t counter_ = 0;
};

class HeapSegment final : public WritableSegment {
public:
    HeapSegment(std::shared_ptr<Block> block, std::string name, std::shared_ptr<Registry> registry)
        : WritableSegment(block->bytes, block->size, std::move(name)),
          block_(std::move(block)),
          registry_(std::move(registry)) {}
    ~HeapSegment() override { registry_->remove(name()); }

private:
    std::shared_ptr<Block> block_;
    std::shared_ptr<Registry> registry_;
};

class HeapMapping final : public MappedSegment {
public:
    explicit HeapMapping(std::shared_ptr<Block> block)
        : MappedSegment(block->bytes, block->size), block_(std::move(block)) {}

private:
    std::shared_ptr<Block> block_;
};

class HeapBacking final : public Backing {
public:
    pmix_status_t create(std::size_t size, std::unique_ptr<WritableSegment>& out) override {
        auto block = std::make_shared<Block>(size);
        if (block->bytes == nullptr) {
            return PMIX_ERR_NOMEM;
        }
        std::string name = registry_->add(block);
        out = std::make_unique<HeapSegment>(std::move(block), std::move(name), registry_);
        return PMIX_SUCCESS;
    }

    pmix_status_t open(std::string_view name, std::unique_ptr<MappedSegment>& out) override {
        std::shared_ptr<Block> block = registry_->find(name);
        if (block == nullptr) {
            return PMIX_ERR_NOT_FOUND;
        }
        out = std::make_unique<HeapMapping>(std::move(block));
        return PMIX_SUCCESS;
    }

    bool shared() const noexcept override { return false; }
    pmix_status_t share(const std::string&, const SegmentAccess&) override {
        return PMIX_SUCCESS;  // only this process can see heap segments
    }

private:
    std::shared_ptr<Registry> registry_ = std::make_shared<Registry>();
};

}  // namespace

std::shared_ptr<Backing> make_heap_backing() { return std::make_shared<HeapBacking>(); }

}  // namespace pmix::gds
