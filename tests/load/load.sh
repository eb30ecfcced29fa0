#!/usr/bin/env bash
# tests/load/load.sh CASE BIN_DIR TARGET TOOL_LOAD SIZE - one pmixrun server under load.
#   CASE tools: a 4-rank job; K tools connect and query its proc table at once (tool_load).
#   CASE job:   an N-rank job (every rank initialised and waiting), then K tools query it at once.
#   SIZE small (CTest: tools K=32; job N=128, K=16) or full (tools K=256; job N=4096, K=256).
# Prints pmixrun's peak RSS (VmHWM), the time until every rank was up (job), and tool_load's
# numbers (server RSS, descriptors, connect and query latency). Fails if a rank or a tool failed
# or descriptors leaked; timings are printed, never asserted. Private TMPDIR, deadline, cleanup.
set -u
CASE=$1 BIN=$2 TARGET=$3 TOOL_LOAD=$4 SIZE=${5:-small}
export TMPDIR=$(mktemp -d /tmp/pmix-load.XXXXXX)
GO=$TMPDIR/go
JOB_PID=
cleanup() {
  touch "$GO" 2>/dev/null || true
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 2; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case $CASE/$SIZE in
  tools/small) N=4 K=32 ;;
  tools/full) N=4 K=256 ;;
  job/small) N=128 K=16 ;;
  job/full) N=4096 K=256 ;;
  *) fail "unknown case $CASE/$SIZE" ;;
esac

start=$(date +%s.%N)
TOOL_TARGET_GO=$GO "$BIN/pmixrun" -n "$N" -x TOOL_TARGET_GO --timeout 280 "$TARGET" \
  > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
JOB_PID=$!
# Every rank but 0 waits for $GO once initialised: wait until N-1 ranks are up (pmix-ps shows
# their state) or the job died.
up=0
for _ in $(seq 1 1200); do
  kill -0 "$JOB_PID" 2>/dev/null || fail "pmixrun ended early: $(tail -5 "$TMPDIR/job.err")"
  up=$("$BIN/pmix-ps" --pid "$JOB_PID" 2>/dev/null | grep -c "CONNECTED TO LOCAL PMIX SERVER" || true)
  [[ $up -ge $((N - 1)) ]] && break
  sleep 0.2
done
[[ $up -ge $((N - 1)) ]] || fail "only $up of $((N - 1)) waiting ranks came up"
echo "ranks up: $N in $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $start }") s (pmix-ps polled every 0.2 s)"
timeout 240 "$TOOL_LOAD" --pid "$JOB_PID" --tools "$K" --queries 20
rc=$?
grep -E "VmHWM|VmRSS" "/proc/$JOB_PID/status" | tr -s ' \t' ' ' | sed 's/^/pmixrun /'
touch "$GO"
timeout 120 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
wait "$JOB_PID" || fail "the job failed: $(tail -5 "$TMPDIR/job.err")"
JOB_PID=
[[ $rc == 0 ]] || fail "tool_load exited $rc"
echo "PASS: $CASE/$SIZE: $N ranks, $K tools"
