#!/usr/bin/env bash
# The persistent launcher across 2 simulated nodes (launcher/dvm_head.h): pmixrun --dvm with one
# pmixd per network namespace through `ip netns exec`, tools attached to the head as the system
# server (tests/tools/dvm_tool.cpp).
#   dvm_netns.sh BINDIR DVM_TOOL HELLO CASE
# CASE:
#  many:     2 jobs of 4, then 20 one after another: every JOB_END successful; the /dev/shm
#            segments, the TMPDIR entries and the descriptors of the head and of each pmixd are
#            the same after the 20 as before (every job retired on every node); pmix-dvm --stop
#  at_once:  (--hostfile) 8 jobs of 4, 4 at a time, each rank saying where it runs: ranks 0-1 on
#            node 0 and 2-3 on node 1 in every job; a job of 3 with PMIX_HOST node 1 runs there
#            alone, one naming no node of the DVM is refused; stopped by PMIx_Job_control(TERMINATE)
#  nonzero:  a job whose rank 3 (node 1) exits 3 while the others sleep: JOB_END NON-ZERO exit 3
#            with rank 3 as PMIX_PROCID at once, its processes on both nodes gone; the next job
#            ends well; stopped by SIGTERM (exit 143)
#  killed:   the same with rank 3 killing itself (SIGKILL): JOB_END ABORTED-BY-SIG exit 137, rank
#            3; then `abort` (examples/abort.c: rank 3 calls PMIx_Abort(3) while the others wait in
#            a fence): JOB_END ABORTED exit 3, rank 3 (pmixd reports the abort before its kills)
#  stop:     pmix-dvm --stop while a job of 4 sleeps on both nodes: its tool gets JOB_END killed by
#            command (143) first
#  daemon_lost: node 1's pmixd SIGKILLed while a job sleeps on both nodes: the DVM stops (exit
#            137), the job's tool still gets JOB_END; what the killed pmixd made (it could not
#            remove it: names with its pid) is removed here, nothing else may be left
#  daemons: (5th argument: tests/tools/debug_daemons) a job of 4 node-members runs on both
#            nodes; a tool of the DVM (debug_daemons tool-nodes, DBG_TARGET_NS the job) spawns
#            debugger daemons aimed at it, per node (2) and per process (4), one at an unknown
#            target (refused), and a co-spawn of 2 node-members with a daemon per node, each
#            daemon checking its target and its node's part; then the job ends well; dvm_tool stop
#  debugger | debugger_abort: (5th argument: pmix-debugger, examples/debugger.c) `pmix-debugger
#            -n 4 hello 4` (abort: `abort`, whose last rank calls PMIx_Abort(3)): the job held in
#            PMIx_Init on both nodes, its proc table of 4 ranks on 2 nodes at READY_FOR_DEBUG, one
#            daemon per node each seeing its node's 2 ranks, the release reaching both nodes (4
#            hellos), pmix-debugger exiting with the job's status (0, or the abort's 3);
#            pmix-dvm --stop
#  stops:   (5th argument: tests/tools/debug_stop) its tool's `exec`, `init` then `app` cases
#            against the DVM: 3 hellos held on exec ('T'), then in PMIx_Init, then 2 stopped by
#            themselves after PMIx_Init (PMIX_DEBUG_STOP_IN_APP), over both nodes; the events, the
#            release, JOB_END; a DVM job's rank spawning 4 processes held in init on both nodes
#            and releasing them (xnode_spawn_stop); PMIX_QUERY_DEBUG_SUPPORT and _SPAWN_SUPPORT
#            (pmix-query) name the three stops
#  cospawn_stops: (2nd argument: tests/tools/cospawn_stops, 5th: tests/tools/debug_daemons) a
#            tool's spawn of 4 ranks held in init (PMIX_DEBUG_STOP_IN_INIT) with a co-spawned
#            debugger daemon per node: the ranks held on both nodes, the daemons running (not
#            held), seeing PMIX_DEBUG_TARGET and their node's 2 ranks, and ending; the release;
#            JOB_END exit 7 (the last rank's); each lifecycle event once
#  cospawn_appstops: the same with the stop in the application's app info (not the job's)
#  appstops_fwd: (2nd argument: tests/tools/app_stops) a tool's spawn of 2 ranks (one per node)
#            with PMIX_FWD_STDOUT: their lines reach the tool once, the head does not print them
# Every case ends with the DVM gone: no pmixd, no job process, nothing in TMPDIR or /dev/shm.
# Exit 77 (skipped) where network namespaces cannot be created.
set -uo pipefail
bin=$1 TOOL=$2 HELLO=$3 case=$4 DAEMONS=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
netns="$here/../../scripts/netns.sh"
prefix="dv$$"
work=$(mktemp -d)
export PMIX_CPP_GDS_PREFIX="/pmixdvm-$$"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
unset PMIX_SYSTEM_TMPDIR
DVM_PID=
cleanup() {
  [[ -n $DVM_PID ]] && kill -9 "$DVM_PID" 2>/dev/null
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix"); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
  done
  bash "$netns" destroy "$prefix"
  rm -f /dev/shm/pmixdvm-$$-* 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
die() {
  echo "FAIL: $*"
  sed 's/^/dvm| /' "$work/dvm.out" "$work/dvm.err" 2>/dev/null | tail -40
  exit 1
}
bash "$netns" probe "$prefix" || exit $?
bash "$netns" create "$prefix" 2 || die "cannot build 2 simulated nodes"
hosts="${prefix}n0:2,${prefix}n1:2"

start_dvm() {  # more pmixrun options
  echo "+ pmixrun --dvm $* --launch-agent \"ip netns exec\""
  "$bin/pmixrun" --dvm "$@" --launch-agent "ip netns exec" --report-uri "$work/uri" \
    >"$work/dvm.out" 2>"$work/dvm.err" &
  DVM_PID=$!
  timeout 20 bash -c "until [[ -s '$work/uri' ]]; do sleep 0.05; done" || die "no URI in 20 s"
  grep -q "^pmix-dvm: ready: nspace pmix-dvm.$DVM_PID " "$work/dvm.out" || die "no ready line"
  [[ -e $TMPDIR/pmix.sys.$(hostname) ]] || die "no system rendezvous file"
  [[ $(pgrep -f "$bin/pmixd" | wc -l) -eq 2 ]] || die "not one pmixd per node"
}
tool() {  # dvm_tool under a timeout, its output kept in $work/tool.out and shown
  timeout 60 "$TOOL" "$@" >"$work/tool.out" 2>&1
  local rc=$?
  sed 's/^/tool| /' "$work/tool.out" | grep -v 'JOB_END SUCCESS\|hello from'
  echo "tool| ($(grep -c 'JOB_END SUCCESS' "$work/tool.out") successful JOB_END)"
  return $rc
}
# /dev/shm segments, TMPDIR entries, and the descriptors of the head and each pmixd
footprint() {
  local fds="" p
  for p in "$DVM_PID" $(pgrep -f "$bin/pmixd" | sort -n); do fds+="$(ls /proc/$p/fd | wc -l),"; done
  echo "shm=$(ls /dev/shm | grep -c "^pmixdvm-$$-") tmp=$(find "$TMPDIR" | wc -l) fds=$fds"
}
settled_footprint() {  # three samples 0.1 s apart agree (a tool's connection closes late)
  local last="" now same=0
  for _ in $(seq 1 50); do
    now=$(footprint)
    if [[ $now == "$last" ]]; then ((++same >= 2)) && break; else same=0; fi
    last=$now
    sleep 0.1
  done
  echo "$now"
}
live() {  # a process that runs (a zombie whose reaper is elsewhere does not)
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $(awk '{print $1}' <<<"${stat##*)}") != Z ]]
}
job_procs() {  # every live process of the simulated nodes but the pmixds
  local ns p
  for ns in "${prefix}n0" "${prefix}n1"; do
    for p in $(ip netns pids "$ns"); do
      [[ $(cat /proc/$p/comm 2>/dev/null) == pmixd ]] || ! live "$p" || echo "$p"
    done
  done
}
# Waits (at most 15 s) for the DVM to exit with status $1; checks that nothing is left, but the
# files of a killed pmixd ($3, its pid).
expect_stopped() {
  local want=$1 kids=$2 killed=${3:-} rc p
  timeout 15 bash -c "while kill -0 $DVM_PID 2>/dev/null; do sleep 0.05; done" ||
    die "the DVM is still running 15 s after the stop"
  wait "$DVM_PID"
  rc=$?
  DVM_PID=
  [[ $rc == "$want" ]] || fail "the DVM exited $rc (want $want)"
  sleep 0.2
  [[ $(pgrep -f "$bin/pmixd" | wc -l) -eq 0 ]] || fail "pmixd left: $(pgrep -af "$bin/pmixd")"
  for p in $kids $(job_procs); do live "$p" && fail "job process $p outlived the DVM: $(ps -o pid,stat,args -p "$p")"; done
  if [[ -n $killed ]]; then
    rm -rf "$TMPDIR"/*".$killed" "$TMPDIR"/*"-$killed"
    rm -f /dev/shm/pmixdvm-$$-"$killed"-*
  fi
  local left
  left=$(find "$TMPDIR" -mindepth 1)
  [[ -z $left ]] || fail "left in TMPDIR: $left"
  [[ ! -e $work/uri ]] || fail "the --report-uri file is still there"
  left=$(ls /dev/shm | grep "^pmixdvm-$$-")
  [[ -z $left ]] || fail "left in /dev/shm: $left"
}
stop_cli() {
  timeout 20 "$bin/pmix-dvm" --stop >"$work/stop.out" 2>&1 || {
    cat "$work/stop.out"
    fail "pmix-dvm --stop failed"
  }
}

case $case in
many)
  start_dvm --host "$hosts"
  tool run 2 1 0 4 "$HELLO" 4 >/dev/null || fail "first 2 jobs"
  before=$(settled_footprint)
  start=$(date +%s%N)
  tool run 20 1 0 4 "$HELLO" 4 || fail "20 jobs"
  echo "20 jobs of 4 across 2 nodes, one after another: $((($(date +%s%N) - start) / 1000000)) ms"
  [[ $(grep -c 'JOB_END SUCCESS exit 0' "$work/tool.out") == 20 ]] || fail "not 20 JOB_END"
  [[ $(grep -c '^\[22\.[0-3]\] hello from rank' "$work/dvm.out") == 4 ]] ||
    fail "not 4 hellos of the last job"
  for _ in $(seq 1 50); do
    after=$(footprint)
    [[ $after == "$before" ]] && break
    sleep 0.1
  done
  echo "after 2 jobs: $before; after 22: $after"
  [[ $before == "$after" ]] || fail "footprint grew: $before -> $after"
  stop_cli
  expect_stopped 0 ""
  ;;
at_once)
  for i in 0 1; do echo "${prefix}n$i slots=2"; done >"$work/hosts"
  start_dvm --hostfile "$work/hosts"
  tool run 8 4 0 4 /bin/sh -c 'echo "rank $PMIX_RANK on $(ip netns identify)"' ||
    fail "8 jobs, 4 at once"
  [[ $(grep -c 'JOB_END SUCCESS exit 0' "$work/tool.out") == 8 ]] || fail "not 8 JOB_END"
  n0=$(grep -c "rank [01] on ${prefix}n0\$" "$work/dvm.out")
  n1=$(grep -c "rank [23] on ${prefix}n1\$" "$work/dvm.out")
  echo "ranks 0-1 on node 0: $n0 lines, ranks 2-3 on node 1: $n1 lines (8 jobs)"
  [[ $n0 == 16 && $n1 == 16 ]] || fail "not placed in equal blocks: $(grep ' on ' "$work/dvm.out")"
  DVM_TOOL_HOST="${prefix}n1" tool run 1 1 0 3 /bin/sh -c 'echo "host rank $PMIX_RANK on $(ip netns identify)"' ||
    fail "a job with PMIX_HOST"
  [[ $(grep -c "host rank [012] on ${prefix}n1\$" "$work/dvm.out") == 3 ]] ||
    fail "PMIX_HOST ${prefix}n1 not honoured: $(grep 'host rank' "$work/dvm.out")"
  # (the tool's own "FAIL:" line is expected here: kept out of the test's output)
  DVM_TOOL_HOST=nosuchnode timeout 30 "$TOOL" run 1 1 0 1 "$HELLO" >"$work/refused.out" 2>&1 &&
    fail "a PMIX_HOST of no node was accepted"
  if grep -q "spawn: BAD-PARAM" "$work/refused.out"; then
    echo "PMIX_HOST of no node of the DVM: refused with BAD-PARAM"
  else
    fail "PMIX_HOST of no node: not BAD-PARAM: $(sed 's/FAIL/fail/' "$work/refused.out")"
  fi
  tool stop || fail "stop by job control"
  expect_stopped 0 ""
  ;;
nonzero)
  start_dvm --host "$hosts"
  start=$(date +%s)
  tool run 1 1 3@3 4 /bin/sh -c '[ "$PMIX_RANK" = 3 ] && exit 3; exec sleep 30' ||
    fail "the failing job's JOB_END"
  grep -q 'NON-ZERO TERMINATION exit 3 failed rank 3' "$work/tool.out" || fail "no exit 3 in JOB_END"
  [[ $(($(date +%s) - start)) -lt 15 ]] || fail "the failing job took too long to end"
  left=$(job_procs)
  [[ -z $left ]] || fail "the failed job's processes are still there: $left"
  tool run 1 1 0 4 "$HELLO" 4 || fail "the DVM did not run the next job"
  kill -TERM "$DVM_PID"
  expect_stopped 143 ""
  ;;
killed)
  start_dvm --host "$hosts"
  start=$(date +%s)
  tool run 1 1 137s@3 4 /bin/sh -c '[ "$PMIX_RANK" = 3 ] && kill -KILL $$; exec sleep 30' ||
    fail "the killed job's JOB_END"
  [[ $(($(date +%s) - start)) -lt 15 ]] || fail "the killed job took too long to end"
  [[ -z $(job_procs) ]] || fail "the killed job's processes are still there: $(job_procs)"
  tool run 1 1 3a@3 4 "$(dirname "$HELLO")/abort" || fail "the aborted job's JOB_END"
  [[ -z $(job_procs) ]] || fail "the aborted job's processes are still there: $(job_procs)"
  grep 'PMIx_Abort' "$work/dvm.err" | sed 's/^/dvm| /'
  tool run 1 1 0 4 "$HELLO" 4 || fail "the DVM did not run the next job"
  tool stop || fail "stop by job control"
  expect_stopped 0 ""
  ;;
stop | daemon_lost)
  start_dvm --host "$hosts"
  timeout 60 "$TOOL" run 1 1 0 4 /bin/sleep 30 >"$work/sleeper.out" 2>&1 &
  sleeper=$!
  timeout 20 bash -c "until [[ \$(pgrep -x sleep -P \$(pgrep -d, -f '$bin/pmixd') | wc -l) -ge 4 ]]; do sleep 0.05; done" ||
    die "the sleeping job did not start on both nodes"
  kids=$(job_procs)
  if [[ $case == stop ]]; then
    stop_cli
    expect_stopped 0 "$kids"
  else
    for p in $(ip netns pids "${prefix}n1"); do
      [[ $(cat /proc/$p/comm 2>/dev/null) == pmixd ]] && killed=$p && kill -9 "$p"
    done
    expect_stopped 137 "$kids" "$killed"
    grep -q "the daemon of node 1 (${prefix}n1) died" "$work/dvm.err" || fail "no message naming it"
  fi
  timeout 10 bash -c "while kill -0 $sleeper 2>/dev/null; do sleep 0.05; done" || kill -9 "$sleeper"
  grep 'JOB_END' "$work/sleeper.out" | sed 's/^/sleeper| /'
  grep -q 'JOB_END KILLED BY COMMAND exit 143' "$work/sleeper.out" ||
    fail "the running job's tool got no JOB_END (killed by command, 143)"
  ;;
daemons)
  start_dvm --host "$hosts"
  mkdir -p "$work/marks"
  timeout 60 "$TOOL" run 1 1 0 4 "$DAEMONS" node-member "$work/marks/stop" >"$work/job.out" 2>&1 &
  job=$!
  timeout 20 bash -c "until [[ \$(grep -c '' <<<\"\$(ip netns pids ${prefix}n0; ip netns pids ${prefix}n1)\") -ge 6 ]]; do sleep 0.1; done" ||
    fail "the job of 4 did not start"
  echo "+ debug_daemons tool-nodes (target pmix-dvm.$DVM_PID.1)"
  DBG_TARGET_NS="pmix-dvm.$DVM_PID.1" timeout -s KILL 40 "$DAEMONS" tool-nodes "$DVM_PID" \
    "$work/marks/stop" >"$work/daemons.out" 2>&1 || fail "the daemons' tool failed"
  sed 's/^/daemons| /' "$work/daemons.out"
  grep -q "^tool-nodes ok" "$work/daemons.out" || fail "daemons' tool: no summary"
  touch "$work/marks/stop"
  timeout 30 bash -c "while kill -0 $job 2>/dev/null; do sleep 0.05; done" || kill -9 "$job"
  wait "$job" || fail "the job's tool failed"
  sed 's/^/job| /' "$work/job.out"
  grep -q "dvm_tool: run ok" "$work/job.out" || fail "the job did not end well"
  grep "node-daemon .* on ${prefix}n" "$work/dvm.out" | sed 's/^/dvm| /'
  for node in 0 1; do
    m=$(grep -c "^\[.*\] node-daemon .* on ${prefix}n$node: " "$work/dvm.out")
    [ "$m" -eq 4 ] || fail "$m daemons on node $node, want 4"
  done
  # The DVM prints every job's output ([job.rank] prefix); its tool gets its own jobs' too.
  n=$(grep -c "^\[.*\] node-daemon ok$" "$work/dvm.out")
  [ "$n" -eq 8 ] || fail "$n daemons ok, want 8 (2 per node, 4 per process, 2 co-spawned)"
  tool stop || fail "dvm_tool stop failed"
  expect_stopped 0 ""
  ;;
debugger | debugger_abort)
  start_dvm --host "$hosts"
  program=("$HELLO" 4) want=0
  [[ $case == debugger_abort ]] && program=("$(dirname "$HELLO")/abort") want=3
  echo "+ pmix-debugger -n 4 ${program[*]}"
  timeout 20 "$DAEMONS" -n 4 "${program[@]}" >"$work/dbg.out" 2>&1
  rc=$?
  sed 's/^/debugger| /' "$work/dbg.out"
  [[ $rc == "$want" ]] || { fail "pmix-debugger exited $rc, want $want"; sed "s/^/dvm| /" "$work/dvm.out" "$work/dvm.err" | tail -30; }
  grep -q "^pmix-debugger: proc table of .* (4 processes)" "$work/dbg.out" || fail "no table of 4"
  [[ $(grep -c "^  rank [0-3]  host ${prefix}n[01] .* pid [0-9]" "$work/dbg.out") == 4 ]] ||
    fail "not 4 table rows"
  [[ $(grep "^  rank [0-3]  host " "$work/dbg.out" | awk '{print $4}' | sort -u | wc -l) == 2 ]] ||
    fail "the table does not list 2 nodes"
  grep -q "^pmix-debugger: job .* ended, exit code $want" "$work/dbg.out" || fail "no JOB_END line"
  timeout 20 "$bin/pmix-dvm" --stop --pid "$DVM_PID" >/dev/null 2>&1 || fail "pmix-dvm --stop failed"
  expect_stopped 0 ""
  grep "pmix-debugger daemon" "$work/dvm.out" | sed 's/^/dvm| /'
  n=$(grep -c "pmix-debugger daemon .*: target .*, its processes on this node: \(0,1\|2,3\)$" "$work/dvm.out")
  [[ $n == 2 ]] || fail "$n daemons saw their node's 2 ranks, want 2"
  if [[ $case == debugger ]]; then
    [[ $(grep -c "hello from rank [0-3] of 4" "$work/dvm.out") == 4 ]] || fail "not 4 hellos after the release"
  fi
  ;;
stops)
  start_dvm --host "$hosts"
  for stop in exec init app; do
    mkdir -p "$work/marks-$stop"
    echo "+ debug_stop tool $stop"
    timeout -s KILL 40 "$DAEMONS" tool "$DVM_PID" "$stop" "$work/marks-$stop" >"$work/stop.out" 2>&1 ||
      fail "debug_stop tool $stop failed"
    sed 's/^/tool| /' "$work/stop.out"
    grep -q "^debug_stop: $stop ok" "$work/stop.out" || fail "tool $stop: no summary"
  done
  # A rank of a DVM job spawns 4 processes held in init over both nodes and releases them itself
  # (tests/multinode/xnode_spawn_stop.c).
  mkdir -p "$work/marks-rank"
  tool run 1 1 0 2 "$bin/xnode_spawn_stop" init "$DAEMONS" "$work/marks-rank" ||
    fail "a rank's spawn held in init"
  grep 'rank 1: \(ok\|FAIL\|READY\)' "$work/dvm.out" | sed 's/^/dvm| /'
  grep -q "rank 1: ok every process went on after the release" "$work/dvm.out" ||
    fail "a rank's spawn held in init: not released on every node"
  grep -q "FAIL " "$work/dvm.out" && fail "a check of xnode_spawn_stop failed"
  q=$(timeout 20 "$bin/pmix-query" --pid "$DVM_PID" PMIX_QUERY_DEBUG_SUPPORT PMIX_QUERY_SPAWN_SUPPORT 2>&1)
  echo "$q" | sed 's/^/query| /'
  for key in pmix.dbg.init pmix.dbg.exec pmix.dbg.notify; do
    [[ $(grep -c "$key" <<<"$q") == 2 ]] || fail "debug and spawn support do not both name $key"
  done
  timeout 20 "$bin/pmix-dvm" --stop --pid "$DVM_PID" >/dev/null 2>&1 || fail "pmix-dvm --stop failed"
  expect_stopped 0 ""
  ;;
cospawn_stops|cospawn_appstops)
  [[ $case == cospawn_appstops ]] && export CS_STOP_IN_APP=1  # the stop in the app's own info
  start_dvm --host "$hosts"
  mkdir -p "$work/marks"
  echo "+ cospawn_stops tool $DVM_PID"
  timeout -s KILL 60 "$TOOL" tool "$DVM_PID" "$work/marks" "$DAEMONS" >"$work/cs.out" 2>&1 ||
    fail "cospawn_stops tool failed"
  sed 's/^/tool| /' "$work/cs.out"
  grep -q "^cospawn_stops: ok" "$work/cs.out" || fail "cospawn_stops: no summary"
  grep "node-daemon" "$work/dvm.out" | sed 's/^/dvm| /'
  for node in 0 1; do
    n=$(grep -c "^\[.*\] node-daemon .* on ${prefix}n$node: target .*, here ranks [0-9],[0-9]$" "$work/dvm.out")
    [[ $n == 1 ]] || fail "$n daemons on node $node saw 2 targets, want 1"
  done
  timeout 20 "$bin/pmix-dvm" --stop --pid "$DVM_PID" >/dev/null 2>&1 || fail "pmix-dvm --stop failed"
  expect_stopped 0 ""
  ;;
appstops_fwd)  # 2nd argument: tests/tools/app_stops
  start_dvm --host "$hosts"
  mkdir -p "$work/marks"
  echo "+ app_stops tool $DVM_PID fwd"
  timeout -s KILL 60 "$TOOL" tool "$DVM_PID" "$work/marks" fwd >"$work/as.out" 2>&1 ||
    fail "app_stops tool failed"
  sed 's/^/tool| /' "$work/as.out"
  grep -q "^app_stops: ok" "$work/as.out" || fail "app_stops: no summary"
  for r in 0 1; do
    n=$(grep -c "^app-stops-line fwd $r\$" "$work/as.out")
    [[ $n == 1 ]] || fail "rank $r's line reached the tool $n times (want 1)"
  done
  timeout 20 "$bin/pmix-dvm" --stop --pid "$DVM_PID" >/dev/null 2>&1 || fail "pmix-dvm --stop failed"
  expect_stopped 0 ""
  n=$(cat "$work/dvm.out" "$work/dvm.err" | grep -c 'app-stops-line fwd')
  [[ $n == 0 ]] || fail "the head printed $n of the lines forwarded to the tool"
  ;;
*) die "unknown case $case" ;;
esac
bash "$netns" destroy "$prefix"
[ "$(ip netns list | grep -c "^$prefix")" -eq 0 ] || fail "namespaces left"
[ "$fails" -eq 0 ] && echo "PASS: dvm $case on 2 simulated nodes"
exit $((fails > 0))
