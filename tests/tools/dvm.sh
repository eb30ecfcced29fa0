#!/usr/bin/env bash
# tests/tools/dvm.sh PMIXRUN DVM_TOOL HELLO CASE - the persistent launcher (launcher/dvm.cpp):
# pmixrun --dvm in a private TMPDIR, tools attached to it as the system server (dvm_tool.cpp).
#  one:          a job of 4 hellos, JOB_END with status 0 (started by its pmix-dvm name); a
#                second DVM refuses to start beside it
#  two_at_once:  two jobs spawned before either is waited for, both end well
#  many:         2 jobs, then 20 one after another (--output-filename: files per rank): the
#                DVM's descriptors, its /dev/shm segments and the TMPDIR entries are the same
#                count after the 20 as before
#  nonzero:      a job whose process exits 3: JOB_END with PMIX_ERR_JOB_NON_ZERO_TERM and exit
#                code 3; the DVM runs on and the next job ends well
#  stop_by_tool: PMIx_Job_control(TERMINATE) without targets (pterm's form) while a job runs:
#                the job's tool gets JOB_END (PMIX_ERR_JOB_KILLED_BY_CMD, exit 143) first
#  stop_by_cli:  pmix-dvm --stop while a job runs, the same
#  connect:      pmixrun -n 3 with every rank in PMIx_Connect / PMIx_Disconnect of its job
# Every case ends with the DVM stopped: exit 0, its jobs' processes gone, nothing of it left in
# TMPDIR or /dev/shm.
set -u
PMIXRUN=$1 TOOL=$2 HELLO=$3 CASE=$4
BIN=$(dirname "$PMIXRUN")
export TMPDIR=$(mktemp -d /tmp/pmix-dvm-test.XXXXXX)
LOGS=$(mktemp -d /tmp/pmix-dvm-logs.XXXXXX)
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
tool() {  # runs dvm_tool under a timeout, its output shown with a prefix
  timeout 40 "$TOOL" "$@" > "$LOGS/tool.out" 2>&1
  local rc=$?
  sed 's/^/tool| /' "$LOGS/tool.out"
  return $rc
}

start_dvm() {  # $1: the command's name (pmixrun --dvm or pmix-dvm), then more options
  local name=$1
  shift
  if [[ $name == pmix-dvm ]]; then
    "$BIN/pmix-dvm" --report-uri "$LOGS/uri" "$@" > "$LOGS/dvm.out" 2> "$LOGS/dvm.err" &
  else
    "$PMIXRUN" --dvm --report-uri "$LOGS/uri" "$@" > "$LOGS/dvm.out" 2> "$LOGS/dvm.err" &
  fi
  DVM_PID=$!
  timeout 10 bash -c "until [[ -s '$LOGS/uri' ]]; do sleep 0.05; done" || fail "no URI in 10 s"
  grep -q "^pmix-dvm: ready: nspace pmix-dvm.$DVM_PID " "$LOGS/dvm.out" || fail "no ready line"
  [[ -e $TMPDIR/pmix.sys.$(hostname) ]] || fail "no system rendezvous file"
}

children() {  # the DVM's child processes
  local pids=() stat
  for stat in /proc/[0-9]*/stat; do
    read -r -a f < "$stat" 2>/dev/null || continue
    [[ ${f[3]} == "$DVM_PID" ]] && pids+=("${f[0]}")
  done
  echo "${pids[@]:-}"
}

# fds of the DVM, its /dev/shm segments, TMPDIR entries (recursive)
footprint() {
  echo "fds=$(ls "/proc/$DVM_PID/fd" | wc -l) shm=$(ls /dev/shm | grep -c "^pmixgds-$DVM_PID-")" \
       "tmp=$(find "$TMPDIR" | wc -l)"
}

settled_footprint() {
  local last="" now same=0
  for _ in $(seq 1 50); do
    now=$(footprint)
    if [[ $now == "$last" ]]; then ((++same >= 2)) && break; else same=0; fi
    last=$now
    sleep 0.1
  done
  echo "$now"
}

# Waits for the DVM to exit (at most 15 s); checks its status, its children and what it left.
expect_stopped() {
  local kids=$1
  timeout 15 bash -c "while kill -0 $DVM_PID 2>/dev/null; do sleep 0.05; done" ||
    fail "the DVM is still running 15 s after the stop"
  wait "$DVM_PID"; local rc=$?
  DVM_PID_DONE=$DVM_PID
  DVM_PID=
  [[ $rc == 0 ]] || fail "the DVM exited $rc (want 0)"
  local pid
  for pid in $kids; do
    [[ -d /proc/$pid ]] && fail "job process $pid outlived the DVM"
  done
  local left
  left=$(find "$TMPDIR" -mindepth 1)
  [[ -z $left ]] || fail "left in TMPDIR: $left"
  [[ ! -e $LOGS/uri ]] || fail "the --report-uri file is still there"
  left=$(ls /dev/shm | grep "^pmixgds-$DVM_PID_DONE-")
  [[ -z $left ]] || fail "left in /dev/shm: $left"
}

