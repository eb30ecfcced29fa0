// gds/ns_writer.h - one namespace's writer: stages puts, and on commit appends them to the
// namespace's region (interned names, value records, entity heads, rank columns) before one
// publish. Private to gds/.
#pragma once

#include "gds/encode.h"
#include "gds/region.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pmix::gds {

// A run of at least this many consecutive ranks that put the same key with the same type and
// scope in one commit is stored as a column (one record, one element per rank) instead of one
// record per rank: registration data and fence results shrink from ~60 to 1-8 bytes per rank.
inline constexpr std::size_t kMinColumn = 16;

class NamespaceWriter {
public:
    NamespaceWriter(std::shared_ptr<Backing> backing, const StoreOptions& options,
                    std::string nspace, std::uint32_t incarnation);

    pmix_status_t init() { return region_.init(); }

    // `host` non-empty only for Level::node entities named by host.
    pmix_status_t stage_put(layout::Space level, std::uint32_t entity, std::string_view host,
                            std::string_view key, std::uint8_t scope, const pmix_value_t& value);
    pmix_status_t stage_alias(std::string_view host, std::uint32_t node_id);

    bool dirty() const noexcept {
        return !pending_.empty() || !new_names_.empty() || !runs_.empty();
    }
    pmix_status_t commit();
    // Publish a root that tells readers the namespace is gone.
    pmix_status_t publish_deleted() { return region_.publish(layout::kRootDeleted); }
    // Tell readers no more commits come here (layout::kRetiredClosed / kRetiredAbandoned).
    void retire(std::uint64_t how) noexcept { region_.retire(how); }

    pmix_status_t share(const SegmentAccess& access) { return region_.share(access); }

    const RegionWriter& region() const noexcept { return region_; }
    std::uint32_t incarnation() const noexcept { return incarnation_; }

private:
    struct Pending {
        layout::Space level;
        std::uint8_t scope;
        std::uint32_t entity;
        std::uint32_t key;
        enc::Encoded meta;
        std::size_t offset;  // payload bytes in arena_ (non-scalars)
    };
    struct NewName {
        layout::Space space;  // key_name or host_name
        std::string text;
        std::uint32_t id;
    };
    using Newest = std::unordered_map<std::uint64_t, layout::Ref>;
    // Process-level puts of one key for consecutive ranks with one shape (type, encoding, scope,
    // scalar width), in rank order: how registrations and fence results arrive. They are kept
    // here, 12 bytes per put, and become a column at commit without the sorting and grouping
    // plan() does for arbitrary puts (measured on bench-scale, 1,000,000 processes x 7 keys:
    // plan/split_group/same_column and the Pending vector were ~40% of 1.07 s). The first put
    // that does not continue the run sends the run and every later put of that key in this
    // commit through pending_ (`broken`), so plan()'s last-put-wins rule still decides.
    struct RunElement {
        std::uint64_t bits;  // scalar bits, or the payload's offset in arena_
        std::uint32_t size;  // payload bytes (non-scalars)
    };
    struct Run {
        std::uint32_t first = 0;
        enc::Encoded shape{};
        std::uint8_t scope = 0;
        bool broken = false;
        std::vector<RunElement> elems;
    };

    std::uint32_t intern_key(std::string_view key);
    std::uint32_t host_id(std::string_view host);
    pmix_status_t write_names();
    pmix_status_t write_blob(std::size_t offset, std::size_t size, layout::Ref& out);
    pmix_status_t write_value(const Pending& p, Newest& newest);
    pmix_status_t write_heads(const Newest& newest);
    pmix_status_t write_column(const std::vector<std::size_t>& run);
    pmix_status_t write_run_column(std::uint32_t key, const Run& run);
    template <class ElementAt>
    pmix_status_t write_column_of(std::uint32_t key, std::uint32_t first, std::size_t count,
                                  const enc::Encoded& shape, std::uint8_t scope, ElementAt at);
    bool extend_run(std::uint32_t entity, std::uint32_t key, std::uint8_t scope,
                    const enc::Encoded& meta, std::size_t offset);
    void run_to_pending(std::uint32_t key, Run& run);
    Run& run_of(std::uint32_t key);
    void plan(std::vector<std::size_t>& records,
              std::vector<std::vector<std::size_t>>& columns) const;
    void split_group(std::vector<std::size_t>& group, std::vector<std::size_t>& records,
                     std::vector<std::vector<std::size_t>>& columns) const;
    bool same_column(const Pending& a, const Pending& b) const noexcept;

    RegionWriter region_;
    std::uint32_t incarnation_;
    // Transparent lookups: a put of a known key allocates no string.
    struct TextHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    using NameMap = std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>>;
    NameMap keys_;   // dynamic key -> id
    NameMap hosts_;  // host name -> node id
    std::uint32_t next_key_ = layout::kDynamicKeyBase;
    std::uint32_t next_host_ = layout::kSyntheticNodeBase;
    std::vector<NewName> new_names_;
    std::vector<Pending> pending_;
    std::unordered_map<std::uint32_t, Run> runs_;   // key id -> this commit's run
    std::pair<std::uint32_t, Run*> last_run_[8]{};  // direct-mapped by key id: registrations
                                                    // cycle through a handful of keys
    std::vector<std::byte> arena_;
    // Small payloads already in the region (host names, locality strings, ...): written once.
    std::unordered_map<std::uint64_t, layout::Ref> blobs_;
};

}  // namespace pmix::gds
