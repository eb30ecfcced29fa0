#!/bin/bash
# One Open MPI compatibility case: run_mpi.sh [--nodes 2] PROGRAM NP OUR_LIBDIR MAPS_PROGRAM [EXPECTED...]
# Runs Debian's `mpirun --allow-run-as-root --oversubscribe -np NP PROGRAM` twice: on Debian's
# OpenPMIx 4.2.2, then with our libpmix.so.2 first on LD_LIBRARY_PATH (exported to every rank
# with -x). Passes when both runs exit with the same status and print the same lines (sorted;
# numbers of 3+ digits, i.e. pids and job ids, masked), when our run really loaded our library
# (MAPS_PROGRAM prints the libpmix each rank and its parent, the PMIx server in mpirun or orted,
# mapped), and when neither run leaves a process, a file in its TMPDIR or a new /dev/shm entry
# behind. Each mpirun runs under a kill timeout.
# With EXPECTED patterns (jobs that abort or crash), the output is not compared line by line:
# Open MPI is not deterministic there on either library (some runs print "ORTE_ERROR_LOG: Data
# unpack would read past end of buffer", "... had inadequate space" or "Out of resource" from show_help
# instead of the MPI_ABORT banner: 4 of 30 runs on each library, measured here); instead our run must print every EXPECTED pattern (grep -E) and exit as
# OpenPMIx's did.
# --nodes D: D simulated nodes (network namespaces, scripts/netns.sh). mpirun runs in the first
# with a hostfile of D nodes of 2 slots each, and starts an orted in each other one through a
# plm_rsh_agent that enters that node's namespace (and UTS namespace, for its own host name), as
# ssh would on a cluster. Every orted then hosts our server library, and its ranks our client.
set -u
NODES=1
if [ "${1:-}" = --nodes ]; then
  NODES=$2
  shift 2
fi
PROG=$1 NP=$2 OURLIB=$3 MAPS=$4
shift 4
EXPECTED=("$@")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmix-compat.XXXXXX")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
NETNS="$(cd "$(dirname "$0")" && pwd)/../../scripts/netns.sh"
PREFIX="om$$"
cleanup() {
  pkill -9 -f "$WORK" 2>/dev/null
  [ "$NODES" -eq 1 ] || bash "$NETNS" destroy "$PREFIX"
  rm -rf "$WORK"
}
trap cleanup EXIT
LAUNCH=()     # how mpirun is started: directly, or inside the first simulated node
MPIRUN_ARGS=()
if [ "$NODES" -gt 1 ]; then
  bash "$NETNS" probe "$PREFIX" || exit $?
  bash "$NETNS" create "$PREFIX" "$NODES" || { echo "FAIL: cannot build $NODES simulated nodes"; exit 1; }
  # Node i is 198.18.0.(i+1) in namespace ${PREFIX}n$i, host name node$i.
  cat >"$WORK/rsh-agent" <<AGENT
#!/bin/bash
# plm_rsh_agent: [ssh options] HOST COMMAND...
while [[ \$1 == -* ]]; do shift; done
host=\$1
shift
i=\$(( \${host##*.} - 1 ))
exec ip netns exec "${PREFIX}n\$i" unshare --uts /bin/sh -c "hostname node\$i; \$*"
AGENT
  chmod +x "$WORK/rsh-agent"
  for ((i = 0; i < NODES; i++)); do echo "198.18.0.$((i + 1)) slots=2"; done >"$WORK/hosts"
  LAUNCH=(ip netns exec "${PREFIX}n0" unshare --uts /bin/sh -c 'hostname node0; exec "$@"' mpirun)
  MPIRUN_ARGS=(--hostfile "$WORK/hosts" --mca plm_rsh_agent "$WORK/rsh-agent")
fi

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
    "${LAUNCH[@]}" mpirun "${MPIRUN_ARGS[@]}" --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH \
    -np "$NP" "$@" >"$out" 2>&1
  RC=$?
  # mpirun has returned: no rank and no orted of this run may still be running (compat cases
  # run one at a time, so any such process is this run's).
  # After an abort, mpirun may return while a remote orted is still killing its ranks; they get
  # 10 s to go.
  local left="" i
  for ((i = 0; i < 100; i++)); do
    left=$(pgrep -x "$(basename "$1" | cut -c1-15)"; pgrep -x orted)
    [ -n "$left" ] || break
    sleep 0.1
  done
  [ -z "$left" ] || fail "run with '${lib:-OpenPMIx}' left processes: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"
  [ "$i" -eq 0 ] || echo "note: processes of this run went away $((i * 100)) ms after mpirun returned"
  ls /dev/shm | sort >"$WORK/shm.after"
  local extra
  extra=$(comm -13 "$WORK/shm.before" "$WORK/shm.after" | grep "^pmixcompat-$$" || true)
  [ -z "$extra" ] || fail "run with '${lib:-OpenPMIx}' left /dev/shm entries: $extra"
  [ -z "$(ls -A "$tmp")" ] || fail "run with '${lib:-OpenPMIx}' left files: $(find "$tmp" | head -5)"
  echo "--- mpirun -np $NP $* (${lib:-OpenPMIx}) -> $RC"
  cat "$out"
}

# Open MPI's rsh launcher warns when its setpgid on an orted loses the race with the orted's exec
# ("plm:rsh: Warning: setpgid(...) failed in parent with errno=Permission denied"; seen on either
# library, from mpirun itself, nothing to do with PMIx): not part of the comparison.
normalize() { grep -v 'plm:rsh: Warning: setpgid' "$1" | sed -E 's/[0-9]{3,}/N/g' | sort; }

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
MPIRUN_ARGS+=(--map-by node)  # the library check wants ranks on every node, even for small NP
run "$OURLIB" "$WORK/maps" "$MAPS"
loaded=$(grep -c "^$OURLIB/libpmix.so" "$WORK/maps")
[ "$loaded" -eq "$NP" ] || fail "$loaded of $NP ranks mapped $OURLIB/libpmix.so"
served=$(grep -c "^server $OURLIB/libpmix.so" "$WORK/maps")
[ "$served" -eq "$NP" ] || fail "$served of $NP ranks were started by a server (mpirun/orted) that mapped $OURLIB/libpmix.so"
nodes=$(grep "^node " "$WORK/maps" | sort -u | wc -l)
[ "$nodes" -eq "$NODES" ] || fail "the ranks ran on $nodes node(s), not $NODES"
[ "$fails" -eq 0 ] && echo "PASS" || exit 1
