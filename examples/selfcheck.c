/*
 * pmix-selfcheck: a smoke test of an installed libpmix through its public C API only.
 *
 * Prints the library's version string, then packs, unpacks and copies a representative value of
 * each common data type, checking that what comes back equals what went in. One line per check,
 * then "N/N pack/unpack checks passed". Exit status 0 when every check passed, 1 otherwise.
 *
 * It needs no server and no PMIx_Init: the data functions work in any process. Being plain C
 * against the public headers, it doubles as an example of the buffer API.
 */
#include <pmix.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A check returns NULL on success or a static description of what went wrong. */
typedef const char* (*check_fn)(void);

#define EXPECT(cond, why) \
    do {                  \
        if (!(cond)) {    \
            return (why); \
        }                 \
    } while (0)

/* Pack `count` items of `type` from `src`, then unpack them into `dst`. */
static const char* round_trip(void* src, void* dst, int32_t count, pmix_data_type_t type) {
    pmix_data_buffer_t buf;
    int32_t n = count;
    pmix_status_t rc;

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    rc = PMIx_Data_pack(NULL, &buf, src, count, type);
    if (PMIX_SUCCESS != rc) {
        PMIX_DATA_BUFFER_DESTRUCT(&buf);
        return "PMIx_Data_pack failed";
    }
    rc = PMIx_Data_unpack(NULL, &buf, dst, &n, type);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    EXPECT(PMIX_SUCCESS == rc, "PMIx_Data_unpack failed");
    EXPECT(n == count, "PMIx_Data_unpack returned the wrong count");
    return NULL;
}

static const char* check_string(void) {
    char* in[2] = {"hello, pmix", ""};
    char* out[2] = {NULL, NULL};
    const char* why = round_trip(in, out, 2, PMIX_STRING);
    if (NULL == why && (NULL == out[0] || NULL == out[1] || 0 != strcmp(in[0], out[0]) ||
                        0 != strcmp(in[1], out[1]))) {
        why = "strings differ";
    }
    free(out[0]);
    free(out[1]);
    return why;
}

static const char* check_integers(void) {
    int32_t in32[3] = {-7, 0, INT32_MAX};
    int32_t out32[3] = {0, 0, 0};
    uint64_t in64 = UINT64_MAX - 1, out64 = 0;
    int16_t in16 = -12345, out16 = 0;
    const char* why;

    if (NULL != (why = round_trip(in32, out32, 3, PMIX_INT32))) {
        return why;
    }
    EXPECT(0 == memcmp(in32, out32, sizeof(in32)), "int32 values differ");
    if (NULL != (why = round_trip(&in64, &out64, 1, PMIX_UINT64))) {
        return why;
    }
    EXPECT(in64 == out64, "uint64 value differs");
    if (NULL != (why = round_trip(&in16, &out16, 1, PMIX_INT16))) {
        return why;
    }
    EXPECT(in16 == out16, "int16 value differs");
    return NULL;
}

static const char* check_bool_double(void) {
    bool inb[2] = {true, false}, outb[2] = {false, true};
    double ind = -1234.5625, outd = 0.0;
    const char* why;

    if (NULL != (why = round_trip(inb, outb, 2, PMIX_BOOL))) {
        return why;
    }
    EXPECT(inb[0] == outb[0] && inb[1] == outb[1], "bool values differ");
    if (NULL != (why = round_trip(&ind, &outd, 1, PMIX_DOUBLE))) {
        return why;
    }
    EXPECT(ind == outd, "double value differs");
    return NULL;
}

static const char* check_proc(void) {
    pmix_proc_t in[2], out[2];
    const char* why;

    memset(out, 0, sizeof(out));
    PMIX_LOAD_PROCID(&in[0], "selfcheck-job", 3);
    PMIX_LOAD_PROCID(&in[1], "other", PMIX_RANK_WILDCARD);
    if (NULL != (why = round_trip(in, out, 2, PMIX_PROC))) {
        return why;
    }
    EXPECT(PMIX_CHECK_PROCID(&in[0], &out[0]) && in[0].rank == out[0].rank, "proc 0 differs");
    EXPECT(0 == strcmp(in[1].nspace, out[1].nspace) && PMIX_RANK_WILDCARD == out[1].rank,
           "proc 1 differs");
    return NULL;
}

