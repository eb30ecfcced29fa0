// gds/store_writer.cpp - StoreWriter: the directory of namespaces plus one NamespaceWriter per
// namespace; the store factories.
#include "gds/directory.h"
#include "gds/ns_writer.h"
#include "gds/reader.h"
#include "gds/store.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <strings.h>

namespace pmix::gds {

using namespace layout;

namespace {

bool valid_nspace(std::string_view nspace) noexcept {
    return !nspace.empty() && nspace.size() <= PMIX_MAX_NSLEN &&
           nspace.find('\0') == std::string_view::npos;
}

bool valid_key(std::string_view key) noexcept {
    return !key.empty() && key.size() <= PMIX_MAX_KEYLEN &&
           key.find('\0') == std::string_view::npos;
}

// Maps an Entity onto an index space; false for ranks that are not real processes.
bool entity_space(const Entity& e, Space& space) noexcept {
    switch (e.level) {
        case Level::job:
            space = Space::job;
            return true;
        case Level::app:
            space = Space::app;
            return true;
        case Level::node:
            space = Space::node;
            return e.host.size() <= PMIX_MAX_NSLEN && e.host.find('\0') == std::string_view::npos;
        case Level::proc:
            space = Space::proc;
            return e.id < PMIX_RANK_VALID;
        case Level::session:
            space = Space::session;
            return true;
    }
    return false;
}

class EngineWriter final : public StoreWriter {
public:
    EngineWriter(std::shared_ptr<Backing> backing, const StoreOptions& options)
        : backing_(std::move(backing)), options_(options) {}

    pmix_status_t init() {
        // 64 KiB: 189 namespaces alive at once before the directory chains a segment.
        directory_ = std::make_unique<DirectoryWriter>(backing_, 64 * 1024);
        return directory_->init();
    }

    pmix_status_t begin_namespace(std::string_view nspace) override {
        if (!valid_nspace(nspace)) {
            return PMIX_ERR_BAD_PARAM;
        }
        if (spaces_.find(nspace) != spaces_.end()) {
            return PMIX_SUCCESS;
        }
        auto ns = std::make_unique<NamespaceWriter>(backing_, options_, std::string(nspace),
                                                    ++incarnations_);
        const pmix_status_t rc = ns->init();
        if (rc == PMIX_SUCCESS) {
            spaces_.emplace(std::string(nspace), std::move(ns));
            unannounced_.emplace_back(nspace);
        }
        return rc;
    }

    pmix_status_t put(std::string_view nspace, const Entity& entity, std::string_view key,
                      const pmix_value_t& value) override {
        return stage(nspace, entity, key, PMIX_SCOPE_UNDEF, value);
    }

    pmix_status_t put_modex(std::string_view nspace, pmix_rank_t rank, pmix_scope_t scope,
                            std::string_view key, const pmix_value_t& value) override {
        if (scope > 7) {
            return PMIX_ERR_BAD_PARAM;
        }
        return stage(nspace, Entity::proc(rank), key, scope, value);
    }

    pmix_status_t alias_node(std::string_view nspace, std::string_view hostname,
                             std::uint32_t node_id) override {
        NamespaceWriter* ns = nullptr;
        const pmix_status_t rc = lookup(nspace, ns);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        Space space = Space::node;
        if (hostname.empty() || !entity_space(Entity::node(hostname), space)) {
            return PMIX_ERR_BAD_PARAM;
        }
        return ns->stage_alias(hostname, node_id);
    }

    pmix_status_t commit() override {
        for (auto& [name, ns] : spaces_) {
            if (ns->dirty()) {
                const pmix_status_t rc = ns->commit();
                if (rc != PMIX_SUCCESS) {
                    return rc;
                }
            }
        }
        // Namespaces first, then the directory: a reader that finds a namespace in the
        // directory finds its data committed.
        while (!unannounced_.empty()) {
            const NamespaceWriter& ns = *spaces_.find(unannounced_.back())->second;
            const pmix_status_t rc =
                directory_->add(unannounced_.back(), ns.incarnation(), ns.region().first_name());
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
            unannounced_.pop_back();
        }
        return PMIX_SUCCESS;
    }

    pmix_status_t delete_namespace(std::string_view nspace) override {
        const auto it = spaces_.find(nspace);
        if (it == spaces_.end()) {
            return valid_nspace(nspace) ? PMIX_ERR_NOT_FOUND : PMIX_ERR_BAD_PARAM;
        }
        const auto pending = std::find(unannounced_.begin(), unannounced_.end(), nspace);
        if (pending != unannounced_.end()) {
            unannounced_.erase(pending);  // readers never learned of it
        }
        // Readers attached to it see the deleted root; new lookups no longer find it.
        const pmix_status_t rc = it->second->publish_deleted();
        directory_->remove(nspace);
        spaces_.erase(it);  // unlinks the namespace's segments
        return rc;
    }

    pmix_status_t retire(std::string_view nspace, bool abandoned) override {
        NamespaceWriter* ns = nullptr;
        const pmix_status_t rc = lookup(nspace, ns);
        if (rc == PMIX_SUCCESS) {
            ns->retire(abandoned ? layout::kRetiredAbandoned : layout::kRetiredClosed);
        }
        return rc;
    }

