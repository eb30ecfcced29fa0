#!/usr/bin/env bash
# tests/tools/agents.sh PMIXRUN AGENTS AGENT_SH FEA CASE - the working directory and the agents a
# launcher starts processes with (launcher/start_as.cpp, fork_agent.h); AGENTS is agents.cpp,
# AGENT_SH the test exec agent (agent.sh), FEA the example fork/exec agent (fork_agent.c). CASE:
#  main:  pmixrun's own job: --wdir DIR (every rank's getcwd is DIR, also as -wdir and with a
#         relative program found there); a missing --wdir fails naming the directory, exit 2;
#         --exec-agent: the agent ran with the rank's PMIx environment and became the rank;
#         --fork-agent: the agent connected back as a tool of its own namespace and started the
#         rank (its parent); both ranks passed PMIx_Init and a fence; --timeout ends the app a
#         fork agent started as well
#  spawn: PMIx_Spawn from a client of pmixrun: app.cwd, PMIX_WDIR, a missing cwd
#         (PMIX_ERR_JOB_WDIR_NOT_FOUND), PMIX_FORKEXEC_AGENT, PMIX_EXEC_AGENT, and the spawn /
#         debug support queries naming them
#  dvm:   the same spawns from a tool of pmixrun --dvm, and --dvm --wdir as every job's default
set -u
PMIXRUN=$1 PROG=$2 AGENT_SH=$3 FEA_BIN=$4 CASE=$5
AGENT="/bin/bash $AGENT_SH"
export TMPDIR=$(mktemp -d /tmp/pmix-agents.XXXXXX)
DIR=$TMPDIR/out
FEA="$FEA_BIN --record $DIR"
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

# Runs pmixrun (40 s at most) with its output in $DIR/run.out / run.err; its status in $rc.
run() {
  timeout 40 "$PMIXRUN" "$@" > "$DIR/run.out" 2> "$DIR/run.err"
  rc=$?
  sed 's/^/run| /' "$DIR/run.out" "$DIR/run.err"
}

# The hello reports of pmixrun's own job (its nspace is the one file prefix there): rank, cwd,
# pid, ppid per line.
main_reports() {
  local f
  for f in "$DIR"/hello.*; do
    [[ -e $f ]] || continue
    echo "${f##*.} $(cat "$f")"
  done
}

case_main() {
  run -n 2 --wdir "$DIR/work" "$PROG" hello "$DIR"
  [[ $rc == 0 ]] || fail "--wdir: pmixrun exited $rc"
  [[ $(main_reports | awk -v w="$DIR/work" '$2 == w' | wc -l) == 2 ]] ||
    fail "--wdir: not every rank ran in $DIR/work: $(main_reports)"
  rm -f "$DIR"/hello.*
  mkdir -p "$DIR/work/bin" && cp "$PROG" "$DIR/work/bin/prog"
  run -n 1 -wdir "$DIR/work" ./bin/prog hello "$DIR"
  [[ $rc == 0 && $(main_reports | awk '{print $2}') == "$DIR/work" ]] ||
    fail "-wdir with ./bin/prog: exit $rc, $(main_reports)"
  rm -f "$DIR"/hello.*
  run -n 1 --wdir "$DIR/missing" "$PROG" hello "$DIR"
  [[ $rc == 2 ]] || fail "a missing --wdir: exit $rc, not 2"
  grep -q "directory '$DIR/missing': No such file or directory" "$DIR/run.err" ||
    fail "a missing --wdir: the message does not name it"
  local agents r apid hpid hppid fns fpid tns trank app_pid
  rm -f "$DIR"/hello.* "$DIR"/agent.*
  run -n 2 --exec-agent "$AGENT exec $DIR" "$PROG" hello "$DIR"
  [[ $rc == 0 ]] || fail "--exec-agent: pmixrun exited $rc"
  agents=$(cat "$DIR"/agent.* 2>/dev/null | awk '$1 == "exec" && $3 ~ /^[01]$/' | wc -l)
  [[ $agents == 2 ]] || fail "--exec-agent: $agents agent records with a rank, not 2"
  [[ $(main_reports | wc -l) == 2 ]] || fail "--exec-agent: ranks did not pass the fence"
  for r in 0 1; do
    apid=$(awk '{print $4}' "$DIR"/agent.*."$r")
    read -r _ _ hpid hppid <<< "$(main_reports | awk -v r=$r '$1 == r')"
    [[ $hpid == "$apid" ]] || fail "exec agent $apid did not become rank $r ($hpid)"
  done
  rm -f "$DIR"/hello.* "$DIR"/fea.*
  run -n 2 --fork-agent "$FEA" "$PROG" hello "$DIR"
  [[ $rc == 0 ]] || fail "--fork-agent: pmixrun exited $rc"
  [[ $(main_reports | wc -l) == 2 ]] || fail "--fork-agent: ranks did not pass the fence"
  for r in 0 1; do
    local nspace
    nspace=$(ls "$DIR" | sed -n "s/^hello\.\(.*\)\.$r\$/\1/p")
    read -r _ _ hpid hppid <<< "$(main_reports | awk -v r=$r '$1 == r')"
    read -r fns _ fpid tns trank app_pid < "$DIR/fea.$nspace.$r"
    [[ $fns != "$nspace" && $tns == "$nspace" && $trank == "$r" ]] ||
      fail "fork agent of rank $r: namespace $fns, target $tns:$trank"
    [[ $hppid == "$fpid" && $hpid == "$app_pid" ]] ||
      fail "fork agent $fpid did not start rank $r ($hpid, parent $hppid)"
  done
  # --timeout ends what a fork agent started too (its process group), not only the agent.
  local nap="29.$$"
  timeout -s KILL 20 "$PMIXRUN" --timeout 1 -n 2 --fork-agent "$FEA" sleep "$nap" \
    > /dev/null 2> "$DIR/run.err"
  rc=$?
  [[ $rc == 124 ]] || fail "--timeout with a fork agent: exit $rc, not 124 (the job's sleep kept it)"
  timeout 10 bash -c "while pgrep -f '^sleep $nap' > /dev/null; do sleep 0.1; done" ||
    fail "the app a fork agent started outlived its job"
  run -n 1 --exec-agent /no/such/agent "$PROG" hello "$DIR"
  [[ $rc == 127 ]] && grep -q "/no/such/agent" "$DIR/run.err" ||
    fail "a missing agent: exit $rc, or not named"
}

