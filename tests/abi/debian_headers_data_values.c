/*
 * PMIx_Value_load/unload/xfer/compare, PMIx_Info_load/xfer and the PMIx_Info_list_* family.
 */
#include "debian_headers_data_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Types whose samples make sense inside a pmix_value_t (the union has a member for them). */
static bool value_storable(const dh_type_t* t) {
    switch (t->type) {
        case PMIX_VALUE:
        case PMIX_APP:
        case PMIX_INFO:
        case PMIX_PDATA:
        case PMIX_QUERY:
        case PMIX_REGATTR:
        case PMIX_KVAL:
        case PMIX_DATA_TYPE:
        case PMIX_COMMAND:
        case PMIX_INFO_DIRECTIVES:
        case PMIX_IOF_CHANNEL:
        case PMIX_REGEX:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
        case PMIX_PROC_CPUSET:
        case PMIX_TOPO:
        case PMIX_PROC_STATS:
        case PMIX_NODE_STATS:
        case PMIX_DATA_BUFFER:
            return false;
        default:
            return true;
    }
}

/* What PMIx_Value_load takes as `data`: the string itself for strings, the pointer itself
 * for PMIX_POINTER, else the address of the element. */
static const void* load_source(const dh_type_t* t, const void* elem) {
    if (t->type == PMIX_STRING || t->type == PMIX_POINTER) return *(void* const*)elem;
    return elem;
}

static bool loaded_matches(const dh_type_t* t, const pmix_value_t* v, const void* elem) {
    if (v->type != t->type) return false;
    if (t->value_inline) return t->eq(&v->data, elem);
    if (v->data.ptr == NULL) return false;
    if (t->type == PMIX_PROC_INFO) {
        /* the reference's load does not copy the state field (listed as a deviation) */
        pmix_proc_info_t x = *(const pmix_proc_info_t*)elem;
        x.state = v->data.pinfo->state;
        return t->eq(v->data.ptr, &x);
    }
    return t->eq(v->data.ptr, elem);
}

/* PMIx_Value_compare of a value and its copy: the reference answers PMIX_EQUAL for every type
 * except these (listed as deviations). */
static bool compare_checked(const dh_type_t* t, pmix_value_cmp_t cmp) {
    if (strcmp(t->name, "PMIX_DATA_ARRAY(PMIX_STRING)") == 0) return true;
    if (strcmp(t->name, "PMIX_DATA_ARRAY(PMIX_VALUE)") == 0)
        return cmp == PMIX_EQUAL || cmp == PMIX_VALUE_COMPARISON_NOT_AVAIL;
    return cmp == PMIX_EQUAL;
}

static void load_xfer_compare(const dh_type_t* t) {
    char* elem = calloc(1, t->size);
    t->make(elem, 0);
    pmix_value_t v, x;
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_CONSTRUCT(&x);
    CHECK_RC(PMIx_Value_load(&v, load_source(t, elem), t->type), PMIX_SUCCESS);
    CHECKF(loaded_matches(t, &v, elem), "%s: loaded value differs (type %u)", t->name, v.type);
    CHECK_RC(PMIx_Value_xfer(&x, &v), PMIX_SUCCESS);
    CHECKF(dh_value_eq(&v, &x), "%s: xfer result differs", t->name);
    if (t->value_inline && dh_is_scalar(t))
        CHECKF(memcmp(&v.data, &x.data, t->size) == 0, "%s: xfer changed the bytes", t->name);
    pmix_value_cmp_t cmp = PMIx_Value_compare(&v, &x);
    CHECKF(compare_checked(t, cmp), "%s: compare(v, xfer(v)) = %d", t->name, (int)cmp);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_DESTRUCT(&x);
    t->release(elem);
    free(elem);
}

