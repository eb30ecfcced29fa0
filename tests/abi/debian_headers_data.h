/*
 * Shared harness for debian_headers_data: a C program compiled against the *reference*
 * (Debian OpenPMIx 4.2.2) headers only, run once against the reference library and once
 * against ours. Because the macros (PMIX_*_CREATE/LOAD/FREE ...) expand here, inside code
 * compiled from the reference headers, a pass against our library shows that binaries built
 * for OpenPMIx keep working when our library is dropped in.
 */
#ifndef DEBIAN_HEADERS_DATA_H
#define DEBIAN_HEADERS_DATA_H

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include <stdbool.h>
#include <stddef.h>

/* Record one check. `what` is the condition text, the format adds context on failure. */
void dh_check(bool ok, const char* file, int line, const char* what, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define CHECK(cond) dh_check((cond), __FILE__, __LINE__, #cond, " ")
#define CHECKF(cond, ...) dh_check((cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

/* Check a status against the expected one, naming both on failure. */
#define CHECK_RC(expr, want)                                                                      \
    do {                                                                                          \
        pmix_status_t dh_rc_ = (expr);                                                            \
        dh_check(dh_rc_ == (want), __FILE__, __LINE__, #expr " == " #want, "got %d (%s)", dh_rc_, \
                 dh_status_name(dh_rc_));                                                         \
    } while (0)

/* Check that a call fails (any status other than PMIX_SUCCESS). */
#define CHECK_FAILS(expr)                                                                   \
    do {                                                                                    \
        pmix_status_t dh_rc_ = (expr);                                                      \
        dh_check(dh_rc_ != PMIX_SUCCESS, __FILE__, __LINE__, #expr " fails", "got %d (%s)", \
                 dh_rc_, dh_status_name(dh_rc_));                                           \
    } while (0)

/* Start a named group of checks (printed, so a crash shows where it happened). */
void dh_section(const char* name);

/* Record a behaviour of the reference library that this program does not test, and why. */
void dh_deviation(const char* what, const char* reason);

/* Status name without trusting the library under test to print it. */
const char* dh_status_name(pmix_status_t rc);

/* NULL-safe string equality. */
bool dh_streq(const char* a, const char* b);
/* NULL-safe argv (NULL-terminated) equality. */
bool dh_argv_eq(char** a, char** b);

/* Value equality for the value types the samples use (own code, not the library's). */
bool dh_value_eq(const pmix_value_t* a, const pmix_value_t* b);
bool dh_info_eq(const pmix_info_t* a, const pmix_info_t* b);
bool dh_proc_eq(const pmix_proc_t* a, const pmix_proc_t* b);
bool dh_bo_eq(const pmix_byte_object_t* a, const pmix_byte_object_t* b);

/* The test groups, one per source file. */
void dh_run_macros(void);  /* debian_headers_data_macros.c */
void dh_run_values(void);  /* debian_headers_data_values.c */
void dh_run_pack(void);    /* debian_headers_data_pack.c   */
void dh_run_buffers(void); /* debian_headers_data_buffers.c */
void dh_run_text(void);    /* debian_headers_data_text.c   */

#endif
