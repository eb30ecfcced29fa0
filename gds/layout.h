// gds/layout.h - the bytes of a store segment: fixed-width records, references and the layout
// stamp. Private to gds/ (tests may include it to build corrupt segments on purpose).
//
// Every record is trivially copyable, 8-byte aligned, and found through a Ref (segment index +
// offset), never a pointer, so a segment maps at any address in any process. A reader trusts no
// field: every Ref it follows is checked against the mapped size of its segment (region.cpp), and
// every segment's header carries the stamp below, which changes whenever a size or an offset of
// any record changes, so two builds that disagree on the layout refuse each other's segments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace pmix::gds::layout {

// ---- references -------------------------------------------------------------------------------
// A Ref names a byte position in a chain of segments: bits 32..47 the segment index, bits 0..31
// the offset in 8-byte units (records are 8-aligned), so one segment may hold up to 32 GiB. 0 is
// "none": offset 0 of any segment is its header, never a record.
using Ref = std::uint64_t;
inline constexpr unsigned kRefBits = 48;
inline constexpr Ref kRefMask = (Ref{1} << kRefBits) - 1;
inline constexpr std::uint32_t kMaxSegments = 1024;
inline constexpr std::uint64_t kMaxSegmentBytes = std::uint64_t{8} << 32;

constexpr Ref make_ref(std::uint32_t segment, std::uint64_t offset) noexcept {
    return (Ref{segment} << 32) | (offset >> 3);
}
constexpr std::uint32_t ref_segment(Ref ref) noexcept {
    return static_cast<std::uint32_t>((ref & kRefMask) >> 32);
}
constexpr std::uint64_t ref_offset(Ref ref) noexcept { return (ref & 0xffffffffu) << 3; }

// An index slot: the top 16 bits are a tag taken from the identity's hash (so most probes that
// do not match never touch a record), the low 48 bits the Ref of the newest record of that
// identity. 0 = empty. Slots are only ever filled or replaced, never emptied, so a probe sequence
// that a reader follows stays valid while the writer inserts.
using Slot = std::uint64_t;
constexpr Slot make_slot(std::uint64_t hash, Ref ref) noexcept {
    return (hash & ~kRefMask) | (ref & kRefMask);
}
constexpr bool slot_matches_tag(Slot slot, std::uint64_t hash) noexcept {
    return (slot & ~kRefMask) == (hash & ~kRefMask);
}

// ---- kinds --------------------------------------------------------------------------------------
enum class Kind : std::uint16_t {
    root = 0x5201,    // RootRecord: one per commit
    value = 0x5602,   // ValueRecord: one key of one entity
    name = 0x4e03,    // NameRecord: an interned string (dynamic key, host name, namespace entry)
    head = 0x4804,    // HeadRecord: newest value record of an entity (key = NULL walks)
    column = 0x4305,  // ColumnRecord: one key for a run of consecutive ranks
    blob = 0x4206,    // BlobHeader: payload bytes of a value
};

// How a value's bytes are kept (encode.h lists the types of each).
enum class Encoding : std::uint16_t {
    scalar = 1,      // the union member's raw bytes, at most 8, inline in the record
    string = 2,      // blob: characters + NUL
    bytes = 3,       // blob: the byte object's bytes
    flat = 4,        // blob: one pointer-free struct (pmix_proc_t, pmix_nspace_t, struct timeval)
    flat_array = 5,  // blob: ArrayHeader + pointer-free elements of a pmix_data_array_t
    codec = 6,       // blob: core/codec's packing of the pmix_value_t (every other type)
};

// Identity spaces: the first input of every index hash, so identities of different kinds never
// compare equal. 1..4 equal gds::Level.
enum class Space : std::uint8_t {
    job = 1,
    app = 2,
    node = 3,
    proc = 4,
    session = 5,     // (session, id): PMIX_SESSION_INFO_ARRAY's keys
    column = 8,      // (column, key id): the newest ColumnRecord of a key
    key_name = 9,    // (key_name, string): dynamic key string -> id
    key_id = 10,     // (key_id, id): id -> the same NameRecord (for key = NULL walks)
    host_name = 11,  // (host_name, string): host name -> node id
};

// Key ids: 1.. the standard attributes (fixed, from the attribute dictionary), kDynamicKeyBase..
// keys interned per namespace, kHeadKey the pseudo-key of entity heads.
inline constexpr std::uint32_t kDynamicKeyBase = 1u << 20;
inline constexpr std::uint32_t kHeadKey = 0xffffffffu;
// Node ids given to host names that have no numeric id (Entity::node(name) without alias_node).
inline constexpr std::uint32_t kSyntheticNodeBase = 0x80000000u;

