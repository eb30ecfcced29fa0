/*
 * PMIx_Data_pack / unpack / copy / print over every data type, one at a time and all
 * together in one buffer, plus truncated-buffer and wrong-type behaviour.
 */
#include "debian_headers_data_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the reference (OpenPMIx 4.2.2 as packaged by Debian) gets wrong, found by running this
 * program against it. Neither build tests these operations; each is listed in the output. */
static const dh_skip_t pack_skips[] = {
    {"PMIX_KVAL", DH_SKIP_PACK | DH_SKIP_COPY | DH_SKIP_PRINT,
     "not tested: pmix_kval_t is internal to OpenPMIx (no public C type)"},
    {"PMIX_POINTER", DH_SKIP_PACK,
     "pack/unpack: a pointer is process-local; the reference packs a placeholder and "
     "unpacks NULL"},
    {"PMIX_DATA_TYPE", DH_SKIP_PACK | DH_SKIP_COPY,
     "pack/unpack: values come back wrong (PMIX_STRING packs as 0x03, unpacks as 65534); "
     "copy: returns PMIX_ERR_UNKNOWN_DATA_TYPE"},
    {"PMIX_DOUBLE", DH_SKIP_COPY, "copy: returns PMIX_ERR_UNKNOWN_DATA_TYPE"},
    {"PMIX_APP", DH_SKIP_PRINT,
     "print: returns PMIX_SUCCESS but leaves the output NULL; copy: leaves the flags of the "
     "copied info entries uninitialised (compared without them)"},
    {"PMIX_PROC_INFO", 0,
     "pack/unpack: exit_code is not carried (unpacks as 0); compared without it"},
    {"PMIX_PROC_CPUSET", DH_SKIP_PACK | DH_SKIP_PRINT,
     "pack: returns PMIX_ERROR for any non-empty bitmap (treats the length returned by "
     "hwloc_bitmap_list_asprintf as failure); print: returns PMIX_ERR_NOT_SUPPORTED"},
    {"PMIX_PROC_STATS", DH_SKIP_PACK,
     "pack: omits percent_cpu, peak_vsize and processor, so unpack runs past the end; "
     "copy: drops percent_cpu (compared without it)"},
    {"PMIX_NODE_STATS", DH_SKIP_PACK,
     "pack/unpack: the nested disk/net statistics come back as garbage values and pointers "
     "(releasing the result double-frees)"},
    {"PMIX_DATA_BUFFER", DH_SKIP_PACK,
     "unpack: leaves pack_ptr/unpack_ptr NULL and bytes_allocated 0, so the result is "
     "unreadable"},
    {"PMIX_REGATTR", 0,
     "pack/unpack: the type field comes back corrupted (same codec bug as PMIX_DATA_TYPE); "
     "compared without it"},
};

const dh_skip_t* dh_pack_skips(size_t* count) {
    *count = sizeof pack_skips / sizeof pack_skips[0];
    return pack_skips;
}

static int skipped(const dh_skip_t* list, size_t n, const char* name) {
    for (size_t i = 0; i < n; ++i)
        if (strcmp(list[i].name, name) == 0) return list[i].ops;
    return 0;
}

static void* make_pair(const dh_type_t* t) {
    char* elems = calloc(2, t->size);
    t->make(elems, 0);
    t->make(elems + t->size, 1);
    return elems;
}

static void release_pair(const dh_type_t* t, void* elems) {
    t->release(elems);
    t->release((char*)elems + t->size);
    free(elems);
}

static void round_trip(const dh_type_t* t) {
    char* in = make_pair(t);
    pmix_data_buffer_t* buf = NULL;
    PMIX_DATA_BUFFER_CREATE(buf);
    pmix_status_t rc = PMIx_Data_pack(NULL, buf, in, 2, t->type);
    CHECKF(rc == PMIX_SUCCESS, "%s: pack returned %s", t->name, dh_status_name(rc));
    char* out = calloc(2, t->size);
    int32_t n = 2;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Data_unpack(NULL, buf, out, &n, t->type);
        CHECKF(rc == PMIX_SUCCESS && n == 2, "%s: unpack returned %s, n=%d", t->name,
               dh_status_name(rc), n);
        if (rc == PMIX_SUCCESS && n == 2) {
            bool (*eq)(const void*, const void*) = t->pack_eq ? t->pack_eq : t->eq;
            CHECKF(eq(in, out), "%s: element 0 differs after round trip", t->name);
            CHECKF(eq(in + t->size, out + t->size), "%s: element 1 differs", t->name);
            t->release(out);
            t->release(out + t->size);
        }
        /* the buffer is now exhausted */
        char* extra = calloc(1, t->size);
        n = 1;
        rc = PMIx_Data_unpack(NULL, buf, extra, &n, t->type);
        CHECKF(rc == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, "%s: unpack past the end returned %s",
               t->name, dh_status_name(rc));
        free(extra);
    }
    free(out);
    PMIX_DATA_BUFFER_RELEASE(buf);
    release_pair(t, in);
}