spawner() {  # CASE [tool]: agents spawner, 40 s at most
  timeout 40 "$PROG" spawner "$DIR" "$@" > "$DIR/spawner.out" 2>&1
  local code=$?
  sed 's/^/spawner| /' "$DIR/spawner.out"
  [[ $code == 0 ]] && grep -q "^agents: $1 ok" "$DIR/spawner.out"
}

case_spawn() {
  local which
  local agent
  for which in cwd wdir badcwd fork fork-std exec support; do
    agent=$AGENT
    [[ $which == fork* ]] && agent=$FEA
    run -n 1 "$PROG" spawner "$DIR" "$which" "$agent"
    [[ $rc == 0 ]] && grep -q "^\[0\] agents: $which ok" "$DIR/run.out" ||
      fail "spawn $which: pmixrun exited $rc"
  done
}

start_dvm() {
  "$PMIXRUN" --dvm --report-uri "$DIR/uri" "$@" > "$DIR/dvm.out" 2> "$DIR/dvm.err" &
  DVM_PID=$!
  timeout 10 bash -c "until [[ -s '$DIR/uri' ]]; do sleep 0.05; done" || fail "no DVM in 10 s"
}

stop_dvm() {
  timeout 20 "$PMIXRUN" --dvm-stop --pid "$DVM_PID" > /dev/null 2>&1
  timeout 20 bash -c "while kill -0 $DVM_PID 2>/dev/null; do sleep 0.05; done" ||
    fail "the DVM did not stop"
  wait "$DVM_PID" 2>/dev/null
  DVM_PID=
  rm -f "$DIR/uri"
}

case_dvm() {
  local which
  start_dvm
  for which in cwd badcwd exec support; do
    spawner "$which" "$AGENT" tool || fail "dvm spawn $which"
  done
  spawner fork "$FEA" tool || fail "dvm spawn fork"
  stop_dvm
  # --wdir with --dvm: every spawned job's directory unless the spawn names one.
  rm -f "$DIR"/hello.*
  start_dvm --wdir "$DIR/work"
  spawner fork "$FEA" tool || fail "dvm --wdir spawn"
  grep -q "^$DIR/work " "$DIR"/hello.*.0 || fail "dvm --wdir: the job ran elsewhere"
  stop_dvm
}

case $CASE in
main) case_main ;;
spawn) case_spawn ;;
dvm) case_dvm ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS: agents $CASE"
