/* Our own equality helpers: results of the library under test are checked with these. */
#include "debian_headers_data_samples.h"

#include <string.h>

bool dh_proc_eq(const pmix_proc_t* a, const pmix_proc_t* b) {
    return strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN) == 0 && a->rank == b->rank;
}

bool dh_bo_eq(const pmix_byte_object_t* a, const pmix_byte_object_t* b) {
    if (a->size != b->size) return false;
    return a->size == 0 || memcmp(a->bytes, b->bytes, a->size) == 0;
}

bool dh_value_eq(const pmix_value_t* a, const pmix_value_t* b) {
    if (a->type != b->type) return false;
    if (a->type == PMIX_UNDEF) return true;
    const dh_type_t* t = dh_type_find(a->type);
    if (t == NULL) return false;
    if (t->value_inline) return t->eq(&a->data, &b->data);
    if (a->data.ptr == NULL || b->data.ptr == NULL) return a->data.ptr == b->data.ptr;
    return t->eq(a->data.ptr, b->data.ptr);
}

bool dh_info_eq(const pmix_info_t* a, const pmix_info_t* b) {
    return strncmp(a->key, b->key, PMIX_MAX_KEYLEN) == 0 && a->flags == b->flags &&
           dh_value_eq(&a->value, &b->value);
}
