// attributes.cpp - C entry points of the attribute dictionary.
//
// Both return a string owned by the library, or - as OpenPMIx does - the caller's own pointer
// when the argument is not a known attribute. NULL in gives NULL out (OpenPMIx would crash).
#include <pmix.h>

#include "text/text.h"
#include "shim_support.h"

extern "C" {

const char* PMIx_Get_attribute_string(const char* attribute) {
    return pmix::capi::guarded_or<const char*>(
        attribute, [&] { return pmix::text::attribute_string(attribute); });
}

const char* PMIx_Get_attribute_name(const char* attrstring) {
    return pmix::capi::guarded_or<const char*>(
        attrstring, [&] { return pmix::text::attribute_name(attrstring); });
}

}  // extern "C"
