// gds/store.h - the job-data store: one writer (the server), many lock-free readers (clients).
//
// Contract:
//  - The writer puts values for a namespace's job, apps, nodes and processes, plus modex data
//    (fence and direct-modex results). Nothing is visible until commit(), which publishes
//    everything put since the previous commit with one release-store per namespace. A later put
//    of the same (entity, key) replaces the earlier one for every reader after the next commit.
//  - Readers never lock, never make a system call and never switch threads to answer a get() for
//    data that is present. A miss is PMIX_ERR_NOT_FOUND (the client then asks the server); a
//    segment that fails any check (stamp, bounds, record shape) is kErrCorrupt and is never read
//    past the failed check. Readers may run on any number of threads while the writer appends.
//  - Two implementations share this interface: make_shm_store() (POSIX shared memory, mapped
//    read-only by readers in any process) and make_heap_store() (the same engine on malloc'd
//    memory, for one process or where shared memory is refused). gds/README.md sums up the
//    layout; layout.h, region.h and encode.h hold the details.
//
// Thread safety: a StoreWriter is used by one thread at a time (the server's progress thread).
// A StoreReader's get/get_view/visit may be called concurrently from any threads; attach may
// run concurrently with them; detach must not (see below).
#pragma once

#include <pmix_common.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pmix::gds {

// A segment that fails validation: wrong magic or layout stamp, a size that disagrees with the
// mapping, a reference outside the mapped bytes, a record of the wrong kind or shape.
inline constexpr pmix_status_t kErrCorrupt = PMIX_ERR_UNPACK_FAILURE;

enum class Level : std::uint8_t { job = 1, app = 2, node = 3, proc = 4, session = 5 };

// Whose value: the job, an application (by index), a node (by id, or by host name), a process
// (by rank) or the session (by PMIX_SESSION_ID) the namespace's registration described. Special
// ranks (PMIX_RANK_WILDCARD and above PMIX_RANK_VALID) are not entities: the caller maps WILDCARD
// to Entity::job(); the others are PMIX_ERR_BAD_PARAM.
struct Entity {
    Level level = Level::job;
    std::uint32_t id = 0;
    std::string_view host{};  // Level::node only: when non-empty, the node is named by host

    static constexpr Entity job() noexcept { return {}; }
    static constexpr Entity app(std::uint32_t index) noexcept { return {Level::app, index, {}}; }
    static constexpr Entity node(std::uint32_t node_id) noexcept {
        return {Level::node, node_id, {}};
    }
    static constexpr Entity node(std::string_view hostname) noexcept {
        return {Level::node, 0, hostname};
    }
    static constexpr Entity proc(pmix_rank_t rank) noexcept { return {Level::proc, rank, {}}; }
    static constexpr Entity session(std::uint32_t session_id) noexcept {
        return {Level::session, session_id, {}};
    }
};

// Scope filter for reads: a bit per pmix_scope_t. put() stores PMIX_SCOPE_UNDEF; put_modex()
// stores the caller's scope. A client reading a local peer passes kLocalPeer, a remote one
// kRemotePeer; kAllScopes returns whatever is there.
constexpr unsigned scope_bit(pmix_scope_t scope) noexcept { return 1u << (scope & 7u); }
inline constexpr unsigned kAllScopes = 0xffu;
inline constexpr unsigned kLocalPeer = scope_bit(PMIX_SCOPE_UNDEF) | scope_bit(PMIX_LOCAL) |
                                       scope_bit(PMIX_GLOBAL) | scope_bit(PMIX_INTERNAL);
inline constexpr unsigned kRemotePeer =
    scope_bit(PMIX_SCOPE_UNDEF) | scope_bit(PMIX_REMOTE) | scope_bit(PMIX_GLOBAL);

// The result of get_view (PMIX_GET_POINTER_VALUES). For strings, byte objects, procs and arrays
// of pointer-free elements, value() points straight into the store (zero_copy() is true): the
// bytes are read-only (shared memory is mapped PROT_READ; writing them kills the process) and
// stay valid until the namespace is detached or the reader destroyed. Other types (info arrays,
// envars, topologies, ...) have no pointer-free form; the view then owns a decoded copy and
// releases it in reset()/the destructor. Not copyable or movable: value() may point into the view.
class ValueView {
public:
    ValueView() noexcept;
    ~ValueView();
    ValueView(const ValueView&) = delete;
    ValueView& operator=(const ValueView&) = delete;

    const pmix_value_t& value() const noexcept { return value_; }
    bool zero_copy() const noexcept { return !owned_; }
    // Where the stored value lives in this reader's mapping. Stored values are never modified
    // (a later put appends a new one), so two views with the same source hold the same value for
    // as long as the namespace stays attached to the reader; clients use it to hand out one
    // pmix_value_t per stored value in PMIX_GET_POINTER_VALUES mode. Null when empty.
    const void* source() const noexcept { return source_; }
    void reset() noexcept;

private:
    friend struct ViewAccess;  // the store fills views (encode.cpp)
    pmix_value_t value_;
    pmix_data_array_t array_;
    const void* source_ = nullptr;
    bool owned_ = false;
};