/* Unload hands fixed-size data into caller storage, and allocates for strings and arrays. */
static void unload(void) {
    dh_section("PMIx_Value_unload");
    pmix_value_t v;
    int32_t i32 = -42, got32 = 0;
    void* dst = &got32;
    size_t sz = 0;
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &i32, PMIX_INT32);
    CHECK_RC(PMIx_Value_unload(&v, &dst, &sz), PMIX_SUCCESS);
    CHECK(got32 == -42 && sz == sizeof(int32_t) && dst == (void*)&got32);

    double d = 0.125, gotd = 0;
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &d, PMIX_DOUBLE);
    dst = &gotd;
    CHECK_RC(PMIx_Value_unload(&v, &dst, &sz), PMIX_SUCCESS);
    CHECK(gotd == 0.125 && sz == sizeof(double));

    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_LOAD(&v, "unloaded", PMIX_STRING);
    dst = NULL;
    int r;
    PMIX_VALUE_UNLOAD(r, &v, &dst, &sz);
    CHECK(r == PMIX_SUCCESS && dh_streq(dst, "unloaded") && sz == strlen("unloaded"));
    CHECK(dst != (void*)v.data.string);
    free(dst);

    pmix_proc_t p, gotp;
    PMIX_LOAD_PROCID(&p, "unload-ns", 9);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &p, PMIX_PROC);
    memset(&gotp, 0, sizeof gotp);
    dst = &gotp;
    CHECK_RC(PMIx_Value_unload(&v, &dst, &sz), PMIX_SUCCESS);
    CHECK(dh_proc_eq(&gotp, &p));

    const dh_type_t* da = dh_type_find(PMIX_DATA_ARRAY);
    pmix_data_array_t arr;
    da->make(&arr, 0);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &arr, PMIX_DATA_ARRAY);
    pmix_data_array_t placeholder, *gotarr = &placeholder;
    dst = gotarr;
    CHECK_RC(PMIx_Value_unload(&v, &dst, &sz), PMIX_SUCCESS);
    gotarr = dst;
    CHECK(gotarr != &placeholder && gotarr != v.data.darray && da->eq(&arr, gotarr));
    if (gotarr != &placeholder && gotarr != NULL) PMIX_DATA_ARRAY_FREE(gotarr);
    da->release(&arr);

    /* bad input: no destination, and an undefined value */
    CHECK_RC(PMIx_Value_unload(&v, NULL, &sz), PMIX_ERR_BAD_PARAM);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_CONSTRUCT(&v);
    dst = &got32;
    CHECK_RC(PMIx_Value_unload(&v, &dst, &sz), PMIX_ERR_UNKNOWN_DATA_TYPE);
}

static void compare_orders(void) {
    dh_section("PMIx_Value_compare");
    pmix_value_t a, b;
    int32_t five = 5, seven = 7;
    PMIX_VALUE_CONSTRUCT(&a);
    PMIX_VALUE_CONSTRUCT(&b);
    PMIX_VALUE_LOAD(&a, &five, PMIX_INT32);
    PMIX_VALUE_LOAD(&b, &seven, PMIX_INT32);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE2_GREATER);
    CHECK(PMIx_Value_compare(&b, &a) == PMIX_VALUE1_GREATER);
    CHECK(PMIx_Value_compare(&a, &a) == PMIX_EQUAL);
    PMIX_VALUE_DESTRUCT(&b);
    PMIX_VALUE_LOAD(&b, "five", PMIX_STRING);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE_TYPE_DIFFERENT);
    PMIX_VALUE_DESTRUCT(&a);
    PMIX_VALUE_LOAD(&a, "five", PMIX_STRING);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_EQUAL);
    PMIX_VALUE_DESTRUCT(&a);
    PMIX_VALUE_DESTRUCT(&b);
}

