// tests/unit/gds/samples.h - sample values of every PMIx data type, RAII holders, and the two
// store kinds the typed suites run against.
#pragma once

#include "gds/store.h"

#include <pmix_common.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gds_test {

// Every type a value can hold (PMIX_BOOL .. PMIX_STOR_ACCESS_TYPE without the retired holes).
std::vector<pmix_data_type_t> all_types();
std::string type_label(pmix_data_type_t type);

// A pmix_value_t released at scope exit.
struct Value {
    pmix_value_t v{};
    Value() { v.type = PMIX_UNDEF; }
    ~Value();
    Value(const Value&) = delete;
    Value& operator=(const Value&) = delete;
    pmix_value_t* operator&() { return &v; }
    const pmix_value_t* get() const { return &v; }
};

// Variant `seed` of a value of `type` (different seeds give different contents; for
// PMIX_DATA_ARRAY the element type varies with the seed: uint32, string, info, proc, bool).
void make_sample(pmix_data_type_t type, unsigned seed, pmix_value_t* out);

// Convenience constructors.
void make_string(pmix_value_t* out, const std::string& s);
void make_u64(pmix_value_t* out, std::uint64_t x);
void make_u32(pmix_value_t* out, std::uint32_t x);

bool same(const pmix_value_t& a, const pmix_value_t& b);

// Shared-memory objects of this process whose name starts with `prefix` (without '/').
std::vector<std::string> shm_objects(const std::string& prefix);

// The two implementations the typed suites run against. Shm stores use a prefix unique to the
// test binary so that leftovers can be counted.
inline constexpr const char* kShmPrefix = "/pmixgds-test";

struct HeapKind {
    static constexpr bool shared = false;
    static std::unique_ptr<pmix::gds::StoreWriter> make(pmix::gds::StoreOptions o = {}) {
        return pmix::gds::make_heap_store(o);
    }
};
struct ShmKind {
    static constexpr bool shared = true;
    static std::unique_ptr<pmix::gds::StoreWriter> make(pmix::gds::StoreOptions o = {}) {
        o.prefix = kShmPrefix;
        return pmix::gds::make_shm_store(o);
    }
};

}  // namespace gds_test
