#!/usr/bin/env bash
# The debugger across 2 simulated nodes (network namespaces, pmixd through `ip netns exec`):
#   debug_netns.sh BINDIR PROG CASE
# CASE init | exec | app (PROG tests/tools/debug_stop): `pmixrun --host a:2,b:2
#   --stop-in-init|--stop-on-exec|--stop-in-app` runs 4 hellos; a tool attached to the head
#   (debug_stop tool ... nodes-CASE) gets every process's PMIX_READY_FOR_DEBUG and the job's one
#   (on exec: LAUNCH_COMPLETE and every process 'T' on both nodes), sees none pass its stop,
#   releases the job and gets its JOB_END; pmixrun's exit status is the last rank's exit code
#   (3 for init). CASE pause (debug_stop, not held): PMIx_Job_control PAUSE at the head stops the
#   spinning hellos on both nodes ('T'), RESUME continues them, then they finish.
# CASE daemons (PROG tests/tools/debug_daemons): a tool attached to the head of a running 4-rank
#   job spawns debugger daemons at it, per node (2) and per process (4), and co-spawns a 2-rank
#   application with a daemon per node; every daemon checks its target and its node's part of
#   the target's proc table.
# CASE indirect | hangup (PROG tests/tools/indirect): the initiator starts `pmixrun --host a:1,b:1`
#   itself (PMIX_LAUNCHER_RNDZ_URI, PMIX_KEEPALIVE_PIPE), releases it with launch directives (an
#   environment variable for every rank on both nodes, the job's events to the initiator) and
#   gets JOB_END (indirect) or closes the keepalive pipe once the job started: pmixrun ends the
#   job on both nodes and exits 129 (hangup); stop: the directives add PMIX_DEBUG_STOP_IN_INIT:
#   the job's READY_FOR_DEBUG once both nodes' processes are held, no rank past PMIx_Init before
#   the initiator releases the job, then JOB_END.
# CASE abort (PROG tests/tools/lifecycle): a tool attached to the head of a 4-rank job whose last
#   rank calls PMIx_Abort(3) (examples/abort.c, once the tool registered): the job's one JOB_END
#   is PMIX_ERR_JOB_ABORTED with PMIX_EXIT_CODE 3 and rank 3's PMIX_PROCID; pmixrun exits 3.
# CASE cospawn_stops (PROG tests/tools/cospawn_stops): a tool attached to the head of a running
#   4-rank job spawns 4 ranks held in init with a co-spawned debugger daemon per node: the
#   daemons run while the ranks are held on both nodes; released; JOB_END exit 7 (which, as any
#   rank's failure, ends pmixrun with status 7).
# Namespaces get a unique prefix and are always removed; no pmixd or segment may be left.
# Exit 77 (skipped) where network namespaces cannot be created.
set -uo pipefail
bin=$1 prog=$2 case=$3
here=$(cd "$(dirname "$0")" && pwd)
netns="$here/../../scripts/netns.sh"
prefix="dg$$"
work=$(mktemp -d)
export PMIX_CPP_GDS_PREFIX="/pmixdg-$$"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR" "$work/marks"
job=
cleanup() {
  touch "$work/marks/start" 2>/dev/null
  [ -n "$job" ] && kill -9 "$job" 2>/dev/null
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix"); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
  done
  bash "$netns" destroy "$prefix"
  rm -f /dev/shm/pmixdg-$$-* 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bash "$netns" probe "$prefix" || exit $?
bash "$netns" create "$prefix" 2 || { echo "FAIL: cannot build 2 simulated nodes"; exit 1; }
hosts="${prefix}n0:2,${prefix}n1:2"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

code=0
wait_head() {  # the head of pmixrun $job, once its server answers tools
  head=
  for _ in $(seq 1 50); do head=$(pgrep -P "$job" -x pmixrun) && break; sleep 0.1; done
  for _ in $(seq 1 100); do "$bin/pmix-ps" --pid "$head" >/dev/null 2>&1 && break; sleep 0.1; done
}
finish() {
  sleep 0.2
  left=$(pgrep -f "$bin/pmixd" | wc -l)
  [ "$left" -eq 0 ] || fail "$left pmixd process(es) left"
  shm_left=$(ls /dev/shm | grep -c "^pmixdg-$$-" || true)
  [ "$shm_left" -eq 0 ] || fail "$shm_left shared-memory segment(s) left"
  bash "$netns" destroy "$prefix"
  [ "$(ip netns list | grep -c "^$prefix")" -eq 0 ] || fail "namespaces left"
  [ "$fails" -eq 0 ] && echo "PASS: debugger $case across 2 simulated nodes"
  exit $((fails > 0))
}
case $case in
init) stop=--stop-in-init code=3 ;;
pause) stop="-x DEBUG_STOP_SPIN=1" ;;
exec) stop=--stop-on-exec ;;
app) stop=--stop-in-app ;;
daemons)
  echo "+ pmixrun --host $hosts debug_daemons node-member STOP"
  timeout -s KILL 60 "$bin/pmixrun" --launch-agent "ip netns exec" --host "$hosts" --timeout 50 \
    "$prog" node-member "$work/marks/stop" >"$work/out" 2>"$work/err" &
  job=$!
  wait_head
  timeout -s KILL 40 "$prog" tool-nodes "$head" "$work/marks/stop" >"$work/tool" 2>&1 ||
    fail "the tool failed"
  touch "$work/marks/stop"
  sed 's/^/tool| /' "$work/tool"
  grep -q "^tool-nodes ok" "$work/tool" || fail "tool: no summary"
  wait "$job" || fail "pmixrun exited $?"
  job=
  cat "$work/out" "$work/err"
  # 2 per node + 4 per process + 2 co-spawned daemons; 4 main ranks + 2 co-spawned.
  n=$(grep -c " node-daemon ok$" "$work/out")
  [ "$n" -eq 8 ] || fail "$n daemons ok, want 8"
  for node in 0 1; do
    m=$(grep -c "^\[.*\] node-daemon .* on ${prefix}n$node: " "$work/out")
    [ "$m" -eq 4 ] || fail "$m daemons on node $node, want 4"
  done
  n=$(grep -c " node-member ok$" "$work/out")
  [ "$n" -eq 6 ] || fail "$n members ok, want 6"
  finish
  ;;