static void copy_and_print(const dh_type_t* t, int skip) {
    char* in = make_pair(t);
    if (skip & DH_SKIP_COPY) goto print;
    void* copy = NULL;
    /* Strings are copied as the string itself: src is the char *, *dest the new char *. */
    bool by_string = t->type == PMIX_STRING || t->type == PMIX_REGEX;
    void* src = by_string ? *(char**)in : in;
    pmix_status_t rc = PMIx_Data_copy(&copy, src, t->type);
    CHECKF(rc == PMIX_SUCCESS && copy != NULL, "%s: copy returned %s", t->name, dh_status_name(rc));
    if (rc == PMIX_SUCCESS && copy != NULL) {
        bool (*eq)(const void*, const void*) = t->copy_eq ? t->copy_eq : t->eq;
        CHECKF(eq(in, by_string ? (void*)&copy : copy), "%s: copy differs", t->name);
        if (!by_string) t->release(copy);
        free(copy);
    }
print:
    if (skip & DH_SKIP_PRINT) {
        release_pair(t, in);
        return;
    }
    char* text = NULL;
    pmix_status_t prc = PMIx_Data_print(&text, "PFX", in, t->type);
    CHECKF(prc == PMIX_SUCCESS && text != NULL && strncmp(text, "PFX", 3) == 0,
           "%s: print returned %s, \"%s\"", t->name, dh_status_name(prc), text ? text : "NULL");
    free(text);
    release_pair(t, in);
}

/* Every type's first sample packed back to back, then unpacked in the same order. */
static void one_buffer(const dh_type_t* types, size_t ntypes, const dh_skip_t* sk, size_t nsk) {
    dh_section("pack every type into one buffer, unpack in order");
    pmix_data_buffer_t buf;
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    char** samples = calloc(ntypes, sizeof(char*));
    for (size_t i = 0; i < ntypes; ++i) {
        if (skipped(sk, nsk, types[i].name) & DH_SKIP_PACK) continue;
        samples[i] = make_pair(&types[i]);
        CHECK_RC(PMIx_Data_pack(NULL, &buf, samples[i], 1, types[i].type), PMIX_SUCCESS);
    }
    for (size_t i = 0; i < ntypes; ++i) {
        if (samples[i] == NULL) continue;
        const dh_type_t* t = &types[i];
        char* out = calloc(1, t->size);
        int32_t n = 1;
        pmix_status_t rc = PMIx_Data_unpack(NULL, &buf, out, &n, t->type);
        bool (*eq)(const void*, const void*) = t->pack_eq ? t->pack_eq : t->eq;
        CHECKF(rc == PMIX_SUCCESS && n == 1 && eq(samples[i], out), "%s in a mixed buffer: %s",
               t->name, dh_status_name(rc));
        if (rc == PMIX_SUCCESS) t->release(out);
        free(out);
        release_pair(t, samples[i]);
    }
    CHECK(buf.unpack_ptr == buf.pack_ptr);
    free(samples);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
}