static void info_load_xfer(void) {
    dh_section("PMIx_Info_load / PMIx_Info_xfer");
    pmix_info_t a, b;
    uint64_t big = 1ULL << 40;
    PMIX_INFO_CONSTRUCT(&a);
    PMIX_INFO_CONSTRUCT(&b);
    CHECK_RC(PMIx_Info_load(&a, "pmix.test.big", &big, PMIX_UINT64), PMIX_SUCCESS);
    CHECK(strcmp(a.key, "pmix.test.big") == 0 && a.value.type == PMIX_UINT64);
    CHECK(a.value.data.uint64 == big);
    PMIX_INFO_REQUIRED(&a);
    CHECK_RC(PMIx_Info_xfer(&b, &a), PMIX_SUCCESS);
    CHECK(dh_info_eq(&a, &b));
    PMIX_INFO_DESTRUCT(&b);
    PMIX_INFO_DESTRUCT(&a);

    char longkey[PMIX_MAX_KEYLEN + 40];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    PMIX_INFO_CONSTRUCT(&a);
    (void)PMIx_Info_load(&a, longkey, "v", PMIX_STRING);
    CHECK(strnlen(a.key, sizeof a.key) <= PMIX_MAX_KEYLEN);
    PMIX_INFO_DESTRUCT(&a);
    CHECK_RC(PMIx_Info_load(&a, NULL, "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Info_xfer(NULL, &b), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Info_xfer(&b, NULL), PMIX_ERR_BAD_PARAM);
}

static void info_list(void) {
    dh_section("PMIx_Info_list_*");
    void* list = PMIx_Info_list_start();
    CHECK(list != NULL);
    if (list == NULL) return;
    uint32_t u = 99;
    bool yes = true;
    CHECK_RC(PMIx_Info_list_add(list, "pmix.l.str", "text", PMIX_STRING), PMIX_SUCCESS);
    CHECK_RC(PMIx_Info_list_add(list, "pmix.l.u32", &u, PMIX_UINT32), PMIX_SUCCESS);
    pmix_status_t r;
    PMIX_INFO_LIST_ADD(r, list, "pmix.l.flag", &yes, PMIX_BOOL);
    CHECK(r == PMIX_SUCCESS);
    pmix_info_t kept, copied;
    PMIX_INFO_CONSTRUCT(&kept);
    PMIX_INFO_LOAD(&kept, "pmix.l.kept", "inserted", PMIX_STRING);
    CHECK_RC(PMIx_Info_list_insert(list, &kept), PMIX_SUCCESS);
    PMIX_INFO_CONSTRUCT(&copied);
    PMIX_INFO_LOAD(&copied, "pmix.l.copied", &u, PMIX_UINT32);
    PMIX_INFO_LIST_XFER(r, list, &copied);
    CHECK(r == PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&copied);

    pmix_data_array_t arr;
    memset(&arr, 0, sizeof arr);
    PMIX_INFO_LIST_CONVERT(r, list, &arr);
    CHECK(r == PMIX_SUCCESS && arr.type == PMIX_INFO && arr.size == 5);
    if (r == PMIX_SUCCESS && arr.size == 5) {
        pmix_info_t* in = arr.array;
        CHECK(strcmp(in[0].key, "pmix.l.str") == 0 && dh_streq(in[0].value.data.string, "text"));
        CHECK(strcmp(in[1].key, "pmix.l.u32") == 0 && in[1].value.data.uint32 == 99);
        CHECK(strcmp(in[2].key, "pmix.l.flag") == 0 && in[2].value.data.flag);
        CHECK(strcmp(in[3].key, "pmix.l.kept") == 0 &&
              dh_streq(in[3].value.data.string, "inserted"));
        CHECK(strcmp(in[4].key, "pmix.l.copied") == 0 && in[4].value.data.uint32 == 99);
        PMIX_DATA_ARRAY_DESTRUCT(&arr);
    }
    PMIX_INFO_LIST_RELEASE(list);
    /* insert keeps pointers: the caller still owns and releases its info */
    PMIX_INFO_DESTRUCT(&kept);
    CHECK_RC(PMIx_Info_list_convert(NULL, &arr), PMIX_ERR_BAD_PARAM);
}

void dh_run_values(void) {
    dh_deviation("PMIx_Value_load(PMIX_PROC_INFO)", "does not copy the state field");
    dh_deviation("PMIx_Value_compare(PMIX_DATA_ARRAY(PMIX_STRING))",
                 "equal arrays compare as PMIX_VALUE2_GREATER (string pointers are compared)");
    size_t n = 0;
    const dh_type_t* types = dh_types(&n);
    for (size_t i = 0; i < n; ++i) {
        if (!value_storable(&types[i])) continue;
        char title[128];
        snprintf(title, sizeof title, "PMIx_Value_load/xfer/compare %s", types[i].name);
        dh_section(title);
        load_xfer_compare(&types[i]);
    }
    unload();
    compare_orders();
    info_load_xfer();
    info_list();
}
