#!/usr/bin/env bash
# PMIx_Compute_distances, PMIx_Allocation_request and PMIx_Fabric_* from a client of pmixrun
# (resources_client.c).
#   resources.sh BINDIR ours    our library: the answers checked, then the bad-input run
#   resources.sh BINDIR both    also OpenPMIx 4.2.2 (pmixrun-openpmix, the same client source):
#                               the two outputs must agree line by line, except two deliberate
#                               differences, normalised below:
#   - distances of block devices only: OpenPMIx 4.2.2 reports none and then fails its fallback
#     request to the server, PMIX_ERROR; ours PMIX_ERR_NOT_FOUND (no device of that type).
#   - PMIx_Fabric_register with neither a fabric plugin nor a host fabric upcall: OpenPMIx 4.2.2
#     answers PMIX_SUCCESS with no information at all; ours PMIX_ERR_NOT_SUPPORTED.
# The allocation answers come from pmixrun's own allocate upcall (launcher/alloc.cpp), built into
# both launchers, so they show that the request and the answer travel intact through each library.
set -u
bin=$1 mode=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/resources.XXXXXX")
tag="resources.$$.$RANDOM"
cleanup() {
  for p in $(grep -lsa "PMIXRUN_TEST_TAG=$tag" /proc/[0-9]*/environ | cut -d/ -f3); do
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() {  # run NAME PMIXRUN PROGRAM [ARGS...]
  local asan=${ASAN_OPTIONS:-}
  # OpenPMIx 4.2.2 leaks at exit (LeakSanitizer in the ASan build would fail its run): not ours.
  [ "$1" = openpmix ] && asan="${asan:+$asan:}detect_leaks=0"
  env PMIXRUN_TEST_TAG="$tag" ASAN_OPTIONS="$asan" \
    timeout -s KILL 120 "$2" --timeout 100 -n 1 "${@:3}" >"$work/$1.out" 2>"$work/$1.err"
  local rc=$?
  echo "--- $1: exit $rc"
  cat "$work/$1.out" "$work/$1.err"
  [ "$rc" -eq 0 ] || fail "$1 exited $rc"
}
have() { grep -qF -- "$1" "$work/ours.out" || fail "ours lacks: $1"; }

run ours "$bin/pmixrun" "$bin/resources_client"
host=$(hostname)
for want in "alloc new 1 node 1 cpu: SUCCESS" "Value: pmixrun-alloc-1 |" "Value: $host |" \
  "pmix.alloc.nnodes= PMIX_VALUE:  Data type: PMIX_UINT64	Value: 1" "Value: req-1" \
  "alloc new 1000 nodes: OUT-OF-RESOURCE" "alloc new 1000000 cpus: OUT-OF-RESOURCE" \
  "alloc new unknown node: OUT-OF-RESOURCE" "alloc new own node by name: SUCCESS" \
  "alloc extend by 1 node: OUT-OF-RESOURCE" "alloc extend time: NOT-SUPPORTED" \
  "alloc extend job by 1 node: OUT-OF-RESOURCE" "alloc release: SUCCESS" \
  "alloc release again: NOT-FOUND" "alloc release the job: NOT-SUPPORTED" \
  "alloc reacquire: NOT-SUPPORTED" "alloc_nb new 1 node: SUCCESS 3 infos, nodes 1" \
  "fabric register: NOT-SUPPORTED ninfo=0" "fabric update: NOT-SUPPORTED" \
  "fabric deregister: SUCCESS" "distances block pu0: NOT-FOUND n=0" \
  "distances_nb own binding: SUCCESS n=" "distances first device by id: SUCCESS n=1"; do
  have "$want"
done
# Every network device hwloc's own lstopo lists is reported, at a distance > 0, min = max.
if command -v lstopo-no-graphics >/dev/null; then
  nets=$(lstopo-no-graphics -v --whole-io 2>/dev/null | sed -nE 's/.*Network L#[0-9]+.*"([^"]+)".*/\1/p')
  for dev in $nets; do
    line=$(grep -F "distances network all: $dev " "$work/ours.out")
    [ -n "$line" ] || fail "no distance for network device $dev"
    echo "$line" | grep -qE "min=([1-9][0-9]*) max=\1\$" || fail "odd distance line: $line"
  done
  echo "network devices per lstopo: ${nets:-none}"
fi
run ours-errors "$bin/pmixrun" "$bin/resources_client" --errors
grep -c '^\[0\] error ' "$work/ours-errors.out" | grep -qx 17 || fail "expected 17 bad-input checks"

if [ "$mode" = both ]; then
  if [ ! -x "$bin/pmixrun-openpmix" ] || [ ! -x "$bin/resources_client-openpmix" ]; then
    echo "SKIP: OpenPMIx 4.2.2 variants not built"
    exit 77
  fi
  run openpmix "$bin/pmixrun-openpmix" "$bin/resources_client-openpmix"
  sed -E -e 's/^(\[0\] distances block pu0): ERROR /\1: NOT-FOUND /' \
    -e 's/^(\[0\] fabric register): SUCCESS /\1: NOT-SUPPORTED /' \
    "$work/openpmix.out" >"$work/openpmix.norm"
  if ! diff "$work/openpmix.norm" "$work/ours.out" >"$work/diff"; then
    fail "the answers differ (< OpenPMIx 4.2.2, > ours):"
    cat "$work/diff"
  fi
fi
[ "$fails" -eq 0 ] && echo PASS
exit 0