static const char* check_byte_object(void) {
    char payload[] = {'\x00', '\x01', '\xfe', 'p', 'm', 'i', 'x', '\x00'};
    pmix_byte_object_t in, out;
    const char* why;

    in.bytes = payload;
    in.size = sizeof(payload);
    memset(&out, 0, sizeof(out));
    if (NULL != (why = round_trip(&in, &out, 1, PMIX_BYTE_OBJECT))) {
        return why;
    }
    if (out.size != in.size || NULL == out.bytes || 0 != memcmp(in.bytes, out.bytes, in.size)) {
        why = "byte objects differ";
    }
    free(out.bytes);
    return why;
}

static const char* check_value(void) {
    pmix_value_t in, out;
    const char* why;

    PMIX_VALUE_CONSTRUCT(&in);
    PMIX_VALUE_CONSTRUCT(&out);
    if (PMIX_SUCCESS != PMIx_Value_load(&in, "a value", PMIX_STRING)) {
        return "PMIx_Value_load failed";
    }
    why = round_trip(&in, &out, 1, PMIX_VALUE);
    if (NULL == why && PMIX_EQUAL != PMIx_Value_compare(&in, &out)) {
        why = "values differ";
    }
    PMIX_VALUE_DESTRUCT(&in);
    PMIX_VALUE_DESTRUCT(&out);
    return why;
}

