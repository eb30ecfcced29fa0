#!/usr/bin/env bash
# real_programs_load.sh LIBDIR
#
# Loads real, unmodified consumers of libpmix.so.2 against the library in LIBDIR (ours) and
# proves that LIBDIR's copy is the one they got:
#   1. Debian's python3-pmix:      /usr/bin/python3 -c "import pmix"
#   2. Open MPI's ext3x component: dlopen(RTLD_NOW) with LD_BIND_NOW=1, so every PMIx symbol it
#                                  imports must resolve at load time
#   3. ompi_info:                  lists the ext3x pmix component while our library is loaded
#                                  (also with LD_BIND_NOW=1: ompi_info opens components lazily,
#                                  so without it a library missing symbols would still pass)
# LD_LIBRARY_PATH=LIBDIR does the redirection: it is searched before ext3x's RUNPATH
# (/usr/lib/x86_64-linux-gnu/openmpi/lib) and before the ld.so cache (Debian's copy).
#
# Optional environment: PYTHON (default /usr/bin/python3, the interpreter python3-pmix is built
# for), PMIX_ABI_PRELOAD (prepended to LD_PRELOAD, e.g. libasan.so for sanitizer builds).
# Prints one PASS/FAIL line per check and "N passed, M failed"; exit status 1 on any failure.

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 LIBDIR   (the directory holding libpmix.so.2)" >&2
    exit 2
fi
LIBDIR=$(cd "$1" && pwd -P)
LIB="$LIBDIR/libpmix.so.2"
PYTHON=${PYTHON:-/usr/bin/python3}
OMPI_COMPONENTS=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
EXT3X="$OMPI_COMPONENTS/mca_pmix_ext3x.so"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -n 20; }

if [ ! -e "$LIB" ]; then
    echo "FAIL $LIB does not exist"
    echo "0 passed, 1 failed"
    exit 1
fi
LIB_REAL=$(readlink -f "$LIB")
echo "library under test: $LIB -> $LIB_REAL"

run_env() {
    env LD_LIBRARY_PATH="$LIBDIR" LD_PRELOAD="${PMIX_ABI_PRELOAD:+$PMIX_ABI_PRELOAD }${LD_PRELOAD:-}" \
        "$@"
}

# A python snippet run after loading something: every libpmix mapped into the process must
# be our file, and there must be one.
MAPS_CHECK='
import os, sys
want = os.path.realpath(sys.argv[1])
seen = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libpmix.so" in l})
print("libpmix mapped:", seen)
sys.exit(0 if seen and all(os.path.realpath(p) == want for p in seen) else 3)
'

# --- 1. python3-pmix ------------------------------------------------------------------------
if [ ! -x "$PYTHON" ] || ! "$PYTHON" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("pmix") is None)' 2>/dev/null; then
    fail "python3-pmix is not importable by $PYTHON (is the Debian package installed?)"
else
    if run_env timeout 60 "$PYTHON" -W ignore -c "import pmix
$MAPS_CHECK" "$LIB" >"$TMP/py.out" 2>&1; then
        pass "python3 -c 'import pmix' loads $LIB_REAL ($(grep -o "libpmix mapped.*" "$TMP/py.out"))"
    else
        fail "python3 -c 'import pmix' with LD_LIBRARY_PATH=$LIBDIR" "$TMP/py.out"
    fi
fi

# --- 2. Open MPI's ext3x component, every symbol bound at dlopen time ------------------------
if [ ! -e "$EXT3X" ]; then
    EXT3X=$(find /usr/lib -name mca_pmix_ext3x.so 2>/dev/null | head -n 1)
fi
if [ -z "$EXT3X" ] || [ ! -e "$EXT3X" ]; then
    fail "mca_pmix_ext3x.so not found (is openmpi-bin installed?)"
else
    echo "ext3x: $EXT3X; $(readelf -d "$EXT3X" | grep -E 'RUNPATH|RPATH' | sed 's/.*(\(R[A-Z]*PATH\))/\1/' | tr -s ' ')"
    if run_env LD_BIND_NOW=1 timeout 60 "$PYTHON" -c "
import ctypes, os, sys
ctypes.CDLL(sys.argv[2], mode=os.RTLD_NOW)
print('dlopen(RTLD_NOW) ok')
$MAPS_CHECK" "$LIB" "$EXT3X" >"$TMP/ext3x.out" 2>&1; then
        pass "dlopen($EXT3X, RTLD_NOW) with LD_BIND_NOW=1 resolves every import against $LIB_REAL"
    else
        fail "dlopen($EXT3X, RTLD_NOW) against $LIBDIR" "$TMP/ext3x.out"
    fi
fi

# --- 3. ompi_info lists the ext3x component with our library loaded ---------------------------
if ! command -v ompi_info >/dev/null 2>&1; then
    fail "ompi_info not found (is openmpi-bin installed?)"
else
    run_env LD_BIND_NOW=1 LD_DEBUG=files OMPI_MCA_mca_base_component_show_load_errors=1 \
        timeout 60 ompi_info --parsable >"$TMP/ompi.out" 2>"$TMP/ompi.err"
    rc=$?
    inits=$(grep -o 'calling init: .*libpmix\.so[^ ]*' "$TMP/ompi.err" | sed 's/calling init: //' | sort -u)
    ours_only=1
    [ -z "$inits" ] && ours_only=0
    for p in $inits; do
        [ "$(readlink -f "$p")" = "$LIB_REAL" ] || ours_only=0
    done
    if [ $rc -eq 0 ] && grep -q '^mca:pmix:ext3x:' "$TMP/ompi.out" && [ $ours_only -eq 1 ]; then
        pass "ompi_info lists 'MCA pmix: ext3x' with $(echo $inits) loaded"
    else
        echo "ompi_info exit $rc; libpmix initialised: ${inits:-none}" >>"$TMP/ompi.out"
        grep -v '^ *[0-9]*:' "$TMP/ompi.err" >>"$TMP/ompi.out"
        grep -i -E 'pmix|ext3x' "$TMP/ompi.out" >"$TMP/ompi.short"
        fail "ompi_info does not list ext3x with only $LIB_REAL loaded" "$TMP/ompi.short"
    fi
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
