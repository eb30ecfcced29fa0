#!/bin/bash
# One Open MPI compatibility case: run_mpi.sh PROGRAM NP OUR_LIBDIR MAPS_PROGRAM [EXPECTED...]
# Runs Debian's `mpirun --allow-run-as-root --oversubscribe -np NP PROGRAM` twice: on Debian's
# OpenPMIx 4.2.2, then with our libpmix.so.2 first on LD_LIBRARY_PATH (exported to every rank
# with -x). Passes when both runs exit with the same status and print the same lines (sorted;
# numbers of 3+ digits, i.e. pids and job ids, masked), when our run really loaded our library
# (MAPS_PROGRAM prints the libpmix each rank mapped), and when neither run leaves a process, a
# file in its TMPDIR or a new /dev/shm entry behind. Each mpirun runs under a kill timeout.
# With EXPECTED patterns (jobs that abort or crash), the output is not compared line by line:
# Open MPI is not deterministic there on either library (some runs print "ORTE_ERROR_LOG: Data
# unpack would read past end of buffer" or "ORTE_ERROR_LOG: Out of resource" from show_help
# instead of the MPI_ABORT banner: 4 of 30 runs on each library, measured here); instead our run must print every EXPECTED pattern (grep -E) and exit as
# OpenPMIx's did.
set -u
PROG=$1 NP=$2 OURLIB=$3 MAPS=$4
shift 4
EXPECTED=("$@")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmix-compat.XXXXXX")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cleanup() {
  pkill -9 -f "$WORK" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# run LIB OUTFILE program...: sets RC; LIB empty = OpenPMIx
run() {
  local lib=$1 out=$2
  shift 2
  local tmp="$WORK/tmp.ompi"
  [ -z "$lib" ] || tmp="$WORK/tmp.ours"
  mkdir -p "$tmp"
  ls /dev/shm | sort >"$WORK/shm.before"
  # Our servers name their segments with this prefix, so only this run's are counted (tests
  # running in parallel make and remove segments of their own at any time).
  env TMPDIR="$tmp" LD_LIBRARY_PATH="$lib" PMIX_CPP_GDS_PREFIX="/pmixcompat-$$" timeout -s KILL 120 \
    mpirun --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH -np "$NP" "$@" >"$out" 2>&1
  RC=$?
  ls /dev/shm | sort >"$WORK/shm.after"
  local extra
  extra=$(comm -13 "$WORK/shm.before" "$WORK/shm.after" | grep "^pmixcompat-$$" || true)
  [ -z "$extra" ] || fail "run with '${lib:-OpenPMIx}' left /dev/shm entries: $extra"
  [ -z "$(ls -A "$tmp")" ] || fail "run with '${lib:-OpenPMIx}' left files: $(find "$tmp" | head -5)"
  echo "--- mpirun -np $NP $* (${lib:-OpenPMIx}) -> $RC"
  cat "$out"
}

normalize() { sed -E 's/[0-9]{3,}/N/g' "$1" | sort; }

run "" "$WORK/ref" "$PROG"
ref_rc=$RC
run "$OURLIB" "$WORK/ours" "$PROG"
ours_rc=$RC
[ "$ours_rc" -eq "$ref_rc" ] || fail "exit status $ours_rc on our library, $ref_rc on OpenPMIx"
[ "$ref_rc" -ne 137 ] || fail "the OpenPMIx run was killed by the timeout"
if [ ${#EXPECTED[@]} -eq 0 ]; then
  if ! diff <(normalize "$WORK/ref") <(normalize "$WORK/ours") >"$WORK/diff"; then
    fail "output differs (< OpenPMIx, > ours):"
    cat "$WORK/diff"
  fi
else
  for pattern in "${EXPECTED[@]}"; do
    grep -qE -- "$pattern" "$WORK/ours" || fail "our run did not print /$pattern/"
    grep -qE -- "$pattern" "$WORK/ref" || echo "note: this OpenPMIx run did not print /$pattern/"
  done
fi
run "$OURLIB" "$WORK/maps" "$MAPS"
loaded=$(grep -c "^$OURLIB/libpmix.so" "$WORK/maps")
[ "$loaded" -eq "$NP" ] || fail "$loaded of $NP ranks mapped $OURLIB/libpmix.so"
[ "$fails" -eq 0 ] && echo "PASS" || exit 1
