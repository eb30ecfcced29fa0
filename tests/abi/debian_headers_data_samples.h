/*
 * Sample values of every PMIx data type, with our own equality and release functions, so the
 * pack/copy/value tests can loop over types instead of repeating themselves.
 */
#ifndef DEBIAN_HEADERS_DATA_SAMPLES_H
#define DEBIAN_HEADERS_DATA_SAMPLES_H

#include "debian_headers_data.h"

typedef struct dh_type {
    pmix_data_type_t type;
    const char* name; /* "PMIX_UINT32", "PMIX_DATA_ARRAY(PMIX_INFO)" ... */
    size_t size;      /* bytes of one element, as PMIx_Data_pack/unpack see them */
    void (*make)(void* elem, int variant); /* variant 0 and 1 differ */
    bool (*eq)(const void* a, const void* b);
    void (*release)(void* elem); /* frees what the element owns, not itself */
    /* True when pmix_value_t holds this type inside its union, false when by pointer. */
    bool value_inline;
    /* Equality used after pack/unpack, and after PMIx_Data_copy, where the reference is known
     * to drop or corrupt a field (each listed in dh_pack_skips); NULL means eq. */
    bool (*pack_eq)(const void* a, const void* b);
    bool (*copy_eq)(const void* a, const void* b);
} dh_type_t;

/* Every sample type, in data-type order; the DATA_ARRAY entries follow the scalar ones. */
const dh_type_t* dh_types(size_t* count);
/* The first entry for a data type (for arrays: the element type), or NULL. */
const dh_type_t* dh_type_find(pmix_data_type_t type);

/* Operations the reference library gets wrong for a type, so neither build tests them. */
enum { DH_SKIP_PACK = 1, DH_SKIP_COPY = 2, DH_SKIP_PRINT = 4 };
typedef struct dh_skip {
    const char* name; /* dh_type_t.name */
    int ops;          /* DH_SKIP_* bits */
    const char* reason;
} dh_skip_t;
const dh_skip_t* dh_pack_skips(size_t* count);

/* True for fixed-size types that own no memory (their bytes are their value). */
bool dh_is_scalar(const dh_type_t* t);

/* Element equality through the type table (used for data arrays and values). */
bool dh_elem_eq(pmix_data_type_t type, const void* a, const void* b);

#endif