stop_cli() {
  timeout 20 "$BIN/pmix-dvm" --stop > "$LOGS/stop.out" 2>&1 || {
    cat "$LOGS/stop.out"; fail "pmix-dvm --stop failed"; }
}

case $CASE in
one)
  start_dvm pmix-dvm
  timeout 10 "$PMIXRUN" --dvm > "$LOGS/second.out" 2>&1
  [[ $? == 1 ]] && grep -q "already serves" "$LOGS/second.out" ||
    fail "a second DVM did not refuse: $(cat "$LOGS/second.out")"
  tool run 1 1 0 4 "$HELLO" 4 || fail "job of 4"
  [[ $(grep -c '^\[1\.[0-3]\] hello from rank' "$LOGS/dvm.out") == 4 ]] || fail "not 4 hellos"
  stop_cli; expect_stopped ""
  ;;
two_at_once)
  start_dvm pmixrun
  tool run 2 2 0 4 "$HELLO" 4 || fail "two jobs at once"
  [[ $(grep -c 'JOB_END SUCCESS exit 0' "$LOGS/tool.out") == 2 ]] || fail "not two JOB_END"
  stop_cli; expect_stopped ""
  ;;
many)
  start_dvm pmixrun --output-filename "$LOGS/files"  # each job's files closed when it ends
  tool run 2 1 0 2 "$HELLO" 2 > /dev/null || fail "first 2 jobs"
  # The server closes a tool's connection when it sees it gone: the counts are taken once three
  # samples 0.1 s apart agree, and the later ones get up to 5 s to come back to the first.
  before=$(settled_footprint)
  tool run 20 1 0 2 "$HELLO" 2 || fail "20 jobs"
  [[ $(grep -c 'JOB_END SUCCESS exit 0' "$LOGS/tool.out") == 20 ]] || fail "not 20 JOB_END"
  for _ in $(seq 1 50); do
    after=$(footprint)
    [[ $after == "$before" ]] && break
    sleep 0.1
  done
  echo "after 2 jobs: $before; after 22: $after; $(grep VmRSS /proc/$DVM_PID/status)"
  [[ $before == "$after" ]] || fail "footprint grew: $before -> $after"
  [[ $(cat "$LOGS"/files/*.22/rank.1/stdout) == "hello from rank 1 of 2"* ]] ||
    fail "no output file of the last job"
  stop_cli; expect_stopped ""
  ;;
nonzero)
  start_dvm pmixrun
  tool run 1 1 3 2 /bin/sh -c 'exit 3' || fail "nonzero job"
  grep -q 'NON-ZERO TERMINATION exit 3' "$LOGS/tool.out" || fail "no exit 3 in JOB_END"
  tool run 1 1 0 2 "$HELLO" 2 || fail "the DVM did not run the next job"
  stop_cli; expect_stopped ""
  ;;
stop_by_tool | stop_by_cli)
  start_dvm pmixrun
  timeout 40 "$TOOL" run 1 1 0 2 /bin/sleep 30 > "$LOGS/sleeper.out" 2>&1 &
  SLEEPER=$!
  timeout 10 bash -c "until [[ \$(ls /proc/$DVM_PID/task/*/children 2>/dev/null | xargs cat | wc -w) -ge 2 ]]; do sleep 0.05; done" ||
    fail "the sleeping job did not start"
  kids=$(children)
  if [[ $CASE == stop_by_tool ]]; then
    tool stop || fail "stop by job control"
  else
    stop_cli
  fi
  expect_stopped "$kids"
  timeout 10 bash -c "while kill -0 $SLEEPER 2>/dev/null; do sleep 0.05; done" || kill -9 "$SLEEPER"
  # The stop ended the job: its tool got JOB_END (killed by command, SIGTERM's 143) first.
  grep 'JOB_END' "$LOGS/sleeper.out" | sed 's/^/sleeper| /'
  grep -q 'JOB_END KILLED BY COMMAND exit 143' "$LOGS/sleeper.out" ||
    fail "the running job's tool got no JOB_END (killed by command, 143)"
  ;;
connect)
  timeout 30 "$PMIXRUN" -n 3 --timeout 20 "$TOOL" connect > "$LOGS/job.out" 2>&1
  rc=$?
  sed 's/^/job| /' "$LOGS/job.out"
  [[ $rc == 0 ]] || fail "pmixrun exited $rc"
  [[ $(grep -c 'dvm_tool: connect ok' "$LOGS/job.out") == 3 ]] || fail "not 3 ranks connected"
  ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS: dvm $CASE"
