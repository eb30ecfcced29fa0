#!/usr/bin/env bash
# tests/tools/fork_agent.sh PMIXRUN CHECK FEA CASE - the Standard's fork/exec agent
# (launcher/fork_agent.h) with the example agent examples/fork_agent.c (FEA) and
# fork_agent_check.cpp (CHECK). CASE:
#  main:  pmixrun --fork-agent FEA -n 3: every rank ran, started by its agent (the agent is the
#         app's parent), sees size 3, local ranks 0..2, local size 3, peers 0,1,2 (no agent
#         counted); each agent connected back as rank r of its own debugger namespace (not the
#         application's), which PMIX_QUERY_NAMESPACES lists; the proc table gives the app's
#         pid, not the agent's; --wdir reaches the app; the app's exit code 7 is pmixrun's
#  fail:  an agent that ends without connecting back (exit 0; killed by SIGKILL): the job fails
#         at once with a message naming the agent, no hang
#  spawn: a tool of pmixrun --dvm spawns 2 apps with PMIX_FORKEXEC_AGENT (required) and
#         PMIX_NOTIFY_COMPLETION: the apps ran through their agents, JOB_END carries exit code 7
set -u
PMIXRUN=$1 CHECK=$2 FEA=$3 CASE=$4
export TMPDIR=$(mktemp -d /tmp/pmix-fea.XXXXXX)
DIR=$TMPDIR/out
mkdir -p "$DIR/work"
unset PMIX_SYSTEM_TMPDIR
DVM_PID=
cleanup() {
  if [[ -n $DVM_PID ]] && kill -0 "$DVM_PID" 2>/dev/null; then
    kill -TERM "$DVM_PID" 2>/dev/null; sleep 1; kill -9 "$DVM_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

run() {  # pmixrun (30 s at most), output in $DIR/run.out / run.err, status in $rc
  timeout 30 "$PMIXRUN" "$@" > "$DIR/run.out" 2> "$DIR/run.err"
  rc=$?
  sed 's/^/run| /' "$DIR/run.out" "$DIR/run.err"
}

# Checks the records of app job $1 (N ranks): each rank's view of its job and its agent.
check_ranks() {
  local nspace=$1 n=$2 wdir=${3:-} r size lrank lsize peers pid ppid names cwd fns frank fpid
  local tns trank apid tpid
  local want_peers
  want_peers=$(seq -s, 0 $((n - 1)))
  for ((r = 0; r < n; ++r)); do
    [[ -s $DIR/app.$nspace.$r ]] || fail "rank $r of $nspace did not report"
    [[ -s $DIR/fea.$nspace.$r ]] || fail "no agent started rank $r of $nspace"
    read -r size lrank lsize peers pid ppid names cwd tpid < "$DIR/app.$nspace.$r"
    [[ $tpid == "$pid" ]] || fail "the proc table gives pid $tpid for rank $r ($pid)"
    [[ -z $wdir || $cwd == "$wdir" ]] || fail "rank $r ran in $cwd, not $wdir"
    read -r fns frank fpid tns trank apid < "$DIR/fea.$nspace.$r"
    [[ $size == "$n" && $lsize == "$n" && $lrank == "$r" && $peers == "$want_peers" ]] ||
      fail "rank $r sees size $size, local rank $lrank, local size $lsize, peers $peers"
    [[ $tns == "$nspace" && $trank == "$r" ]] || fail "agent $fns:$frank targeted $tns:$trank"
    [[ $fns != "$nspace" ]] || fail "agent of rank $r is in the application's namespace"
    [[ $frank == "$r" ]] || fail "agent of rank $r is rank $frank of $fns"
    [[ $apid == "$pid" && $ppid == "$fpid" ]] ||
      fail "rank $r (pid $pid, parent $ppid) was not started by its agent ($fpid, said $apid)"
    [[ ,$names, == *,"$fns",* ]] || fail "namespaces '$names' lack the agents' $fns"
  done
}

case_main() {
  run --fork-agent "$FEA --record $DIR" -n 3 --wdir "$DIR/work" "$CHECK" app "$DIR" 0
  [[ $rc == 0 ]] || fail "pmixrun --fork-agent exited $rc"
  local nspace
  nspace=$(ls "$DIR" | sed -n 's/^app\.\(.*\)\.0$/\1/p')
  [[ -n $nspace ]] || fail "no report of rank 0"
  check_ranks "$nspace" 3 "$DIR/work"
  rm -f "$DIR"/app.* "$DIR"/fea.*
  run --fork-agent "$FEA --record $DIR" -n 2 "$CHECK" app "$DIR" 7
  [[ $rc == 7 ]] || fail "the app exited 7 through its agent; pmixrun exited $rc"
}

case_fail() {
  local start agent
  start=$(date +%s)
  run --fork-agent /bin/true -n 2 "$CHECK" app "$DIR" 0
  [[ $rc != 0 && $rc != 124 ]] || fail "an agent that never connected: pmixrun exited $rc"
  grep -q "fork/exec agent .* without connecting back as a tool" "$DIR/run.err" ||
    fail "no message about the agent that never connected"
  agent=$DIR/die.sh
  printf '#!/bin/sh\nkill -9 $$\n' > "$agent" && chmod +x "$agent"
  run --fork-agent "$agent" -n 2 "$CHECK" app "$DIR" 0
  [[ $rc == 137 ]] || fail "an agent killed by SIGKILL: pmixrun exited $rc, not 137"
  grep -q "ended (signal 9) without connecting back" "$DIR/run.err" ||
    fail "no message about the killed agent"
  (($(date +%s) - start < 20)) || fail "failing agents took $(($(date +%s) - start)) s"
  ls "$DIR"/app.* > /dev/null 2>&1 && fail "an app ran without its agent"
}

case_spawn() {
  "$PMIXRUN" --dvm --report-uri "$DIR/uri" > "$DIR/dvm.out" 2> "$DIR/dvm.err" &
  DVM_PID=$!
  timeout 10 bash -c "until [[ -s '$DIR/uri' ]]; do sleep 0.05; done" || fail "no DVM in 10 s"
  timeout 40 "$CHECK" spawner "$DIR" "$FEA --record $DIR" 2 7 > "$DIR/spawner.out" 2>&1
  local code=$? nspace
  sed 's/^/spawner| /' "$DIR/spawner.out"
  nspace=$(sed -n 's/^spawned \([^ ]*\) SUCCESS$/\1/p' "$DIR/spawner.out")
  [[ $code == 0 && -n $nspace ]] || fail "spawn through an agent: exit $code"
  grep -q "^job_end $nspace NON-ZERO TERMINATION 7$" "$DIR/spawner.out" ||
    fail "JOB_END does not carry the app's exit code 7"
  check_ranks "$nspace" 2
  timeout 20 "$PMIXRUN" --dvm-stop --pid "$DVM_PID" > /dev/null 2>&1
  timeout 20 bash -c "while kill -0 $DVM_PID 2>/dev/null; do sleep 0.05; done" ||
    fail "the DVM did not stop"
  wait "$DVM_PID" 2>/dev/null
  DVM_PID=
}

case $CASE in
main) case_main ;;
fail) case_fail ;;
spawn) case_spawn ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS: fork_agent $CASE"
