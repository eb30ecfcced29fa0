#!/usr/bin/env bash
# tests/tools/debug_stop.sh PMIXRUN DEBUG_STOP CASE - the debugger stops under pmixrun
# (launcher/debug.cpp, client/debug_stop.cpp); CASE is one of debug_stop.cpp's tool cases:
#  init, early, rank, affected, exec, pause, app, support: the tool's checks against a running pmixrun;
#  main-init, main-exec: pmixrun --stop-in-init / --stop-on-exec: held until the tool's release,
#          then the job ends well;
#  orphan: a process stopped in PMIx_Init whose pmixrun is killed returns from PMIx_Init with an
#          error (MARKDIR/initfail.0) instead of waiting for a release that cannot come.
set -u
PMIXRUN=$1 PROG=$2 CASE=$3
export TMPDIR=$(mktemp -d /tmp/pmix-debug-stop.XXXXXX)
STOP=$TMPDIR/stop MARKS=$TMPDIR/marks
mkdir -p "$MARKS"
JOB_PID= ORPHAN=
cleanup() {
  touch "$STOP" "$MARKS/go" 2>/dev/null || true
  [[ -n $ORPHAN ]] && kill -9 "$ORPHAN" 2>/dev/null
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 1; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case $CASE in
main-init) JOB=(-n 2 --stop-in-init "$PROG" hello "$MARKS") ;;
main-exec) JOB=(-n 2 --stop-on-exec "$PROG" hello "$MARKS") ;;
*) JOB=(-n 1 "$PROG" hold "$STOP") ;;
esac
"$PMIXRUN" --timeout 40 "${JOB[@]}" > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
JOB_PID=$!
for _ in $(seq 1 100); do
  "$(dirname "$PMIXRUN")/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
  sleep 0.1
done
timeout 40 "$PROG" tool "$JOB_PID" "$CASE" "$MARKS" > "$TMPDIR/tool.out" 2> "$TMPDIR/tool.err"
rc=$?
sed 's/^/tool| /' "$TMPDIR/tool.out" "$TMPDIR/tool.err"
[[ $rc == 0 ]] || fail "tool exited $rc"
grep -q "^debug_stop: $CASE ok" "$TMPDIR/tool.out" || fail "tool: no summary"
if [[ $CASE == orphan ]]; then
  ORPHAN=$(sed -n 's/^pid //p' "$TMPDIR/tool.out")
  [[ -n $ORPHAN ]] || fail "no pid of the stopped process"
  kill -0 "$ORPHAN" 2>/dev/null || fail "the stopped process is gone before its launcher"
  [[ -e $MARKS/init.0 ]] && fail "the process passed PMIx_Init unreleased"
  kill -9 "$JOB_PID"
  wait "$JOB_PID" 2>/dev/null
  JOB_PID=
  timeout 20 bash -c "while kill -0 $ORPHAN 2>/dev/null; do sleep 0.1; done" ||
    fail "the process stopped in PMIx_Init outlived its launcher by 20 s"
  [[ -e $MARKS/initfail.0 ]] || fail "PMIx_Init did not return an error"
  echo "PMIx_Init returned: $(cat "$MARKS/initfail.0")"
  ORPHAN=
else
  touch "$STOP"
  timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
  wait "$JOB_PID"; jrc=$?
  JOB_PID=
  sed 's/^/job| /' "$TMPDIR/job.out" "$TMPDIR/job.err"
  [[ $jrc == 0 ]] || fail "pmixrun exited $jrc"
  if [[ $CASE == main-* ]]; then
    [[ -e $MARKS/init.0 && -e $MARKS/init.1 ]] || fail "the released job did not run through"
  fi
fi
echo "PASS: debug_stop $CASE"
