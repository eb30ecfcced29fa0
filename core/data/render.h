// core/data/render.h - internal to core/data: the pieces print() is built from.
// These may throw std::bad_alloc; print()/print_element() catch it at the boundary.
#pragma once

#include <pmix_common.h>

#include <string>

namespace pmix::data::detail {

// OpenPMIx starts every line with the caller's prefix, or a single blank without one.
inline const char* pfx(const char* prefix) noexcept { return prefix == nullptr ? " " : prefix; }

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Render one element of any known type into `out` (replacing its content).
pmix_status_t render(std::string& out, const char* prefix, const void* element,
                     pmix_data_type_t type);
// The struct types (print_structs.cpp).
pmix_status_t render_struct(std::string& out, const char* prefix, const void* element,
                            pmix_data_type_t type);
// "<prefix>PMIX_VALUE: <element rendered with the default prefix>".
pmix_status_t render_value(std::string& out, const char* prefix, const pmix_value_t* value);

}  // namespace pmix::data::detail
