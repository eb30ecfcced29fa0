// tests/fuzz/fuzz_store.h - the input format of the store harness (fuzz_store.cpp), shared with the
// seed generator: the images of a store's segments as a server wrote them.
//
//   repeated: name length (1 byte), name, segment size (4 bytes LE), used bytes n (4 bytes LE),
//             n bytes (the rest of the segment is zero, as a fresh segment is)
// The first segment is the store's directory (its locator); the namespace the seeds hold is
// kFuzzNamespace.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmix::fuzz {

inline constexpr const char* kFuzzNamespace = "fuzz.store";
inline constexpr std::uint32_t kFuzzRanks = 20;            // >= 16: a column is written
inline constexpr std::size_t kMaxSegmentBytes = 1u << 20;  // larger images are refused

}  // namespace pmix::fuzz