inline constexpr std::uint64_t kMagic = 0x3153444758494d50ull;  // "PMIXGDS1" little-endian
inline constexpr std::size_t kNameBytes = 64;                   // shm names, NUL-padded

// ---- records ------------------------------------------------------------------------------------
// At offset 0 of every segment. Only `root` changes after the segment is created (and, once,
// `next`, before the commit that first refers to the next segment; and `retired` of a region's
// segment 0, see kRetiredClosed). A store's directory (a chain
// of DirEntry tables, not a region) uses `root` of its segment 0 for the number of segments in
// its chain, release-stored after the new segment is named in `next`.
struct SegmentHeader {
    std::uint64_t magic;
    std::uint64_t layout_stamp;
    std::uint64_t keys_stamp;   // fingerprint of the standard-key table (keys.cpp)
    std::uint64_t size;         // bytes of this segment, equal to the mapping's size
    std::uint64_t root;         // segment 0 only: Ref of the current RootRecord (release-store);
                                // directory: segments in the chain
    std::uint32_t index;        // position in the chain
    std::uint32_t incarnation;  // the namespace's incarnation (directory: 0)
    std::uint64_t writer_pid;
    std::uint64_t retired;  // region segment 0: 0, kRetiredClosed or kRetiredAbandoned (release)
    char next[kNameBytes];  // name of the next segment, empty while there is none
    char nspace[256];       // namespace (PMIX_MAX_NSLEN + 1), empty for a directory
};
inline constexpr std::size_t kSegmentHeaderBytes = sizeof(SegmentHeader);
// A region's writer will publish nothing more there: what it holds stays valid (a process's own
// modex segment at PMIx_Finalize, gds/proc_segment.h).
inline constexpr std::uint64_t kRetiredClosed = 1;
// What the region holds may be older than what its writer committed elsewhere (a write that
// failed): readers must not use it any more. Set without allocating, so it works on a full segment.
inline constexpr std::uint64_t kRetiredAbandoned = 2;

// Common prefix of every record reached through the index.
struct RecordHead {
    Ref prev;                  // older version of the same identity (strictly lower Ref), 0 none
    std::uint32_t generation;  // commit that published the record
    Kind kind;
    std::uint16_t aux;  // kind-specific: Encoding for values/columns, Space for names
};

// Appended by every commit; segment 0's header.root points at the newest.
struct RootRecord {
    RecordHead head;         // prev = previous root
    Ref slots;               // index: `capacity` Slots
    std::uint64_t capacity;  // power of two
    Ref columns;             // newest ColumnRecord of the region (list through next_column)
    std::uint32_t segments;  // segments in the chain at this commit
    std::uint32_t flags;     // kRootDeleted
    std::uint64_t reserved;
};
inline constexpr std::uint32_t kRootDeleted = 1;

struct ValueRecord {
    RecordHead head;  // aux = Encoding
    Ref sibling;      // previous value record of the same entity (any key)
    std::uint32_t key;
    std::uint32_t entity;
    std::uint8_t level;
    std::uint8_t scope;
    std::uint16_t type;     // pmix_data_type_t
    std::uint32_t size;     // scalar: bytes used in `payload`; else the blob's size
    std::uint64_t payload;  // scalar bits, or the blob's Ref
};

// Interned string -> id (aux = Space). The characters (NUL-terminated) follow the record.
struct NameRecord {
    RecordHead head;
    std::uint32_t id;
    std::uint32_t length;  // without the NUL
};

struct HeadRecord {
    RecordHead head;
    Ref newest;  // newest ValueRecord of the entity
    std::uint32_t entity;
    std::uint8_t level;
    std::uint8_t reserved[3];
};

// One key for ranks [first, first + count); aux = Encoding. Elements follow the record: the raw
// scalar (elem_size bytes) or a blob Ref (8 bytes) per rank.
struct ColumnRecord {
    RecordHead head;  // prev = older column of the same key
    Ref next_column;  // previous column of the region (any key)
    std::uint32_t key;
    std::uint32_t first;
    std::uint32_t count;
    std::uint8_t scope;
    std::uint8_t elem_size;
    std::uint16_t type;
};

struct BlobHeader {
    std::uint32_t size;  // payload bytes that follow
    Kind kind;           // Kind::blob
    std::uint16_t reserved;
};

// Header of a flat_array blob; `count` elements of `type` follow.
struct ArrayHeader {
    std::uint16_t type;
    std::uint16_t reserved;
    std::uint32_t count;
};