class StoreReader {
public:
    virtual ~StoreReader() = default;

    // Map the namespace's data (first use; again after the namespace was deleted and registered
    // anew). PMIX_ERR_NOT_FOUND: no such namespace. get() attaches by itself when needed, so
    // calling attach is optional; it moves the cost (a few mmaps) out of the first get.
    virtual pmix_status_t attach(std::string_view nspace) = 0;

    // Release this reader's mappings of the namespace. The caller guarantees that no get/view/
    // visit of that namespace runs concurrently and that no ValueView into it is still in use.
    virtual void detach(std::string_view nspace) noexcept = 0;

    // Copy the value of `key` for `entity` into *out (every pointer malloc'd; the caller
    // releases it with PMIx_Value_destruct). PMIX_ERR_NOT_FOUND when absent or filtered out by
    // `scopes`; PMIX_ERR_BAD_PARAM for bad arguments; kErrCorrupt for a damaged segment.
    virtual pmix_status_t get(std::string_view nspace, const Entity& entity, std::string_view key,
                              pmix_value_t* out, unsigned scopes = kAllScopes) noexcept = 0;

    // As get(), but without copying when the type allows (see ValueView).
    virtual pmix_status_t get_view(std::string_view nspace, const Entity& entity,
                                   std::string_view key, ValueView& out,
                                   unsigned scopes = kAllScopes) noexcept = 0;

    // Where the value get_view would show lives (ValueView::source), without decoding it: a
    // client that already holds a view of that stored value reuses it.
    virtual pmix_status_t locate(std::string_view nspace, const Entity& entity,
                                 std::string_view key, const void** source,
                                 unsigned scopes = kAllScopes) noexcept = 0;

    // Every key of `entity` (PMIx_Get with key = NULL), newest value of each, each key once.
    // The value handed to the visitor is valid during the call only. PMIX_ERR_NOT_FOUND when the
    // entity has no keys.
    using Visitor = std::function<void(std::string_view key, const pmix_value_t& value)>;
    virtual pmix_status_t visit(std::string_view nspace, const Entity& entity,
                                const Visitor& visitor, unsigned scopes = kAllScopes) = 0;

    // Takes this thread's view of the namespace to its newest commit and reads through what the
    // commits since its previous view wrote (at most the last kWarmBytes), so that the calling
    // thread's next Gets of that fresh data find it mapped and in cache. A client calls it when
    // a fence that brought data returns.
    static constexpr std::size_t kWarmBytes = std::size_t{256} << 10;
    virtual void warm(std::string_view nspace) noexcept = 0;

    // Changes whenever a commit is published to the namespace (and when it is registered anew);
    // 0 when nothing can be read of it. Lets a reader skip a lookup whose answer cannot have
    // changed since it last asked.
    virtual std::uint64_t version(std::string_view nspace) noexcept = 0;

    // What the writer said with StoreWriter::retire: live (still published to, or not
    // attachable), closed (complete, nothing more comes) or abandoned (stale: do not read).
    enum class Retired { live, closed, abandoned };
    virtual Retired retired(std::string_view nspace) noexcept = 0;
};

// Who besides the writer may open a segment. The writer stays the owner (a reader that owned a
// segment could chmod it and write into memory the writer reads back); `group` (-1: unchanged)
// gets the group bits of `mode`, everyone else its other bits. Readers only read, so a
// namespace's segments are 0640 to the job's group; the directory is 0644 (gds/README.md says
// what it shows).
struct SegmentAccess {
    gid_t group = static_cast<gid_t>(-1);
    mode_t mode = 0600;
};

// Sizes of one namespace's data, for diagnostics and the scale benchmark.
struct NamespaceStats {
    std::uint32_t generation = 0;    // commits published so far
    std::size_t segments = 0;        // segments in the chain
    std::size_t bytes_reserved = 0;  // sum of segment sizes (address space; pages untouched
                                     // past bytes_used cost nothing)
    std::size_t bytes_used = 0;      // bytes written (records, payloads, index)
};

// Sizes of the store's directory (namespace -> segment 0). Entries of deleted namespaces are
// reused, so these follow the most namespaces alive at once.
struct DirectoryStats {
    std::size_t namespaces = 0;      // entries in use (namespaces committed and not deleted)
    std::size_t capacity = 0;        // entries in all its segments
    std::size_t segments = 0;        // segments in its chain
    std::size_t bytes_reserved = 0;  // sum of segment sizes
};

class StoreWriter {
public:
    virtual ~StoreWriter() = default;

    // Start a namespace (idempotent). It becomes visible to readers at the next commit.
    virtual pmix_status_t begin_namespace(std::string_view nspace) = 0;

