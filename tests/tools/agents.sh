#!/usr/bin/env bash
# tests/tools/agents.sh PMIXRUN AGENTS AGENT_SH CASE - the working directory and the agents a
# launcher starts processes with (launcher/start_as.cpp); AGENTS is agents.cpp, AGENT_SH the test
# agent (agent.sh). CASE:
#  main:  pmixrun's own job: --wdir DIR (every rank's getcwd is DIR, also as -wdir and with a
#         relative program found there); a missing --wdir fails naming the directory, exit 2;
#         --fork-agent / --exec-agent: the agent ran with the rank's PMIx environment and
#         started the rank, which passed PMIx_Init and a fence (fork: its parent; exec: it);
#         --timeout ends the app a fork agent started as well
#  spawn: PMIx_Spawn from a client of pmixrun: app.cwd, PMIX_WDIR, a missing cwd
#         (PMIX_ERR_JOB_WDIR_NOT_FOUND), PMIX_FORKEXEC_AGENT, PMIX_EXEC_AGENT, and the spawn /
#         debug support queries naming them
#  dvm:   the same spawns from a tool of pmixrun --dvm, and --dvm --wdir as every job's default
set -u
PMIXRUN=$1 PROG=$2 AGENT_SH=$3 CASE=$4
AGENT="/bin/bash $AGENT_SH"
export TMPDIR=$(mktemp -d /tmp/pmix-agents.XXXXXX)
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
  local mode pids agents
  for mode in fork exec; do
    rm -f "$DIR"/hello.* "$DIR"/agent.*
    run -n 2 --"$mode"-agent "$AGENT $mode $DIR" "$PROG" hello "$DIR"
    [[ $rc == 0 ]] || fail "--$mode-agent: pmixrun exited $rc"
    agents=$(cat "$DIR"/agent.* 2>/dev/null | awk -v m=$mode '$1 == m && $3 ~ /^[01]$/' | wc -l)
    [[ $agents == 2 ]] || fail "--$mode-agent: $agents agent records with a rank, not 2"
    [[ $(main_reports | wc -l) == 2 ]] || fail "--$mode-agent: ranks did not pass the fence"
    for r in 0 1; do
      local apid hpid hppid
      apid=$(awk '{print $4}' "$DIR"/agent.*."$r")
      read -r _ _ hpid hppid <<< "$(main_reports | awk -v r=$r '$1 == r')"
      if [[ $mode == fork ]]; then
        [[ $hppid == "$apid" ]] || fail "fork agent $apid is not rank $r's parent ($hppid)"
      else
        [[ $hpid == "$apid" ]] || fail "exec agent $apid did not become rank $r ($hpid)"
      fi
    done
  done
  # --timeout ends what a fork agent started too (its process group), not only the agent.
  local nap="29.$$"
  timeout -s KILL 20 "$PMIXRUN" --timeout 1 -n 2 --fork-agent "$AGENT fork $DIR" sleep "$nap" \
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
  for which in cwd wdir badcwd fork fork-std exec support; do
    run -n 1 "$PROG" spawner "$DIR" "$which" "$AGENT"
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
  for which in cwd badcwd fork exec support; do
    spawner "$which" "$AGENT" tool || fail "dvm spawn $which"
  done
  stop_dvm
  # --wdir with --dvm: every spawned job's directory unless the spawn names one.
  rm -f "$DIR"/hello.*
  start_dvm --wdir "$DIR/work"
  spawner fork "$AGENT" tool || fail "dvm --wdir spawn"
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