// The directory (namespace -> its segment 0): every segment of its chain holds, after the
// header, `n` hash words (keys::hash_text of the namespace with bit 0 set; 0: free) and then `n`
// entries, n = (size - header) / (8 + sizeof(DirEntry)). Entries of deleted namespaces are reused,
// so the directory's size follows the most namespaces alive at once, not how many ever lived.
// The writer changes an entry as a sequence lock: `sequence` odd, every other word
// release-stored, `sequence` even again (release); a reader keeps a copy only when it read the
// same even `sequence` before and after the copy, and else skips the entry (gds/directory.h).
struct DirEntry {
    std::uint64_t sequence;
    std::uint32_t incarnation;  // of the namespace (never 0); 0: the entry is free
    std::uint32_t length;       // of `nspace`, without the NUL
    char segment[kNameBytes];   // name of the namespace's segment 0
    char nspace[256];           // PMIX_MAX_NSLEN + 1, NUL-padded
};

// ---- static checks ----------------------------------------------------------------------------
template <typename T>
constexpr bool kRecordOk = std::is_trivially_copyable_v<T>&& std::is_standard_layout_v<T> &&
                           alignof(T) <= 8 && sizeof(T) % 8 == 0;
static_assert(kRecordOk<SegmentHeader> && sizeof(SegmentHeader) == 384);
static_assert(kRecordOk<RecordHead> && sizeof(RecordHead) == 16);
static_assert(kRecordOk<RootRecord> && sizeof(RootRecord) == 56);
static_assert(kRecordOk<ValueRecord> && sizeof(ValueRecord) == 48);
static_assert(kRecordOk<NameRecord> && sizeof(NameRecord) == 24);
static_assert(kRecordOk<HeadRecord> && sizeof(HeadRecord) == 32);
static_assert(kRecordOk<ColumnRecord> && sizeof(ColumnRecord) == 40);
static_assert(kRecordOk<BlobHeader> && sizeof(BlobHeader) == 8);
static_assert(kRecordOk<ArrayHeader> && sizeof(ArrayHeader) == 8);
static_assert(kRecordOk<DirEntry> && sizeof(DirEntry) == 336);
// Offsets that readers and writers of other builds must agree on (the stamp covers all of them;
// these make a change visible at compile time).
static_assert(offsetof(SegmentHeader, root) == 32 && offsetof(SegmentHeader, index) == 40 &&
              offsetof(SegmentHeader, retired) == 56 && offsetof(SegmentHeader, next) == 64 &&
              offsetof(SegmentHeader, nspace) == 128);
static_assert(offsetof(SegmentHeader, root) % 8 == 0 && offsetof(SegmentHeader, retired) % 8 == 0,
              "root and retired are accessed atomically");
static_assert(offsetof(RecordHead, generation) == 8 && offsetof(RecordHead, kind) == 12 &&
              offsetof(RecordHead, aux) == 14);
static_assert(offsetof(RootRecord, slots) == 16 && offsetof(RootRecord, capacity) == 24 &&
              offsetof(RootRecord, columns) == 32 && offsetof(RootRecord, segments) == 40 &&
              offsetof(RootRecord, flags) == 44);
static_assert(offsetof(ValueRecord, sibling) == 16 && offsetof(ValueRecord, key) == 24 &&
              offsetof(ValueRecord, entity) == 28 && offsetof(ValueRecord, level) == 32 &&
              offsetof(ValueRecord, scope) == 33 && offsetof(ValueRecord, type) == 34 &&
              offsetof(ValueRecord, size) == 36 && offsetof(ValueRecord, payload) == 40);
static_assert(offsetof(NameRecord, id) == 16 && offsetof(NameRecord, length) == 20);
static_assert(offsetof(HeadRecord, newest) == 16 && offsetof(HeadRecord, entity) == 24 &&
              offsetof(HeadRecord, level) == 28);
static_assert(offsetof(ColumnRecord, next_column) == 16 && offsetof(ColumnRecord, key) == 24 &&
              offsetof(ColumnRecord, first) == 28 && offsetof(ColumnRecord, count) == 32 &&
              offsetof(ColumnRecord, scope) == 36 && offsetof(ColumnRecord, elem_size) == 37 &&
              offsetof(ColumnRecord, type) == 38);
static_assert(offsetof(BlobHeader, kind) == 4 && offsetof(ArrayHeader, count) == 4);
static_assert(offsetof(DirEntry, incarnation) == 8 && offsetof(DirEntry, length) == 12 &&
              offsetof(DirEntry, segment) == 16 && offsetof(DirEntry, nspace) == 80);

