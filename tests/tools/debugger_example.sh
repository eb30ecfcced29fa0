#!/usr/bin/env bash
# tests/tools/debugger_example.sh PMIXRUN PMIX_DEBUGGER EXAMPLES_DIR CASE - the vendor example
# (examples/debugger.c) against the persistent launcher, as the README's debugging walk-through
# runs it: pmixrun --dvm in a private TMPDIR, then pmix-debugger -n 3 PROGRAM.
#  hello: 3 hellos stopped in PMIx_Init: the proc table lists 3 ranks, one daemon reads its
#         target and the target's 3 local processes, the release lets them finish (3 hello
#         lines); pmix-debugger exits 0
#  abort: 3 "abort" ranks (the last calls PMIx_Abort(3)): pmix-debugger exits with the job's 3
# Both end with the DVM stopped by pmix-dvm --stop: exit 0, nothing left in TMPDIR.
set -u
PMIXRUN=$1 DEBUGGER=$2 EXAMPLES=$3 CASE=$4
BIN=$(dirname "$PMIXRUN")
export TMPDIR=$(mktemp -d /tmp/pmix-dbgex.XXXXXX)
LOGS=$(mktemp -d /tmp/pmix-dbgex-logs.XXXXXX)
unset PMIX_SYSTEM_TMPDIR
DVM_PID=
cleanup() {
  if [[ -n $DVM_PID ]] && kill -0 "$DVM_PID" 2>/dev/null; then
    kill -TERM "$DVM_PID" 2>/dev/null; sleep 1; kill -9 "$DVM_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR" "$LOGS"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  sed 's/^/dvm| /' "$LOGS/dvm.out" "$LOGS/dvm.err" 2>/dev/null | tail -40
  exit 1
}

"$PMIXRUN" --dvm --report-uri "$LOGS/uri" > "$LOGS/dvm.out" 2> "$LOGS/dvm.err" &
DVM_PID=$!
timeout 10 bash -c "until [[ -s '$LOGS/uri' ]]; do sleep 0.05; done" || fail "no DVM in 10 s"

case $CASE in
hello) PROGRAM=("$EXAMPLES/hello" 3) EXPECT=0 ;;
abort) PROGRAM=("$EXAMPLES/abort") EXPECT=3 ;;
*) fail "unknown case $CASE" ;;
esac
timeout 60 "$DEBUGGER" -n 3 "${PROGRAM[@]}" > "$LOGS/dbg.out" 2> "$LOGS/dbg.err"
rc=$?
sed 's/^/debugger| /' "$LOGS/dbg.out" "$LOGS/dbg.err"
[[ $rc == "$EXPECT" ]] || fail "pmix-debugger exited $rc, expected $EXPECT"
out=$LOGS/dbg.out
grep -q "stopped in PMIx_Init" "$out" || fail "no start line"
grep -q "^pmix-debugger: proc table of .* (3 processes)" "$out" || fail "no proc table of 3"
[[ $(grep -c "^  rank [0-2]  host .* pid [0-9]" "$out") == 3 ]] || fail "not 3 table rows"
grep -q "^pmix-debugger: daemons started as " "$out" || fail "no daemons"
grep -q "^pmix-debugger: job .* ended, exit code $EXPECT" "$out" || fail "no JOB_END line"
# The daemon's and the ranks' output reaches the DVM's stdout.
timeout 20 "$BIN/pmix-dvm" --stop --pid "$DVM_PID" > "$LOGS/stop.out" 2>&1 || fail "stop failed"
wait "$DVM_PID"
drc=$?
DVM_PID=
[[ $drc == 0 ]] || fail "the DVM exited $drc"
dvm_out=$LOGS/dvm.out
grep -q "pmix-debugger daemon .*: target .*, its processes on this node: 0,1,2" "$dvm_out" ||
  fail "no daemon line naming the 3 target processes"
if [[ $CASE == hello ]]; then  # held in PMIx_Init (tools.debug_stop.* check it), then released
  [[ $(grep -c "hello from rank [0-2] of 3" "$dvm_out") == 3 ]] || fail "not 3 hellos after the release"
fi
left=$(find "$TMPDIR" -mindepth 1 | wc -l)
[[ $left == 0 ]] || fail "left in TMPDIR: $(find "$TMPDIR" -mindepth 1 | head -5)"
echo "PASS: debugger example $CASE"
