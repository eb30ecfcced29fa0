// server/modex_delta.h - incremental fences: a collecting fence ships, per process, only the keys
// that changed since the version its receivers hold, and a receiver applies such a delta only on
// top of that version (fence.cpp's modex_blob / store_blob use it).
//
// The rule (why a receiver ends with what a full fence gives it):
// 1. Every blob group of a process carries a header (epoch, base, version): `version` numbers the
//    sender's snapshot of that process's exported modex; numbers come from one counter per
//    server (epoch: random per server start), so they are never reused, across processes too.
//    Every blob that leaves a server (fence, direct modex, commit wait) is such a snapshot.
// 2. A key's change number is the first snapshot in which it has its current bytes. A delta with
//    base B holds every key changed after B (base 0: all keys). Keys are never deleted, so a
//    holder of any snapshot >= B of the same epoch gets exactly the newest values by applying it.
//    A key that leaves the export (Put again as PMIX_LOCAL) is forgotten by the sender, so its
//    return is a change whatever its bytes (receivers keep what they held, as with full fences).
// 3. A receiver remembers per remote process the snapshot it holds (epoch, number) and applies a
//    delta only when it holds the same epoch and a number >= base; else it does not apply it and
//    fetches the full data by direct modex before it releases the fence (fence.cpp).
// 4. The sender chooses the base as the version it shipped in the last SUCCESSFUL fence over the
//    same participant set (its receivers got it); a new set, or a host without direct_modex
//    (no fallback), gets full data. Rule 3 makes any choice correct; rule 4 keeps fetches rare.
// 5. Whole data arriving without a header (none of ours sends it) is applied and changes nothing
//    of what is held. A namespace's deregistration forgets its snapshots on both sides.
// One case differs from a full fence: a receiver that fetched data newer than the fence's keeps
// the newer values of keys that did not change within the fence's delta (a full fence would put
// the older ones back).
//
// Cost: the sender keeps one copy of each local process's exported values (their encoded bytes)
// to compare snapshots exactly (no hash: a collision would lose a change).
#pragma once

#include "server/clients.h"

#include "data/info_array.h"
#include "wire/proto/message.h"

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pmix::server {

// The info that heads each process's group in a blob: a PMIX_BYTE_OBJECT of three little-endian
// uint64: epoch, base (0: full data), version. Never stored.
inline constexpr char kModexHeaderKey[] = "pmix.cpp.modex.hdr";

struct ModexHeader {
    std::uint64_t epoch = 0;
    std::uint64_t base = 0;  // 0: the group holds all of the process's exported data
    std::uint64_t version = 0;
};

// Fills `out` with the header info (value owned by the caller: PMIX_INFO_DESTRUCT).
void make_modex_header(const ModexHeader& h, pmix_info_t* out);
// Reads a header info; false when `in` is not one (or is malformed).
bool read_modex_header(const pmix_info_t& in, ModexHeader* out);

// Which base a fence's deltas use (PMIX_CPP_MODEX_DELTA): `set` as rule 4 says; `any`, what the
// last successful fence over any set shipped (receivers outside that set fetch: the fallback of
// rule 3 at work, for tests); `off`, whole data always (as before deltas, for comparisons).
enum class DeltaBase { set, any, off };
DeltaBase delta_base_from_env();

// Sender side: snapshots of the local processes' exported modex and what fences shipped.
class ModexLog {
public:
    explicit ModexLog(std::uint64_t epoch, DeltaBase policy = DeltaBase::set)
        : epoch_(epoch), policy_(policy) {}
    std::uint64_t epoch() const noexcept { return epoch_; }

    // Records the process's current exported data; returns its snapshot number (unchanged data
    // keeps the number it had).
    std::uint64_t observe(const ProcKey& proc, const pmix_info_t* infos, std::size_t n);
    // Whether `key` of `proc` changed after snapshot `base` (always for base 0).
    bool changed_since(const ProcKey& proc, std::string_view key, std::uint64_t base) const;

    // The version of `proc` shipped in the last successful fence over `signature`; 0: none.
    std::uint64_t base_for(const std::string& signature, const ProcKey& proc) const;
    // Fence `fence_id` over `signature` ships `version` of `proc`; remembered when it succeeds.
    void shipping(std::uint64_t fence_id, const std::string& signature, const ProcKey& proc,
                  std::uint64_t version);
    void fence_done(std::uint64_t fence_id, bool success);

    void forget_namespace(const std::string& nspace);

private:
    struct KeyLog {
        std::vector<std::uint8_t> bytes;  // the encoded value
        std::uint64_t changed = 0;        // snapshot in which it got these bytes
    };
    struct ProcLog {
        std::uint64_t version = 0;
        std::map<std::string, KeyLog, std::less<>> keys;
    };
    struct Shipment {
        std::string signature;
        std::map<ProcKey, std::uint64_t> versions;
    };
    std::uint64_t epoch_;
    DeltaBase policy_;
    std::uint64_t next_ = 1;
    std::map<ProcKey, ProcLog> procs_;
    // Per participant set (bounded: the least recently shipped sets are forgotten first).
    std::map<std::string, std::map<ProcKey, std::uint64_t>> shipped_;
    std::map<std::string, std::uint64_t> set_used_;
    std::uint64_t use_clock_ = 0;
    std::map<std::uint64_t, Shipment> in_flight_;  // by fence id (bounded)
};

// Receiver side: the snapshot held of each remote process.
class ModexHeld {
public:
    // Whether a group with header `h` can be applied to what is held of `proc` (rule 3).
    bool applies(const ProcKey& proc, const ModexHeader& h) const;
    // The group was applied.
    void stored(const ProcKey& proc, const ModexHeader& h);
    void forget_namespace(const std::string& nspace);

private:
    std::map<ProcKey, ModexHeader> held_;  // base unused
};

// Appends `proc`'s group to `w`: [PROC, SIZE n, INFO[n]], the header first, then the keys that
// changed after `base` (every key for base 0, or when the delta would hold them all anyway).
// `infos` is the process's exported data now; records the snapshot and returns its number.
std::uint64_t write_modex_group(proto::Writer& w, ModexLog& log, const pmix_proc_t& proc,
                                const pmix_info_t* infos, std::size_t n, std::uint64_t base);

// A decoded group: its header (when it has one) and the values to store.
struct ModexGroup {
    bool has_header = false;
    ModexHeader header;
    std::vector<const pmix_info_t*> values;  // point into the decoded array
};
ModexGroup split_modex_group(const data::InfoArray& infos);

// A random non-zero epoch for a server's ModexLog.
std::uint64_t new_modex_epoch();

}  // namespace pmix::server
