#!/bin/bash
# One pmixrun integration case: run_case.sh CASE PMIXRUN BINDIR SUFFIX [N]
#   PMIXRUN  the launcher under test; BINDIR holds the examples; SUFFIX is "" (our libpmix) or
#   "-openpmix" (Debian's OpenPMIx). Every case runs real processes under an outer timeout, then
#   checks that nothing is left behind: no process carrying this run's tag, no files in its TMPDIR,
#   no shared-memory segment of its store (our server names them with PMIX_CPP_GDS_PREFIX).
set -u
CASE=$1 PMIXRUN=$2 BINDIR=$3 SUFFIX=$4 N=${5:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmixrun-it.XXXXXX")
TAG="it.$$.$RANDOM"
SHM_PREFIX="pmixit-$$-$RANDOM"
OUT=$WORK/out ERR=$WORK/err
mkdir "$WORK/tmp"
fails=0
cleanup() {
  # kill anything of ours that is still around, then remove the scratch space
  for p in $(grep -lsa "PMIXRUN_TEST_TAG=$TAG" /proc/[0-9]*/environ | cut -d/ -f3); do
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ex() { echo "$BINDIR/$1$SUFFIX"; }

# pmixrun [args...]: runs the launcher with this run's tag and TMPDIR; sets RC.
pmixrun() {
  env PMIXRUN_TEST_TAG="$TAG" TMPDIR="$WORK/tmp" PMIX_CPP_GDS_PREFIX="/$SHM_PREFIX" timeout -s KILL 90 "$PMIXRUN" "$@" >"$OUT" 2>"$ERR"
  RC=$?
  echo "--- pmixrun $* -> $RC"; echo "--- stdout:"; cat "$OUT"; echo "--- stderr:"; cat "$ERR"
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1"; }
expect_out() { grep -q -- "$1" "$OUT" || fail "stdout lacks '$1'"; }
expect_err() { grep -q -- "$1" "$ERR" || fail "stderr lacks '$1'"; }
# every rank r < N printed "[r] <text>" exactly once
expect_each_rank() {
  local r c
  for ((r = 0; r < N; r++)); do
    c=$(grep -c -- "^\[$r\] $1" "$OUT")
    [ "$c" -eq 1 ] || fail "rank $r printed '$1' $c times"
  done
}
expect_ranks_except() {  # $1 = skipped rank, $2 = text
  local r
  for ((r = 0; r < N; r++)); do
    [ "$r" -eq "$1" ] && continue
    grep -q -- "^\[$r\] $2" "$OUT" || fail "rank $r did not print '$2'"
  done
}

case $CASE in
  hello)
    pmixrun -n "$N" "$(ex hello)" "$N"
    expect_rc 0
    for ((r = 0; r < N; r++)); do expect_out "^\[$r\] hello from rank $r of $N "; done ;;
  putget)
    pmixrun -n "$N" "$(ex putget)"
    expect_rc 0; expect_each_rank "putget: rank [0-9]* checked 2 keys of $N/$N ranks" ;;
  modex_rounds)  # 1,000 randomized rounds of puts and collecting fences on one node, checked
    seed=$(( (RANDOM << 15) | RANDOM | 1 )); echo "seed $seed"
    rounds=${PMIX_TEST_MODEX_ROUNDS:-1000}  # fewer under the sanitizers (CMakeLists.txt)
    pmixrun -n "$N" "$(ex modex_rounds)" "$rounds" "$seed"
    expect_rc 0; expect_each_rank "modex_rounds: rank [0-9]* checked [1-9][0-9]* values in $rounds rounds" ;;
  fence_subset)
    pmixrun -n "$N" "$(ex fence_subset)"
    expect_rc 0; expect_each_rank "fence_subset: rank [0-9]* fenced with" ;;
  publish_lookup)
    pmixrun -n "$N" "$(ex publish_lookup)"
    expect_rc 0
    expect_each_rank "publish_lookup: rank [0-9]* looked up publish_lookup.service: tcp://example:4242"
    expect_each_rank "publish_lookup: rank [0-9]* after unpublish" ;;
  abort)
    pmixrun -n "$N" "$(ex abort)"
    expect_rc 3; expect_err "rank $((N - 1)) called PMIx_Abort(status 3" ;;
  killed)
    pmixrun -n "$N" "$(ex killed)"
    expect_rc 137; expect_err "rank 1 (pid [0-9]*) was killed by signal 9"
    expect_ranks_except 1 "killed: rank [0-9]*: fence failed as expected" ;;
  events)
    pmixrun -n "$N" "$(ex events)"
    expect_rc 0; expect_out "^\[0\] events: rank 0 ok (notified)"
    for ((r = 1; r < N; r++)); do expect_out "^\[$r\] events: rank $r ok (got code -3007 from rank 0"; done ;;
  spawn_fence)
    # the parents spawn 2 children; all fence over both namespaces and read each other's keys
    pmixrun -n "$N" "$(ex spawn_fence)" 2
    expect_rc 0; expect_each_rank "spawn_fence: parent rank [0-9]* ok (read child-0)"
    for r in 0 1; do expect_out "^\[1\.$r\] spawn_fence: child rank $r ok (read parent-0)"; done ;;
  rogue)
    # The server's reasons for closing the rogue connections are warnings (PMIX_CPP_LOG, README).
    export PMIX_CPP_LOG=warn
    pmixrun -n "$N" "$(ex rogue)"
    unset PMIX_CPP_LOG
    expect_rc 0; expect_each_rank "rogue: rank [0-9]* ok (read $N peers"
    expect_out "server closed 4 of 4 raw connections"
    expect_err "connection closed (bad frame): bad magic"
    expect_err "payload of 4294967295 bytes exceeds the limit"
    expect_err "truncated frame" ;;
  query_log)
    pmixrun -n "$N" "$(ex query_log)"
    expect_rc 0; expect_each_rank "query_log: rank [0-9]*: job size $N"
    expect_err "pmixrun: log from .*:0: query_log says hello to the host" ;;
  options)
    pmixrun; expect_rc 2; expect_err "no program given"
    pmixrun -n 0 true; expect_rc 2; expect_err "bad process count"
    pmixrun -n; expect_rc 2; expect_err "needs a number"
    pmixrun -n 2 --bogus true; expect_rc 2; expect_err "unknown option '--bogus'"
    pmixrun --timeout soon true; expect_rc 2; expect_err "bad timeout"
    pmixrun -x true; expect_rc 2
    pmixrun --help; expect_rc 0; expect_out "usage: pmixrun" ;;
  hosts)  # multi-node options, refused before any daemon starts (or when none can start)
    pmixrun --host a:0 true; expect_rc 2; expect_err "bad slot count"
    pmixrun --host a,b,a true; expect_rc 2; expect_err "given twice"
    pmixrun --host a:1,b:1 -n 3 true; expect_rc 2; expect_err "3 processes do not fit in the 2 slots"
    pmixrun --hostfile "$WORK/no-such-hostfile" true; expect_rc 2; expect_err "cannot read hostfile"
    printf 'a slots=2\nb bogus\n' >"$WORK/hostfile"
    pmixrun --hostfile "$WORK/hostfile" true; expect_rc 2; expect_err "hostfile:2: unexpected 'bogus'"
    pmixrun --host a:1 --launch-agent "$WORK/no-such-agent" true; expect_rc 1
    expect_err "cannot run launch agent"; expect_err "the daemon of node a did not start" ;;
  missing)
    pmixrun -n 2 "$WORK/no-such-program"; expect_rc 127; expect_err "cannot find program"
    pmixrun -n 2 pmixrun-no-such-program-on-path; expect_rc 127
    # found and executable, but its exec fails (no such interpreter): the job ends, named
    printf '#!/pmixrun-it/no-interpreter\n' >"$WORK/bad-interpreter"; chmod +x "$WORK/bad-interpreter"
    pmixrun -n 3 "$WORK/bad-interpreter"; expect_rc 127
    expect_err "cannot execute '$WORK/bad-interpreter'" ;;
  timeout)
    pmixrun -n 2 --timeout 1 sleep 60; expect_rc 124; expect_err "timeout after 1 s" ;;
  env)
    export PMIXRUN_IT_FROM_HERE="from here"
    pmixrun -n "$N" -x PMIXRUN_IT_FROM_HERE -x PMIXRUN_IT_GIVEN=given "$(ex envcheck)" \
      PMIXRUN_IT_FROM_HERE PMIXRUN_IT_GIVEN PMIX_RANK PMIX_NAMESPACE
    expect_rc 0
    expect_each_rank "PMIXRUN_IT_FROM_HERE=from here"; expect_each_rank "PMIXRUN_IT_GIVEN=given"
    for ((r = 0; r < N; r++)); do expect_out "^\[$r\] PMIX_RANK=$r$"; done
    # the ranks start in pmixrun's working directory
    cd "$WORK" && pmixrun -n "$N" sh -c pwd && cd - >/dev/null
    expect_rc 0; expect_each_rank "$WORK" ;;
  status)
    # rank r exits with r, before any PMIx: the worst status wins and the job is reported failed
    pmixrun -n 3 sh -c 'exit $PMIX_RANK'; expect_rc 2; expect_err "exited with status" ;;
  output)
    pmixrun -n "$N" sh -c 'echo "out $PMIX_RANK"; echo "err $PMIX_RANK" >&2; printf "tail"'
    expect_rc 0
    for ((r = 0; r < N; r++)); do
      expect_out "^\[$r\] out $r$"; expect_out "^\[$r\] tail$"
      grep -q "^\[$r\] err $r$" "$ERR" || fail "stderr lacks '[$r] err $r'"
    done ;;
  *) fail "unknown case $CASE" ;;
esac

sleep 0.2
left=$(grep -lsa "PMIXRUN_TEST_TAG=$TAG" /proc/[0-9]*/environ | wc -l)
[ "$left" -eq 0 ] || fail "$left process(es) left behind"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "files left in TMPDIR: $(ls -A "$WORK/tmp")"
shm_left=$(ls /dev/shm | grep -c "^$SHM_PREFIX")
[ "$shm_left" -eq 0 ] || { fail "$shm_left shared-memory segment(s) left: /dev/shm/$SHM_PREFIX*"; rm -f /dev/shm/"$SHM_PREFIX"*; }
if [ "$fails" -ne 0 ]; then echo "$CASE: $fails failure(s)"; exit 1; fi
echo "$CASE: OK"
