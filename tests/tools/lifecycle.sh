#!/usr/bin/env bash
# tests/tools/lifecycle.sh PMIXRUN LIFECYCLE - pmixrun's job-lifecycle events (lifecycle.cpp):
#  tool:   a tool attached to a running pmixrun spawns a job with PMIX_NOTIFY_JOB_EVENTS and
#          PMIX_NOTIFY_PROC_TERMINATION: JOB_START (its chain ordered by HDLR_BEFORE / AFTER),
#          LAUNCH_COMPLETE, PROC_TERMINATED per process, JOB_END; a handler registered after the
#          job ended gets the cached JOB_END; a required directive pmixrun does not act on is
#          refused; the main job's JOB_END once its rank is told to stop.
#  parent: a rank spawns 3 children with PMIX_NOTIFY_COMPLETION + PMIX_NOTIFY_PROC_TERMINATION;
#          one exits 7, one without PMIx_Finalize: PROC_TERMINATED x3, PROC_TERM_WO_SYNC, and
#          JOB_END with PMIX_ERR_JOB_NON_ZERO_TERM, the first failed proc and its exit code.
set -u
PMIXRUN=$1 PROG=$2 CASE=$3
export TMPDIR=$(mktemp -d /tmp/pmix-lifecycle.XXXXXX)
STOP=$TMPDIR/stop
JOB_PID=
cleanup() {
  touch "$STOP" 2>/dev/null || true
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 1; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case $CASE in
tool)
  "$PMIXRUN" -n 1 --timeout 40 "$PROG" hold "$STOP" > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
  JOB_PID=$!
  for _ in $(seq 1 100); do
    "$(dirname "$PMIXRUN")/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
    sleep 0.1
  done
  timeout 40 "$PROG" tool "$JOB_PID" "$STOP" > "$TMPDIR/tool.out" 2> "$TMPDIR/tool.err"
  rc=$?
  touch "$STOP"
  timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
  wait "$JOB_PID"; jrc=$?
  JOB_PID=
  sed 's/^/tool| /' "$TMPDIR/tool.out" "$TMPDIR/tool.err"
  sed 's/^/job| /' "$TMPDIR/job.out" "$TMPDIR/job.err"
  [[ $rc == 0 ]] || fail "tool exited $rc"
  [[ $jrc == 0 ]] || fail "pmixrun exited $jrc"
  grep -q '^lifecycle: tool ok' "$TMPDIR/tool.out" || fail "tool: no summary"
  ;;
parent)
  timeout 40 "$PMIXRUN" -n 1 --timeout 30 "$PROG" parent "$TMPDIR/go" \
    > "$TMPDIR/job.out" 2> "$TMPDIR/job.err"
  rc=$?
  sed 's/^/job| /' "$TMPDIR/job.out" "$TMPDIR/job.err"
  # The child that exited 7 fails pmixrun's whole job (its exit status); the parent still saw
  # every event of its children first.
  [[ $rc == 7 ]] || fail "pmixrun exited $rc (want 7, the failed child's)"
  grep -q '^\[0\] lifecycle: parent ok' "$TMPDIR/job.out" || fail "parent: no summary"
  ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS: lifecycle $CASE"
