#!/usr/bin/env bash
# tests/iof/fwd_spawn.sh PMIXRUN FWD_SPAWN TICKER - PMIx_Spawn's PMIX_FWD_STDOUT / STDERR: a
# client of a pmixrun job spawns two children; the channels it asked for reach it (its library
# writes them to its own stdout / stderr, which pmixrun then prints as the parent's, "[0] ..."),
# the others do not. Without FWD nothing reaches it (pmixrun prints the children's output as
# theirs, "[1.<rank>] ...", in every mode).
# Then a tool attached to a running pmixrun job spawns with no PMIX_FWD_*: a tool gets every
# output channel it does not name (as OpenPMIx), so both.
set -u
PMIXRUN=$1 PROG=$2 TICKER=$3
export TMPDIR=$(mktemp -d /tmp/pmix-fwdspawn.XXXXXX)
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

for mode in stdout stderr none; do
  timeout 60 "$PMIXRUN" -n 1 --timeout 50 "$PROG" "$mode" \
    > "$TMPDIR/$mode.out" 2> "$TMPDIR/$mode.err"
  rc=$?
  cat "$TMPDIR/$mode.out" "$TMPDIR/$mode.err" | sed "s/^/$mode| /"
  [[ $rc == 0 ]] || fail "mode $mode: pmixrun exited $rc"
  out_fwd=$(grep -c '^\[0\] fwd-child stdout' "$TMPDIR/$mode.out")
  err_fwd=$(grep -c '^\[0\] fwd-child stderr' "$TMPDIR/$mode.err")
  own_out=$(grep -c '^\[1\.[01]\] fwd-child stdout' "$TMPDIR/$mode.out")
  own_err=$(grep -c '^\[1\.[01]\] fwd-child stderr' "$TMPDIR/$mode.err")
  case $mode in
    stdout) want_out=6 want_err=0 ;;
    stderr) want_out=0 want_err=6 ;;
    none) want_out=0 want_err=0 ;;
  esac
  [[ $out_fwd == "$want_out" && $err_fwd == "$want_err" ]] ||
    fail "mode $mode: the parent passed on $out_fwd stdout / $err_fwd stderr lines (want $want_out / $want_err)"
  [[ $own_out == 6 && $own_err == 6 ]] ||
    fail "mode $mode: pmixrun printed $own_out / $own_err of the children's own lines (want 6 / 6)"
  grep -q "^\[0\] fwd_spawn: mode=$mode " "$TMPDIR/$mode.out" || fail "mode $mode: no summary"
done

TICKER_STOP=$STOP "$PMIXRUN" -n 1 -x TICKER_STOP --timeout 60 "$TICKER" \
  > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
JOB_PID=$!
for _ in $(seq 1 100); do
  "$(dirname "$PMIXRUN")/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
  sleep 0.2
done
timeout 40 "$PROG" tool "$JOB_PID" > "$TMPDIR/tool.out" 2> "$TMPDIR/tool.err"
rc=$?
touch "$STOP"
timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
wait "$JOB_PID" || fail "the tool's job failed: $(cat "$TMPDIR/job.err")"
JOB_PID=
cat "$TMPDIR/tool.out" | sed 's/^/tool| /'
[[ $rc == 0 ]] || fail "tool: exit $rc: $(grep -v '^fwd-child' "$TMPDIR/tool.err")"
grep -q "^fwd_spawn: mode=tool out=6 err=6" "$TMPDIR/tool.out" || fail "tool: no summary"
echo "PASS: FWD_STDOUT / FWD_STDERR / none from a client; every channel by default to a tool"
