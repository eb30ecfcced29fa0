#!/usr/bin/env bash
# tests/tools/app_stops.sh PMIXRUN APP_STOPS CASE - a tool attached to a running pmixrun job
# (attach-*) or to a persistent launcher (dvm-*), app_stops.cpp's checks:
#   *-app      PMIX_DEBUG_STOP_IN_INIT in the application's app info: it alone is held
#   *-cospawn  the stop in the co-spawned app's info: it alone is held
#   *-fwd      PMIX_FWD_STDOUT: the job's lines reach the tool once, pmixrun does not print them
set -u
PMIXRUN=$1 PROG=$2 CASE=$3
export TMPDIR=$(mktemp -d /tmp/pmix-appstops.XXXXXX)
DIR=$TMPDIR
LAUNCHER_PID=
cleanup() {
  touch "$DIR/stop" 2>/dev/null || true
  if [[ -n $LAUNCHER_PID ]] && kill -0 "$LAUNCHER_PID" 2>/dev/null; then
    timeout 20 "$PMIXRUN" --dvm-stop --pid "$LAUNCHER_PID" > /dev/null 2>&1
    sleep 1; kill -9 "$LAUNCHER_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

case ${CASE%%-*} in
  attach)
    "$PMIXRUN" -n 1 --timeout 60 "$PROG" wait "$DIR" > "$DIR/launcher.out" 2> "$DIR/launcher.err" &
    LAUNCHER_PID=$!
    for _ in $(seq 1 100); do
      "$(dirname "$PMIXRUN")/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$LAUNCHER_PID" && break
      sleep 0.2
    done ;;
  dvm)
    "$PMIXRUN" --dvm --report-uri "$DIR/uri" > "$DIR/launcher.out" 2> "$DIR/launcher.err" &
    LAUNCHER_PID=$!
    timeout 10 bash -c "until [[ -s '$DIR/uri' ]]; do sleep 0.05; done" || fail "no DVM in 10 s" ;;
  *) fail "unknown case $CASE" ;;
esac
timeout 60 "$PROG" tool "$LAUNCHER_PID" "$DIR" "${CASE#*-}" > "$DIR/tool.out" 2> "$DIR/tool.err"
rc=$?
sed 's/^/tool| /' "$DIR/tool.out" "$DIR/tool.err"
if [[ ${CASE%%-*} == attach ]]; then
  touch "$DIR/stop"
  timeout 30 bash -c "while kill -0 $LAUNCHER_PID 2>/dev/null; do sleep 0.1; done"
else
  timeout 20 "$PMIXRUN" --dvm-stop --pid "$LAUNCHER_PID" > /dev/null 2>&1
fi
wait "$LAUNCHER_PID"
launcher_rc=$?
LAUNCHER_PID=
sed 's/^/launcher| /' "$DIR/launcher.out" "$DIR/launcher.err"
[[ $rc == 0 ]] || fail "tool exited $rc"
grep -q '^app_stops: ok' "$DIR/tool.out" || fail "no ok from the tool"
# pmixrun without --dvm ends on a failed rank of any of its jobs: the held app's exit 5.
want_rc=0
[[ $CASE == attach-app || $CASE == attach-cospawn ]] && want_rc=5
[[ $launcher_rc == "$want_rc" ]] || fail "the launcher exited $launcher_rc (want $want_rc)"
if [[ ${CASE#*-} == fwd ]]; then
  for r in 0 1; do
    n=$(grep -c "^app-stops-line fwd $r\$" "$DIR/tool.out")
    [[ $n == 1 ]] || fail "rank $r's line reached the tool $n times (want 1)"
  done
  n=$(grep -c 'app-stops-line fwd' "$DIR/launcher.out" "$DIR/launcher.err" | awk -F: '{s+=$NF} END {print s}')
  [[ $n == 0 ]] || fail "pmixrun printed $n of the lines forwarded to the tool"
fi
echo "PASS: $CASE"
