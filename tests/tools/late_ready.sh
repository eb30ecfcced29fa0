#!/usr/bin/env bash
# tests/tools/late_ready.sh PMIXRUN LATE_READY HELLO CASE - an app's program found in its working
# directory, and PMIX_READY_FOR_DEBUG for a handler registered after PMIx_Spawn (late_ready.cpp).
#  exec / init: pmixrun --dvm (started in another directory) and late_ready with a copy of hello
#               that is only in DIR (not in PATH, not in the DVM's directory)
#  wdir:        pmixrun --wdir DIR prog and ./prog run the copy in DIR; a missing one: 127, named
# Nothing is left behind: the DVM stopped, its processes gone, the temporary directories removed.
set -u
PMIXRUN=$1 TOOL=$2 HELLO=$3 CASE=$4
export TMPDIR=$(mktemp -d /tmp/pmix-late-ready.XXXXXX)
unset PMIX_SYSTEM_TMPDIR
APPDIR=$TMPDIR/app ELSEWHERE=$TMPDIR/elsewhere
mkdir -p "$APPDIR" "$ELSEWHERE"
cp "$HELLO" "$APPDIR/late-ready-hello"
DVM_PID=
cleanup() {
  if [[ -n $DVM_PID ]] && kill -0 "$DVM_PID" 2>/dev/null; then
    kill -TERM "$DVM_PID" 2>/dev/null; sleep 1; kill -9 "$DVM_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; sed 's/^/dvm| /' "$ELSEWHERE/dvm.out" 2>/dev/null | tail -30; exit 1; }
cd "$ELSEWHERE" || exit 1

if [[ $CASE == wdir ]]; then
  for prog in late-ready-hello ./late-ready-hello; do
    out=$(timeout 30 "$PMIXRUN" -n 2 --wdir "$APPDIR" "$prog" 2>&1); rc=$?
    echo "$out" | sed "s/^/$prog| /"
    [[ $rc == 0 ]] || fail "pmixrun --wdir DIR $prog: exit $rc"
    [[ $(grep -c "hello from rank" <<<"$out") == 2 ]] || fail "$prog: not 2 ranks ran"
  done
  out=$(timeout 30 "$PMIXRUN" -n 1 late-ready-hello 2>&1); rc=$?
  [[ $rc == 127 ]] || fail "late-ready-hello not in this directory nor PATH: exit $rc"
  grep -q "cannot find program 'late-ready-hello'" <<<"$out" || fail "not named: $out"
  echo "PASS wdir"
  exit 0
fi

"$PMIXRUN" --dvm --report-uri "$ELSEWHERE/uri" > "$ELSEWHERE/dvm.out" 2>&1 &
DVM_PID=$!
timeout 10 bash -c "until [[ -s '$ELSEWHERE/uri' ]]; do sleep 0.05; done" || fail "no URI in 10 s"
timeout 45 "$TOOL" "$CASE" late-ready-hello "$APPDIR" > "$ELSEWHERE/tool.out" 2>&1
rc=$?
sed 's/^/tool| /' "$ELSEWHERE/tool.out"
[[ $rc == 0 ]] || fail "late_ready exit $rc"
grep -q "PASS $CASE" "$ELSEWHERE/tool.out" || fail "no PASS from late_ready"
timeout 20 "$(dirname "$PMIXRUN")/pmix-dvm" --stop > "$ELSEWHERE/stop.out" 2>&1 ||
  fail "pmix-dvm --stop: $(cat "$ELSEWHERE/stop.out")"
timeout 15 bash -c "while kill -0 $DVM_PID 2>/dev/null; do sleep 0.05; done" ||
  fail "the DVM is still running 15 s after the stop"
wait "$DVM_PID"; rc=$?
DVM_PID=
[[ $rc == 0 ]] || fail "the DVM exited $rc"
# (a process of the job may still be exiting, reparented when the DVM ended: 5 s for it)
timeout 5 bash -c "while pgrep -x late-ready-hell >/dev/null; do sleep 0.1; done" ||
  fail "processes of the job left: $(pgrep -a -x late-ready-hell)"
echo "PASS"
