/*
 * compare_with_debian.c - prints what a libpmix answers for every pretty-printer input we care
 * about, one "function<TAB>input<TAB>output" line each, so two libraries can be diffed.
 *
 * Built twice from this one file, always against Debian's OpenPMIx 4.2.2 headers:
 *   - linked to Debian's libpmix.so.2 with PMIX_PROBE_DEBIAN defined: the reference;
 *   - linked to our libpmix.so.2: the candidate.
 * The CTest "text.compare_with_debian" runs both and diffs the outputs (PMIx_Get_version lines are
 * left out of the diff: that string identifies the implementation on purpose). The reference output
 * is also committed as debian_strings.tsv, which test_text checks our C++ functions against.
 *
 * Usage: compare_with_debian [--dictionary] [attribute-list.tsv ...]
 *   attribute lists are name<TAB>key... lines, '#' starts a comment line (attributes.cmake and
 *   --dictionary write such lists); every name and key
 *   is looked up both ways, in original and in swapped case, plus a few unknown inputs.
 *   --dictionary (reference build only) prints OpenPMIx's internal dictionary instead:
 *   name<TAB>key<TAB>type number<TAB>type name, in OpenPMIx's order.
 *
 * Output conventions: "=input" means the function returned its argument pointer itself.
 */
#define _GNU_SOURCE 1 /* Debian's pmix_common.h calls strdup, setenv, strncasecmp */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#ifdef PMIX_PROBE_DEBIAN
#include <pmix_tool.h>
#endif

static void print_int(const char* fn, long long in, const char* out) {
    printf("%s\t%lld\t%s\n", fn, in, out);
}

static void print_hex(const char* fn, unsigned long long in, const char* out) {
    printf("%s\t0x%llx\t%s\n", fn, in, out);
}

static void dump_status(void) {
    static const long long extra[] = {INT_MIN, INT_MIN + 1, -100000, -65536, 100000, INT_MAX};
    for (long long s = -1400; s <= 10; ++s) {
        print_int("PMIx_Error_string", s, PMIx_Error_string((pmix_status_t)s));
    }
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); ++i) {
        print_int("PMIx_Error_string", extra[i], PMIx_Error_string((pmix_status_t)extra[i]));
    }
}

static void dump_data_types(void) {
    static const unsigned extra[] = {255, 256, 1000, 0x7fff, 0xffff};
    for (unsigned t = 0; t < 128; ++t) {
        print_int("PMIx_Data_type_string", t, PMIx_Data_type_string((pmix_data_type_t)t));
    }
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); ++i) {
        print_int("PMIx_Data_type_string", extra[i],
                  PMIx_Data_type_string((pmix_data_type_t)extra[i]));
    }
}

/* Every uint8_t-valued enum: the whole domain. */
static void dump_small_enums(void) {
    for (int v = 0; v < 256; ++v) {
        const uint8_t u = (uint8_t)v;
        print_int("PMIx_Proc_state_string", v, PMIx_Proc_state_string(u));
        print_int("PMIx_Job_state_string", v, PMIx_Job_state_string(u));
        print_int("PMIx_Scope_string", v, PMIx_Scope_string(u));
        print_int("PMIx_Persistence_string", v, PMIx_Persistence_string(u));
        print_int("PMIx_Data_range_string", v, PMIx_Data_range_string(u));
        print_int("PMIx_Alloc_directive_string", v, PMIx_Alloc_directive_string(u));
        print_int("PMIx_Link_state_string", v, PMIx_Link_state_string(u));
    }
    for (int v = -3; v <= 12; ++v) {
        print_int("PMIx_Value_comparison_string", v,
                  PMIx_Value_comparison_string((pmix_value_cmp_t)v));
    }
}

static void dump_flags(void) {
    static const unsigned long long dir_extra[] = {0x100,      0x10000,    0x10001,
                                                   0x80000000, 0xffff0000, 0xffffffff};
    static const unsigned long long iof_extra[] = {0xff, 0x100, 0x0ff0, 0x8000, 0xffff};
    for (unsigned long long d = 0; d < 32 + 6; ++d) {
        const unsigned long long v = d < 32 ? d : dir_extra[d - 32];
        char* s = PMIx_Info_directives_string((pmix_info_directives_t)v);
        print_hex("PMIx_Info_directives_string", v, s);
        free(s); /* allocated: the caller owns it */
    }
    for (unsigned long long c = 0; c < 32 + 5; ++c) {
        const unsigned long long v = c < 32 ? c : iof_extra[c - 32];
        print_hex("PMIx_IOF_channel_string", v, PMIx_IOF_channel_string((pmix_iof_channel_t)v));
    }
    print_hex("PMIx_Device_type_string", 0, PMIx_Device_type_string(0));
    for (int bit = 0; bit < 64; ++bit) {
        const unsigned long long v = 1ULL << bit;
        print_hex("PMIx_Device_type_string", v, PMIx_Device_type_string(v));
    }
    print_hex("PMIx_Device_type_string", 0x3, PMIx_Device_type_string(0x3));
    print_hex("PMIx_Device_type_string", 0x6, PMIx_Device_type_string(0x6));
    print_hex("PMIx_Device_type_string", ~0ULL, PMIx_Device_type_string(~0ULL));
}

