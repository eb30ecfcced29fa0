// samples.h - test helpers: one filled element of any PMIx data type, and the list of all types.
#pragma once

#include <pmix_common.h>

#include <string>
#include <vector>

#include "data/value.h"

namespace pmix::data::test {

// Every type core/data must support (pmix_common.h of OpenPMIx 4.2.2, holes excluded).
const std::vector<pmix_data_type_t>& all_types();

// Fill zeroed element storage of `type` with content derived from `seed`: equal seeds give equal
// elements, different seeds (1..9) give elements that compare unequal. Everything is malloc'd,
// so destruct_element() releases it.
void fill(void* element, pmix_data_type_t type, int seed);

// One owned sample element (released with destruct_element + free).
class Element {
public:
    Element(pmix_data_type_t type, int seed);
    ~Element();
    Element(const Element&) = delete;
    Element& operator=(const Element&) = delete;

    void* get() { return storage_; }
    const void* get() const { return storage_; }
    pmix_data_type_t type() const { return type_; }
    // What PMIx_Value_load / PMIx_Data_copy take for this type: the char* itself for STRING and
    // REGEX, the pointer itself for POINTER (value_load only), the element's address otherwise.
    const void* load_arg() const;
    const void* copy_arg() const;

private:
    pmix_data_type_t type_;
    void* storage_;
};

// RAII pmix_value_t / pmix_info_t for tests.
struct Value {
    pmix_value_t v{};
    Value() { v.type = PMIX_UNDEF; }
    ~Value() { value_destruct(&v); }
    Value(const Value&) = delete;
    Value& operator=(const Value&) = delete;
};

std::string type_name(pmix_data_type_t type);

}  // namespace pmix::data::test