indirect|hangup|stop)
  echo "+ indirect $bin/pmixrun ${case/indirect/uri} (pmixrun --host ${prefix}n0:1,${prefix}n1:1)"
  export INDIRECT_PMIXRUN_ARGS="--launch-agent|ip netns exec|--host|${prefix}n0:1,${prefix}n1:1"
  # PMIx clients (JOB_START at the head: every rank connected), after printing what they got.
  if [ "$case" != hangup ]; then
    program=(/bin/sh -c 'echo "rank $PMIX_RANK var=$INDIRECT_VAR"; exec "$0"' "$bin/hello")
  else
    program=(/bin/sh -c 'echo "rank $PMIX_RANK up"; exec "$0" hold "$1"' "$bin/debug_stop"
      "$work/marks/never")
  fi
  timeout -s KILL 60 "$prog" "$bin/pmixrun" "${case/indirect/uri}" "$work/initiator.rndz" -- \
    "${program[@]}" >"$work/out" 2>"$work/err" || fail "the initiator failed"
  cat "$work/out" "$work/err"
  grep -q '^indirect: ok' "$work/out" || fail "no summary"
  if [ "$case" != hangup ]; then
    n=$(grep -c 'var=from-initiator' "$work/out")
    [ "$n" -eq 2 ] || fail "$n ranks got the launch directive's variable, want 2"
  fi
  if [ "$case" = stop ]; then  # both hellos print only once released
    held=$(grep -n "^indirect: job .* held, 2 processes ready" "$work/out" | cut -d: -f1)
    [ -n "$held" ] || fail "the job was not reported held with 2 processes ready"
    first=$(grep -n "hello from rank" "$work/out" | head -1 | cut -d: -f1)
    [ -n "$first" ] && [ -n "$held" ] && [ "$first" -gt "$held" ] ||
      fail "a rank passed PMIx_Init before the release"
  elif [ "$case" = hangup ]; then
    grep -q 'keepalive pipe closed' "$work/err" || fail "pmixrun did not say why it ended"
    sleep 0.5
    pgrep -f "hold $work/marks/never" >/dev/null && fail "a rank outlived the hangup"
  fi
  finish
  ;;