// ---- layout stamp ---------------------------------------------------------------------------
namespace detail {
constexpr std::uint64_t fold(std::uint64_t h, std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}
template <typename... V>
constexpr std::uint64_t fold_all(std::uint64_t h, V... values) noexcept {
    ((h = fold(h, static_cast<std::uint64_t>(values))), ...);
    return h;
}
}  // namespace detail

#define PMIX_GDS_FIELD(T, f) offsetof(T, f), sizeof(T::f)
constexpr std::uint64_t compute_layout_stamp() noexcept {
    std::uint64_t h = detail::fold_all(0xcbf29ce484222325ull, kMagic, 3 /* format version */);
    h = detail::fold_all(
        h, sizeof(SegmentHeader), PMIX_GDS_FIELD(SegmentHeader, magic),
        PMIX_GDS_FIELD(SegmentHeader, layout_stamp), PMIX_GDS_FIELD(SegmentHeader, keys_stamp),
        PMIX_GDS_FIELD(SegmentHeader, size), PMIX_GDS_FIELD(SegmentHeader, root),
        PMIX_GDS_FIELD(SegmentHeader, index), PMIX_GDS_FIELD(SegmentHeader, incarnation),
        PMIX_GDS_FIELD(SegmentHeader, writer_pid), PMIX_GDS_FIELD(SegmentHeader, retired),
        PMIX_GDS_FIELD(SegmentHeader, next),
        PMIX_GDS_FIELD(SegmentHeader, nspace));
    h = detail::fold_all(h, sizeof(RecordHead), PMIX_GDS_FIELD(RecordHead, prev),
                         PMIX_GDS_FIELD(RecordHead, generation), PMIX_GDS_FIELD(RecordHead, kind),
                         PMIX_GDS_FIELD(RecordHead, aux));
    h = detail::fold_all(h, sizeof(RootRecord), PMIX_GDS_FIELD(RootRecord, slots),
                         PMIX_GDS_FIELD(RootRecord, capacity), PMIX_GDS_FIELD(RootRecord, columns),
                         PMIX_GDS_FIELD(RootRecord, segments), PMIX_GDS_FIELD(RootRecord, flags));
    h = detail::fold_all(h, sizeof(ValueRecord), PMIX_GDS_FIELD(ValueRecord, sibling),
                         PMIX_GDS_FIELD(ValueRecord, key), PMIX_GDS_FIELD(ValueRecord, entity),
                         PMIX_GDS_FIELD(ValueRecord, level), PMIX_GDS_FIELD(ValueRecord, scope),
                         PMIX_GDS_FIELD(ValueRecord, type), PMIX_GDS_FIELD(ValueRecord, size),
                         PMIX_GDS_FIELD(ValueRecord, payload));
    h = detail::fold_all(h, sizeof(NameRecord), PMIX_GDS_FIELD(NameRecord, id),
                         PMIX_GDS_FIELD(NameRecord, length));
    h = detail::fold_all(h, sizeof(HeadRecord), PMIX_GDS_FIELD(HeadRecord, newest),
                         PMIX_GDS_FIELD(HeadRecord, entity), PMIX_GDS_FIELD(HeadRecord, level));
    h = detail::fold_all(h, sizeof(ColumnRecord), PMIX_GDS_FIELD(ColumnRecord, next_column),
                         PMIX_GDS_FIELD(ColumnRecord, key), PMIX_GDS_FIELD(ColumnRecord, first),
                         PMIX_GDS_FIELD(ColumnRecord, count), PMIX_GDS_FIELD(ColumnRecord, scope),
                         PMIX_GDS_FIELD(ColumnRecord, elem_size),
                         PMIX_GDS_FIELD(ColumnRecord, type));
    h = detail::fold_all(h, sizeof(BlobHeader), PMIX_GDS_FIELD(BlobHeader, size),
                         PMIX_GDS_FIELD(BlobHeader, kind), sizeof(ArrayHeader),
                         PMIX_GDS_FIELD(ArrayHeader, type), PMIX_GDS_FIELD(ArrayHeader, count));
    h = detail::fold_all(h, sizeof(DirEntry), PMIX_GDS_FIELD(DirEntry, sequence),
                         PMIX_GDS_FIELD(DirEntry, incarnation), PMIX_GDS_FIELD(DirEntry, length),
                         PMIX_GDS_FIELD(DirEntry, segment), PMIX_GDS_FIELD(DirEntry, nspace));
    return h;
}
#undef PMIX_GDS_FIELD

inline constexpr std::uint64_t kLayoutStamp = compute_layout_stamp();
static_assert(kLayoutStamp != 0);

}  // namespace pmix::gds::layout