    std::string locator() const override {
        return backing_->shared() ? directory_->first_name() : std::string();
    }

    std::unique_ptr<StoreReader> make_reader() override {
        std::unique_ptr<StoreReader> reader;
        const pmix_status_t rc = open_reader(backing_, directory_->first_name(), reader);
        return rc == PMIX_SUCCESS ? std::move(reader) : nullptr;
    }

    pmix_status_t stats(std::string_view nspace, NamespaceStats& out) const override {
        const auto it = spaces_.find(nspace);
        if (it == spaces_.end()) {
            return PMIX_ERR_NOT_FOUND;
        }
        out = it->second->region().stats();
        return PMIX_SUCCESS;
    }

    DirectoryStats directory_stats() const override { return directory_->stats(); }

    pmix_status_t share_namespace(std::string_view nspace, gid_t gid) override {
        NamespaceWriter* ns = nullptr;
        pmix_status_t rc = lookup(nspace, ns);
        if (rc == PMIX_SUCCESS && !directory_shared_) {
            rc = directory_->share(SegmentAccess{static_cast<gid_t>(-1), 0644});
            directory_shared_ = rc == PMIX_SUCCESS;
        }
        return rc != PMIX_SUCCESS ? rc : ns->share(SegmentAccess{gid, 0640});
    }

    std::vector<std::string> segment_names(std::string_view nspace) const override {
        const auto it = spaces_.find(nspace);
        if (it == spaces_.end() || !backing_->shared()) {
            return {};
        }
        return it->second->region().names();
    }

private:
    pmix_status_t lookup(std::string_view nspace, NamespaceWriter*& out) const {
        if (!valid_nspace(nspace)) {
            return PMIX_ERR_BAD_PARAM;
        }
        const auto it = spaces_.find(nspace);
        if (it == spaces_.end()) {
            return PMIX_ERR_NOT_FOUND;
        }
        out = it->second.get();
        return PMIX_SUCCESS;
    }

    pmix_status_t stage(std::string_view nspace, const Entity& entity, std::string_view key,
                        pmix_scope_t scope, const pmix_value_t& value) {
        NamespaceWriter* ns = nullptr;
        const pmix_status_t rc = lookup(nspace, ns);
        Space space = Space::job;
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        if (!valid_key(key) || !entity_space(entity, space)) {
            return PMIX_ERR_BAD_PARAM;
        }
        const std::string_view host = entity.level == Level::node ? entity.host : "";
        return ns->stage_put(space, entity.id, host, key, static_cast<std::uint8_t>(scope), value);
    }

    std::shared_ptr<Backing> backing_;
    StoreOptions options_;
    std::unique_ptr<DirectoryWriter> directory_;
    std::map<std::string, std::unique_ptr<NamespaceWriter>, std::less<>> spaces_;
    std::vector<std::string> unannounced_;  // begun, not yet in the directory
    std::uint32_t incarnations_ = 0;
    bool directory_shared_ = false;  // readable by every local user since a namespace was shared
};

std::unique_ptr<StoreWriter> make_engine(std::shared_ptr<Backing> backing,
                                         const StoreOptions& options, pmix_status_t* status) {
    auto writer = std::make_unique<EngineWriter>(std::move(backing), options);
    const pmix_status_t rc = writer->init();
    if (status != nullptr) {
        *status = rc;
    }
    return rc == PMIX_SUCCESS ? std::move(writer) : nullptr;
}

}  // namespace

std::unique_ptr<StoreWriter> make_heap_store(const StoreOptions& options) {
    return make_engine(make_heap_backing(), options, nullptr);
}

std::unique_ptr<StoreWriter> make_shm_store(const StoreOptions& options, pmix_status_t* status) {
    return make_engine(options.sealed ? make_memfd_backing() : make_shm_backing(options.prefix),
                       options, status);
}

std::unique_ptr<StoreReader> open_sealed_reader(std::string_view locator, pmix_status_t* status) {
    std::unique_ptr<StoreReader> reader;
    const pmix_status_t rc = open_reader(make_memfd_backing(), locator, reader);
    if (status != nullptr) {
        *status = rc;
    }
    return reader;
}

std::unique_ptr<StoreReader> open_shm_reader(std::string_view locator, pmix_status_t* status) {
    std::unique_ptr<StoreReader> reader;
    const pmix_status_t rc = open_reader(make_shm_backing(std::string()), locator, reader);
    if (status != nullptr) {
        *status = rc;
    }
    return reader;
}

StoreKind select_store_kind(const char* setting) noexcept {
    if (setting == nullptr || *setting == '\0') {
        return StoreKind::shm;
    }
    for (const char* name : {"shm", "ds12", "ds21", "shmem"}) {
        if (::strcasecmp(setting, name) == 0) {
            return StoreKind::shm;
        }
    }
    return StoreKind::heap;
}

std::unique_ptr<StoreWriter> make_store(StoreKind kind, const StoreOptions& options) {
    if (kind == StoreKind::shm) {
        if (auto store = make_shm_store(options); store != nullptr) {
            return store;
        }
    }
    return make_heap_store(options);
}

}  // namespace pmix::gds