/* Unpacking as the wrong type, and from a truncated copy of a buffer, must fail cleanly. */
static void bad_unpacks(void) {
    dh_section("unpack: wrong type, truncated buffer, too few slots");
    pmix_data_buffer_t buf;
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    char* s = "a string long enough to be cut in the middle";
    CHECK_RC(PMIx_Data_pack(NULL, &buf, &s, 1, PMIX_STRING), PMIX_SUCCESS);
    /* The reference does not type-check non-described buffers, so only demand sanity. */
    int32_t i32 = 0, n = 1;
    pmix_status_t wrong = PMIx_Data_unpack(NULL, &buf, &i32, &n, PMIX_INT32);
    CHECKF(wrong != PMIX_SUCCESS || n == 1, "wrong-type unpack: %s, n=%d", dh_status_name(wrong),
           n);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "pmix.test.trunc", s, PMIX_STRING);
    CHECK_RC(PMIx_Data_pack(NULL, &buf, &info, 1, PMIX_INFO), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    size_t full = (size_t)(buf.pack_ptr - buf.unpack_ptr);
    for (size_t cut = 1; cut < full; cut += 7) {
        pmix_data_buffer_t part;
        PMIX_DATA_BUFFER_CONSTRUCT(&part);
        char* bytes = malloc(cut);
        memcpy(bytes, buf.unpack_ptr, cut);
        PMIX_DATA_BUFFER_LOAD(&part, bytes, cut);
        pmix_info_t got;
        PMIX_INFO_CONSTRUCT(&got);
        n = 1;
        pmix_status_t rc = PMIx_Data_unpack(NULL, &part, &got, &n, PMIX_INFO);
        CHECKF(rc != PMIX_SUCCESS, "info truncated to %zu of %zu bytes unpacked: %s", cut, full,
               dh_status_name(rc));
        if (rc == PMIX_SUCCESS) PMIX_INFO_DESTRUCT(&got);
        PMIX_DATA_BUFFER_DESTRUCT(&part);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buf);

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    int32_t three[3] = {1, 2, 3}, two[2] = {0, 0};
    CHECK_RC(PMIx_Data_pack(NULL, &buf, three, 3, PMIX_INT32), PMIX_SUCCESS);
    n = 2;
    pmix_status_t rc = PMIx_Data_unpack(NULL, &buf, two, &n, PMIX_INT32);
    /* The reference fills the slots it has and reports the shortfall. */
    CHECKF(rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE, "unpack 3 packed values into 2 slots: %s",
           dh_status_name(rc));
    CHECK(two[0] == 1 && two[1] == 2);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
}

/* A NULL string is legal data (hosts register NULL locality strings) and survives packing. */
static void null_string(void) {
    dh_section("NULL string round trip");
    pmix_data_buffer_t buf;
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    char *in[2] = {NULL, "after"}, *out[2] = {"sentinel", NULL};
    CHECK_RC(PMIx_Data_pack(NULL, &buf, in, 2, PMIX_STRING), PMIX_SUCCESS);
    int32_t n = 2;
    CHECK_RC(PMIx_Data_unpack(NULL, &buf, out, &n, PMIX_STRING), PMIX_SUCCESS);
    CHECK(n == 2 && out[0] == NULL && dh_streq(out[1], "after"));
    free(out[1]);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
}

static void unknown_types(void) {
    dh_section("unknown data type");
    pmix_data_buffer_t buf;
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    int32_t v = 1, n = 1;
    pmix_data_type_t bogus = 4242;
    CHECK_RC(PMIx_Data_pack(NULL, &buf, &v, 1, bogus), PMIX_ERR_UNKNOWN_DATA_TYPE);
    CHECK_RC(PMIx_Data_pack(NULL, &buf, &v, 1, PMIX_INT32), PMIX_SUCCESS);
    CHECK_FAILS(PMIx_Data_unpack(NULL, &buf, &v, &n, bogus));
    void* copy = NULL;
    CHECK_RC(PMIx_Data_copy(&copy, &v, bogus), PMIX_ERR_UNKNOWN_DATA_TYPE);
    char* text = NULL;
    CHECK_FAILS(PMIx_Data_print(&text, NULL, &v, bogus));
    free(text);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
}

void dh_run_pack(void) {
    size_t ntypes = 0, nskip = 0;
    const dh_type_t* types = dh_types(&ntypes);
    const dh_skip_t* sk = dh_pack_skips(&nskip);
    for (size_t i = 0; i < nskip; ++i) dh_deviation(sk[i].name, sk[i].reason);
    for (size_t i = 0; i < ntypes; ++i) {
        char title[128];
        snprintf(title, sizeof title, "pack/unpack/copy/print %s", types[i].name);
        dh_section(title);
        int skip = skipped(sk, nskip, types[i].name);
        if (!(skip & DH_SKIP_PACK)) round_trip(&types[i]);
        copy_and_print(&types[i], skip);
    }
    one_buffer(types, ntypes, sk, nskip);
    bad_unpacks();
    null_string();
    unknown_types();
}