    // Stage a value; PMIX_ERR_NOT_FOUND if the namespace was not begun, PMIX_ERR_BAD_PARAM for an
    // empty or over-long key (> PMIX_MAX_KEYLEN) or namespace, PMIX_ERR_UNKNOWN_DATA_TYPE for a
    // type the store cannot hold. The value is copied; the caller keeps ownership.
    virtual pmix_status_t put(std::string_view nspace, const Entity& entity, std::string_view key,
                              const pmix_value_t& value) = 0;

    // Stage a process's modex value (fence or direct-modex result) with its scope.
    virtual pmix_status_t put_modex(std::string_view nspace, pmix_rank_t rank, pmix_scope_t scope,
                                    std::string_view key, const pmix_value_t& value) = 0;

    // Let readers name node `node_id` by `hostname` (Entity::node(hostname)). Staged like put.
    virtual pmix_status_t alias_node(std::string_view nspace, std::string_view hostname,
                                     std::uint32_t node_id) = 0;

    // Publish everything staged, one release-store per namespace touched.
    virtual pmix_status_t commit() = 0;

    // Drop staged data, tell readers the namespace is gone and release its segments (shm: the
    // names are unlinked at once; memory returns when the last reader detaches).
    virtual pmix_status_t delete_namespace(std::string_view nspace) = 0;

    // Tells readers of the namespace that this writer publishes nothing more there, without
    // allocating (works on a full segment). `abandoned`: what it holds is stale, readers must not
    // use it (StoreReader::retired). A process's own modex segment (proc_segment.h) uses it.
    virtual pmix_status_t retire(std::string_view nspace, bool abandoned) = 0;

    // What a reader in another process passes to open_shm_reader() (shm: the directory
    // segment's name; heap: empty, no other process can read it).
    virtual std::string locator() const = 0;

    // A reader in this process (shm: maps the segments read-only, exactly as a client would).
    virtual std::unique_ptr<StoreReader> make_reader() = 0;

    virtual pmix_status_t stats(std::string_view nspace, NamespaceStats& out) const = 0;
    virtual DirectoryStats directory_stats() const = 0;

    // Makes the namespace's segments, and those it chains later, readable by group `gid` (0640,
    // the writer stays the owner), and the store's directory readable by every local user
    // (0644): how a server lets a job of another user read its data. Heap store: nothing to do.
    // PMIX_ERR_NOT_FOUND for an unknown namespace; PMIX_ERR_NO_PERMISSIONS when the kernel
    // refuses the group.
    virtual pmix_status_t share_namespace(std::string_view nspace, gid_t gid) = 0;

    // Names of the shared-memory objects behind a namespace (segment 0 first); empty for heap.
    virtual std::vector<std::string> segment_names(std::string_view nspace) const = 0;
};

struct StoreOptions {
    std::size_t segment_bytes = std::size_t{1} << 20;  // first segment of a namespace
    bool grow = true;                 // each chained segment twice the size of the previous one
    std::string prefix = "/pmixgds";  // shm names: <prefix>-<pid>-<counter>
    // make_shm_store: sealed memfds instead of POSIX shm (backing.h make_memfd_backing): no
    // writer can shrink a segment under its readers; readable by the writer's uid only.
    bool sealed = false;
};

enum class StoreKind { shm, heap };

// The in-process store (never fails except for memory).
std::unique_ptr<StoreWriter> make_heap_store(const StoreOptions& options = {});

// The shared-memory store; nullptr with *status set when shared memory is unavailable (the
// caller may then fall back to make_heap_store).
std::unique_ptr<StoreWriter> make_shm_store(const StoreOptions& options = {},
                                            pmix_status_t* status = nullptr);

// A reader in another process, from the writer's locator(). nullptr with *status set when the
// locator cannot be opened (PMIX_ERR_NOT_FOUND) or is not a valid store (kErrCorrupt).
std::unique_ptr<StoreReader> open_shm_reader(std::string_view locator,
                                             pmix_status_t* status = nullptr);
// The same for a store made with StoreOptions::sealed: every segment of it, the chained ones
// too, must be a sealed memfd (a name of another kind is refused as kErrCorrupt).
std::unique_ptr<StoreReader> open_sealed_reader(std::string_view locator,
                                                pmix_status_t* status = nullptr);

// Store selection from a setting such as the PMIX_GDS_MODULE environment variable: "heap" (or
// "hash", OpenPMIx's name for its in-process store) selects the heap store; "shm", "ds12",
// "ds21", "shmem" or an empty/absent value select shared memory. Anything else: heap, the safe
// choice. make_store() falls back to the heap store when shared memory cannot be created.
StoreKind select_store_kind(const char* setting) noexcept;
std::unique_ptr<StoreWriter> make_store(StoreKind kind, const StoreOptions& options = {});

}  // namespace pmix::gds