static void print_lookup(const char* fn, const char* in, const char* out) {
    printf("%s\t%s\t%s\n", fn, in, out == in ? "=input" : (out ? out : "(null)"));
}

static void swap_case(const char* in, char* out, size_t n) {
    size_t i = 0;
    for (; in[i] != '\0' && i + 1 < n; ++i) {
        const unsigned char c = (unsigned char)in[i];
        out[i] = (char)(islower(c) ? toupper(c) : tolower(c));
    }
    out[i] = '\0';
}

static void lookup_both_ways(const char* name, const char* key) {
    char swapped[512];
    print_lookup("PMIx_Get_attribute_string", name, PMIx_Get_attribute_string(name));
    swap_case(name, swapped, sizeof swapped);
    print_lookup("PMIx_Get_attribute_string", swapped, PMIx_Get_attribute_string(swapped));
    print_lookup("PMIx_Get_attribute_name", key, PMIx_Get_attribute_name(key));
    swap_case(key, swapped, sizeof swapped);
    print_lookup("PMIx_Get_attribute_name", swapped, PMIx_Get_attribute_name(swapped));
}

/* Reads name<TAB>key lines; skips names seen in an earlier file. */
static void dump_attributes(int nfiles, char** files) {
    static char seen[4096][128];
    size_t nseen = 0;
    char line[2048];
    for (int f = 0; f < nfiles; ++f) {
        FILE* fp = fopen(files[f], "r");
        if (NULL == fp) {
            fprintf(stderr, "cannot open %s\n", files[f]);
            exit(2);
        }
        while (fgets(line, sizeof line, fp)) {
            char* name = strtok(line, "\t\n");
            char* key = strtok(NULL, "\t\n");
            int dup = 0;
            if ('#' == line[0]) {
                continue; /* comment */
            }
            if (NULL == name || NULL == key || strlen(name) >= sizeof seen[0]) {
                continue;
            }
            for (size_t i = 0; i < nseen && !dup; ++i) {
                dup = 0 == strcmp(seen[i], name);
            }
            if (dup || nseen == sizeof seen / sizeof seen[0]) {
                continue;
            }
            strcpy(seen[nseen++], name);
            lookup_both_ways(name, key);
        }
        fclose(fp);
    }
    lookup_both_ways("PMIX_NOT_AN_ATTRIBUTE", "pmix.not.an.attribute");
    lookup_both_ways("", "");
    lookup_both_ways("pmix.jobid", "PMIX_JOBID"); /* each in the other's slot */
}

#ifdef PMIX_PROBE_DEBIAN
/* OpenPMIx's internal dictionary (exported, not declared in any header). */
typedef struct {
    uint32_t index;
    char* name;
    char* string;
    pmix_data_type_t type;
    char** description;
} probe_regattr_t;
extern const probe_regattr_t pmix_dictionary[];

static void dump_dictionary(void) {
    for (size_t n = 0; pmix_dictionary[n].name[0] != '\0'; ++n) {
        printf("%s\t%s\t%u\t%s\n", pmix_dictionary[n].name, pmix_dictionary[n].string,
               (unsigned)pmix_dictionary[n].type, PMIx_Data_type_string(pmix_dictionary[n].type));
    }
}

/* OpenPMIx names data types from its registry only once initialised (before that, a smaller
 * built-in list and "NOT INITIALIZED"). Initialise a tool that connects to nothing. */
static void init_reference(void) {
    pmix_info_t info;
    pmix_proc_t me;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != PMIx_tool_init(&me, &info, 1)) {
        fprintf(stderr, "PMIx_tool_init failed\n");
        exit(2);
    }
}
#endif

int main(int argc, char** argv) {
    int first = 1;
    if (argc > 1 && 0 == strcmp(argv[1], "--dictionary")) {
#ifdef PMIX_PROBE_DEBIAN
        init_reference();
        dump_dictionary();
        PMIx_tool_finalize();
        return 0;
#else
        fprintf(stderr, "--dictionary needs the reference build\n");
        return 2;
#endif
    }
#ifdef PMIX_PROBE_DEBIAN
    init_reference();
#endif
    printf("PMIx_Get_version\t-\t%s\n", PMIx_Get_version());
    dump_status();
    dump_data_types();
    dump_small_enums();
    dump_flags();
    dump_attributes(argc - first, argv + first);
#ifdef PMIX_PROBE_DEBIAN
    PMIx_tool_finalize();
#endif
    return 0;
}