abort)
  echo "+ pmixrun --host $hosts abort (once $work/marks/start exists)"
  timeout -s KILL 60 "$bin/pmixrun" --launch-agent "ip netns exec" --host "$hosts" --timeout 50 \
    /bin/sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done; exec "$0"' "$bin/abort" \
    "$work/marks/start" >"$work/out" 2>"$work/err" &
  job=$!
  wait_head
  timeout -s KILL 40 "$prog" watch-abort "$head" "$work/marks/start" 3 >"$work/tool" 2>&1 ||
    fail "the tool failed"
  sed 's/^/tool| /' "$work/tool"
  grep -q "^lifecycle: watch-abort ok" "$work/tool" || fail "tool: no summary"
  wait "$job"
  rc=$?
  job=
  cat "$work/out" "$work/err"
  [ "$rc" -eq 3 ] || fail "pmixrun exited $rc, expected 3"
  finish
  ;;
cospawn_stops)
  echo "+ pmixrun --host $hosts debug_daemons node-member STOP"
  timeout -s KILL 60 "$bin/pmixrun" --launch-agent "ip netns exec" --host "$hosts" --timeout 50 \
    "$bin/debug_daemons" node-member "$work/marks/stop" >"$work/out" 2>"$work/err" &
  job=$!
  wait_head
  mkdir -p "$work/marks/cs"
  timeout -s KILL 40 "$prog" tool "$head" "$work/marks/cs" "$bin/debug_daemons" >"$work/tool" 2>&1 ||
    fail "the tool failed"
  touch "$work/marks/stop"
  sed 's/^/tool| /' "$work/tool"
  grep -q "^cospawn_stops: ok" "$work/tool" || fail "tool: no summary"
  wait "$job"
  rc=$?  # a spawned job's failing rank ends pmixrun's job as any rank does: its exit status
  [ "$rc" -eq 7 ] || fail "pmixrun exited $rc, expected 7 (the spawned job's last rank)"
  job=
  cat "$work/out" "$work/err"
  for node in 0 1; do
    n=$(grep -c "^\[.*\] node-daemon .* on ${prefix}n$node: target .*, here ranks [0-9],[0-9]$" "$work/out")
    [ "$n" -eq 1 ] || fail "$n daemons on node $node saw 2 targets, want 1"
  done
  finish
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
export DEBUG_STOP_START="$work/marks/start" DEBUG_STOP_EXIT=$code DEBUG_STOP_NPROCS=4
echo "+ pmixrun --host $hosts $stop debug_stop hello"
timeout -s KILL 60 "$bin/pmixrun" --launch-agent "ip netns exec" --host "$hosts" --timeout 50 \
  -x DEBUG_STOP_START -x DEBUG_STOP_EXIT $stop "$prog" hello "$work/marks" \
  >"$work/out" 2>"$work/err" &
job=$!
wait_head
timeout -s KILL 40 "$prog" tool "$head" "nodes-$case" "$work/marks" >"$work/tool" 2>&1 ||
  fail "the tool failed"
sed 's/^/tool| /' "$work/tool"
grep -q "^debug_stop: nodes-$case ok" "$work/tool" || fail "tool: no summary"
wait "$job"
rc=$?
job=
cat "$work/out" "$work/err"
[ "$rc" -eq "$code" ] || fail "pmixrun exited $rc, expected $code"
finish
