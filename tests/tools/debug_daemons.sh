#!/usr/bin/env bash
# tests/tools/debug_daemons.sh PMIXRUN PROG CASE - debugger daemons and co-spawn under pmixrun
# (launcher/debug_daemons.cpp), with the processes of debug_daemons.cpp:
#  attach: a tool attaches to a running 4-rank job and spawns daemons aimed at it: per node (1),
#          per process (4), by default (1), two for rank 2; refusals (unknown target or rank, both
#          counts, a count of 0, a count without target); then co-spawns a 2-rank application
#          with a debugger app (2 daemons) and a plain co-spawned app (1 rank). Every daemon checks
#          its target and the target's proc table; every rank checks its job's size and local
#          ranks, the main job's after all of that.
#  self:   rank 0 of a 2-rank job spawns one daemon per process of its own job; the daemons
#          start with PMIx_tool_init (as prte's example daemon), connected as their registered
#          identity.
set -u
PMIXRUN=$1 PROG=$2 CASE=$3
export TMPDIR=$(mktemp -d /tmp/pmix-dbgd.XXXXXX)
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
count() { grep -c -- "$1" "$TMPDIR/job.out"; }

case $CASE in
attach)
  "$PMIXRUN" -n 4 --timeout 40 "$PROG" member 4 "$STOP" > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
  JOB_PID=$!
  for _ in $(seq 1 100); do
    "$(dirname "$PMIXRUN")/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
    sleep 0.1
  done
  timeout 40 "$PROG" tool "$JOB_PID" > "$TMPDIR/tool.out" 2> "$TMPDIR/tool.err"
  rc=$?
  touch "$STOP"
  timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
  wait "$JOB_PID"; jrc=$?
  JOB_PID=
  sed 's/^/tool| /' "$TMPDIR/tool.out" "$TMPDIR/tool.err"
  sed 's/^/job| /' "$TMPDIR/job.out" "$TMPDIR/job.err"
  [[ $rc == 0 ]] || fail "tool exited $rc"
  [[ $jrc == 0 ]] || fail "pmixrun exited $jrc"
  grep -q '^tool ok' "$TMPDIR/tool.out" || fail "tool: no summary"
  # 1 + 4 + 1 + 2 daemons aimed at the job, 2 co-spawned; 4 main ranks, 2 + 1 co-spawned ranks.
  [[ $(count ' daemon ok$') == 10 ]] || fail "$(count ' daemon ok$') daemons ok, want 10"
  [[ $(count ' member ok$') == 7 ]] || fail "$(count ' member ok$') members ok, want 7"
  [[ $(count '^\[[0-3]\] member ok$') == 4 ]] || fail "main job's ranks not all ok"
  ;;
self)
  timeout 40 "$PMIXRUN" -n 2 --timeout 30 "$PROG" self > "$TMPDIR/job.out" 2> "$TMPDIR/job.err"
  rc=$?
  sed 's/^/job| /' "$TMPDIR/job.out" "$TMPDIR/job.err"
  [[ $rc == 0 ]] || fail "pmixrun exited $rc"
  [[ $(count ' self ok$') == 2 ]] || fail "ranks not both ok"
  [[ $(count ' daemon ok$') == 2 ]] || fail "$(count ' daemon ok$') daemons ok, want 2"
  ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS: debug_daemons $CASE"