static const char* check_info_array(void) {
    pmix_info_t *in, *out;
    uint32_t size = 64;
    bool yes = true;
    const char* why;
    size_t i;

    PMIX_INFO_CREATE(in, 3);
    PMIX_INFO_CREATE(out, 3);
    PMIX_INFO_LOAD(&in[0], PMIX_HOSTNAME, "node042", PMIX_STRING);
    PMIX_INFO_LOAD(&in[1], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&in[2], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    why = round_trip(in, out, 3, PMIX_INFO);
    for (i = 0; NULL == why && i < 3; i++) {
        if (!PMIX_CHECK_KEY(&out[i], in[i].key) ||
            PMIX_EQUAL != PMIx_Value_compare(&in[i].value, &out[i].value)) {
            why = "info entries differ";
        }
    }
    PMIX_INFO_FREE(in, 3);
    PMIX_INFO_FREE(out, 3);
    return why;
}

static const char* check_data_array(void) {
    pmix_data_array_t in, out;
    uint32_t* vals;
    const char* why;
    size_t i;

    PMIX_DATA_ARRAY_CONSTRUCT(&in, 5, PMIX_UINT32);
    memset(&out, 0, sizeof(out));
    vals = (uint32_t*)in.array;
    for (i = 0; i < 5; i++) {
        vals[i] = (uint32_t)(i * i + 1);
    }
    why = round_trip(&in, &out, 1, PMIX_DATA_ARRAY);
    if (NULL == why && (out.type != PMIX_UINT32 || out.size != 5 || NULL == out.array ||
                        0 != memcmp(in.array, out.array, 5 * sizeof(uint32_t)))) {
        why = "data arrays differ";
    }
    PMIX_DATA_ARRAY_DESTRUCT(&in);
    PMIX_DATA_ARRAY_DESTRUCT(&out);
    return why;
}

static const char* check_mixed_sequence(void) {
    pmix_data_buffer_t buf;
    int32_t n, num = 42, gotnum = 0;
    char *str = "between", *gotstr = NULL;
    pmix_proc_t proc, gotproc;
    const char* why = NULL;

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    PMIX_LOAD_PROCID(&proc, "seq", 9);
    if (PMIX_SUCCESS != PMIx_Data_pack(NULL, &buf, &num, 1, PMIX_INT32) ||
        PMIX_SUCCESS != PMIx_Data_pack(NULL, &buf, &str, 1, PMIX_STRING) ||
        PMIX_SUCCESS != PMIx_Data_pack(NULL, &buf, &proc, 1, PMIX_PROC)) {
        why = "PMIx_Data_pack failed";
    }
    n = 1;
    if (NULL == why && (PMIX_SUCCESS != PMIx_Data_unpack(NULL, &buf, &gotnum, &n, PMIX_INT32) ||
                        PMIX_SUCCESS != PMIx_Data_unpack(NULL, &buf, &gotstr, &n, PMIX_STRING) ||
                        PMIX_SUCCESS != PMIx_Data_unpack(NULL, &buf, &gotproc, &n, PMIX_PROC))) {
        why = "PMIx_Data_unpack failed";
    }
    if (NULL == why && (gotnum != num || NULL == gotstr || 0 != strcmp(gotstr, str) ||
                        !PMIX_CHECK_PROCID(&proc, &gotproc))) {
        why = "sequence differs";
    }
    free(gotstr);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    return why;
}

static const char* check_read_past_end(void) {
    pmix_data_buffer_t buf;
    int32_t n = 1, num = 7, got[2];
    pmix_status_t rc;

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    if (PMIX_SUCCESS != PMIx_Data_pack(NULL, &buf, &num, 1, PMIX_INT32)) {
        PMIX_DATA_BUFFER_DESTRUCT(&buf);
        return "PMIx_Data_pack failed";
    }
    (void)PMIx_Data_unpack(NULL, &buf, &got[0], &n, PMIX_INT32);
    n = 1;
    rc = PMIx_Data_unpack(NULL, &buf, &got[1], &n, PMIX_INT32);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    EXPECT(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER == rc,
           "reading past the end did not report PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER");
    return NULL;
}

static const char* check_payload_transfer(void) {
    pmix_data_buffer_t src, dst;
    pmix_byte_object_t bo;
    uint64_t val = 0x0123456789abcdefULL, got = 0;
    int32_t n = 1;
    const char* why = NULL;

    PMIX_DATA_BUFFER_CONSTRUCT(&src);
    PMIX_DATA_BUFFER_CONSTRUCT(&dst);
    if (PMIX_SUCCESS != PMIx_Data_pack(NULL, &src, &val, 1, PMIX_UINT64) ||
        PMIX_SUCCESS != PMIx_Data_unload(&src, &bo)) {
        why = "pack/unload failed";
    } else if (PMIX_SUCCESS != PMIx_Data_load(&dst, &bo)) {
        free(bo.bytes);
        why = "PMIx_Data_load failed";
    } else if (PMIX_SUCCESS != PMIx_Data_unpack(NULL, &dst, &got, &n, PMIX_UINT64) || got != val) {
        why = "value after unload/load differs";
    }
    PMIX_DATA_BUFFER_DESTRUCT(&src);
    PMIX_DATA_BUFFER_DESTRUCT(&dst);
    return why;
}

static const char* check_copy_proc(void) {
    pmix_proc_t in, *out = NULL;

    PMIX_LOAD_PROCID(&in, "copy-me", 17);
    EXPECT(PMIX_SUCCESS == PMIx_Data_copy((void**)&out, &in, PMIX_PROC), "PMIx_Data_copy failed");
    EXPECT(NULL != out, "PMIx_Data_copy returned NULL");
    if (!PMIX_CHECK_PROCID(&in, out)) {
        free(out);
        return "copied proc differs";
    }
    free(out);
    return NULL;
}

static const char* check_copy_info(void) {
    pmix_info_t in, *out = NULL;
    const char* why = NULL;

    PMIX_INFO_CONSTRUCT(&in);
    PMIX_INFO_LOAD(&in, PMIX_NSPACE, "copied-nspace", PMIX_STRING);
    if (PMIX_SUCCESS != PMIx_Data_copy((void**)&out, &in, PMIX_INFO) || NULL == out) {
        why = "PMIx_Data_copy failed";
    } else if (!PMIX_CHECK_KEY(out, PMIX_NSPACE) ||
               PMIX_EQUAL != PMIx_Value_compare(&in.value, &out->value)) {
        why = "copied info differs";
    }
    PMIX_INFO_DESTRUCT(&in);
    if (NULL != out) {
        PMIX_INFO_FREE(out, 1);
    }
    return why;
}

int main(void) {
    static const struct {
        const char* name;
        check_fn run;
    } checks[] = {
        {"string", check_string},
        {"integers (int16, int32, uint64)", check_integers},
        {"bool and double", check_bool_double},
        {"proc", check_proc},
        {"byte object", check_byte_object},
        {"value", check_value},
        {"info array", check_info_array},
        {"data array", check_data_array},
        {"mixed sequence in one buffer", check_mixed_sequence},
        {"read past the end is an error", check_read_past_end},
        {"payload unload/load", check_payload_transfer},
        {"copy proc", check_copy_proc},
        {"copy info", check_copy_info},
    };
    const size_t total = sizeof(checks) / sizeof(checks[0]);
    size_t passed = 0, i;

    printf("PMIx_Get_version(): %s\n", PMIx_Get_version());
    for (i = 0; i < total; i++) {
        const char* why = checks[i].run();
        if (NULL == why) {
            passed++;
            printf("ok      %s\n", checks[i].name);
        } else {
            printf("FAILED  %s: %s\n", checks[i].name, why);
        }
    }
    printf("%zu/%zu pack/unpack checks passed\n", passed, total);
    return passed == total ? 0 : 1;
}
