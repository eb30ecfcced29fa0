#!/bin/bash
# One injected-fault case: run_fault.sh CASE BINDIR
#   server_killed    pmixrun (the server) SIGKILLed at random points of a looping job, three times
#   stopped_member   a rank SIGSTOPped before a fence with PMIX_TIMEOUT (board|server: where the
#                    fence meets, PMIX_CPP_LOCAL_FENCE)
#   shm_full         /dev/shm a small tmpfs (private mount namespace): registration, commit
#   few_fds          ulimit -n 32: pmixrun with 16 ranks (pipes), 8 ranks (accepts)
#   truncated_board  a hostile rank truncates its job's fence board while the others wait on it
#   daemon_killed    a pmixd of a two-node (network namespaces) job SIGKILLed at a random point
# Every process runs under a timeout and carries this run's tag; the trap kills what is left and
# removes the segments (PMIX_CPP_GDS_PREFIX), TMPDIR and network namespaces of this run. Each
# case prints what it saw (statuses, seconds to exit, leftovers) and fails on any leftover.
set -u
CASE=$1 BIN=$2 MODE=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS="$HERE/../../scripts/netns.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmixfault.XXXXXX")
TAG="fault.$$.$RANDOM"
PREFIX="pmixflt-$$"
NSPREFIX="flt$$"
export TMPDIR="$WORK/tmp" PMIX_CPP_GDS_PREFIX="/$PREFIX" FAULT_TAG="$TAG"
mkdir -p "$TMPDIR" "$WORK/sanitizer"
# Under the asan/tsan presets every process's report goes to a file here (a killed launcher would
# take the ranks' stderr with it); any report fails the case.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$WORK/sanitizer/asan"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$WORK/sanitizer/tsan"
fails=0
# The ranks, pmixrun and pmixd of this run (not the tools of this script, which carry the tag too).
tagged() {
  local p
  for p in $(grep -lsa "FAULT_TAG=$TAG" /proc/[0-9]*/environ | cut -d/ -f3); do
    case $(cat /proc/"$p"/comm 2>/dev/null) in fault_client | pmixrun | pmixd) echo "$p" ;; esac
  done
}
cleanup() {
  for p in $(tagged); do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  if [ "$CASE" = daemon_killed ]; then
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$NSPREFIX"); do
      ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
    done
    bash "$NETNS" destroy "$NSPREFIX" >/dev/null 2>&1
  fi
  rm -f /dev/shm/"$PREFIX"-* 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# The number of /dev/shm entries whose name starts with $1.
shm_count() {
  local n=0 f
  for f in /dev/shm/"$1"*; do [ -e "$f" ] && n=$((n + 1)); done
  echo "$n"
}
segments() { shm_count "$PREFIX-"; }
tmp_entries() { ls -A "$TMPDIR" | wc -l; }
# Waits up to $1 s for every tagged process to end; prints the milliseconds it took.
wait_tagged_gone() {
  local start end
  start=$(now_ms) end=$(($(now_ms) + $1 * 1000))
  while [ -n "$(tagged)" ] && [ "$(now_ms)" -lt "$end" ]; do sleep 0.05; done
  echo $(($(now_ms) - start))
}
# Nothing of this run may be left: processes, segments, files in TMPDIR.
expect_clean() {
  local p s t
  p=$(tagged | wc -l) s=$(segments) t=$(tmp_entries)
  echo "leftovers $1: $p process(es), $s segment(s), $t TMPDIR entr(ies)"
  [ "$p" -eq 0 ] || fail "$p process(es) left: $(tagged | xargs -r ps -o pid,stat,args -p)"
  [ "$s" -eq 0 ] || fail "$s segment(s) left: $(cd /dev/shm && echo "$PREFIX"-*)"
  [ "$t" -eq 0 ] || fail "TMPDIR not empty: $(ls -A "$TMPDIR" | tr '\n' ' ')"
}
# pmixrun ARGS... in the background under a timeout; PMIXRUN_PID is pmixrun's own pid.
start_pmixrun() {
  timeout -s KILL 30 "$BIN/pmixrun" "$@" >"$WORK/pmixrun.out" 2>"$WORK/err" &
  JOB=$!
  PMIXRUN_PID=
  for _ in $(seq 1 100); do
    PMIXRUN_PID=$(pgrep -P "$JOB" -x pmixrun) && break
    sleep 0.01
  done
}
# Every rank file of directory $1 ends with a status matching $2 (an ERE); prints them.
expect_statuses() {
  local f
  for f in "$1"/rank.*; do
    [ -e "$f" ] || { fail "no rank wrote to $1"; return; }
    grep -Eq "$2" "$f" || fail "$(basename "$f"): no line matching '$2': $(cat "$f")"
  done
  cat "$1"/rank.* | grep -v finalize | sed 's/^/  /'
}
# The next server: a short job that must pass; it removes what dead servers left.
next_server() {
  mkdir -p "$WORK/next"
  PMIX_CPP_LOG=info timeout -s KILL 20 "$BIN/pmixrun" -n 2 "$BIN/fault_client" 2 64 5 "$WORK/next" \
    >"$WORK/next.out" 2>"$WORK/next.err"
  local rc=$?
  [ "$rc" -eq 0 ] || fail "the next job exited $rc: $(cat "$WORK/next.err")"
  grep -o "removed what dead servers left: .*" "$WORK/next.err" | sed 's/^/  next server: /'
}

case_server_killed() {
  # Three jobs of 4 ranks looping Put/Commit/Fence/Get, each pmixrun killed after a random
  # 0-800 ms (registration, launch, or any round); the ranks must see the loss and exit.
  local k delay took
  for k in 1 2 3; do
    mkdir -p "$WORK/out.$k"
    delay=$((RANDOM % 800))
    FAULT_PAUSE_MS=2 start_pmixrun -n 4 "$BIN/fault_client" 100000 256 0 "$WORK/out.$k"
    sleep "0.$(printf %03d $delay)"
    kill -9 "$PMIXRUN_PID"
    took=$(wait_tagged_gone 15)
    wait "$JOB" 2>/dev/null
    echo "kill $k after $delay ms: every rank gone $took ms after the kill"
    [ "$took" -lt 15000 ] || fail "ranks still running 15 s after the server died"
    ls "$WORK/out.$k"/rank.* >/dev/null 2>&1 &&
      expect_statuses "$WORK/out.$k" "(LOST_CONNECTION|UNREACH)"
  done
  echo "left by the dead servers: $(segments) segment(s), $(tmp_entries) TMPDIR entr(ies)"
  [ "$(segments)" -gt 0 ] || fail "the killed servers left no segment: nothing was tested"
  # A live server's segments survive the next server's sweep.
  mkdir -p "$WORK/live"
  FAULT_PAUSE_MS=20 start_pmixrun -n 2 "$BIN/fault_client" 100 64 0 "$WORK/live"
  local live_job=$JOB live_pid=$PMIXRUN_PID live_segs
  sleep 0.5
  live_segs=$(shm_count "$PREFIX-$live_pid-")
  next_server
  local kept
  kept=$(shm_count "$PREFIX-$live_pid-")
  echo "live server $live_pid: $live_segs segment(s) before the next server, $kept after"
  [ "$live_segs" -gt 0 ] && [ "$kept" -eq "$live_segs" ] ||
    fail "the live server's segments changed ($live_segs -> $kept)"
  wait "$live_job" || fail "the live job failed: $(cat "$WORK/err")"
  expect_statuses "$WORK/live" "done"
  expect_clean "after the next server"
}

case_stopped_member() {
  # Rank 1 stops before its fence; ranks 0 and 2 (PMIX_TIMEOUT 2 s) must get PMIX_ERR_TIMEOUT.
  # They wait 2 s more before finalizing; rank 1 is continued meanwhile and must fail its fence
  # too (nobody else will join it), never succeed.
  local start took p
  mkdir -p "$WORK/out"
  export PMIX_CPP_LOCAL_FENCE=$MODE FAULT_STOP_RANK=1 FAULT_HOLD_MS=2000
  start=$(now_ms)
  start_pmixrun -n 3 "$BIN/fault_client" 2 64 2 "$WORK/out"
  for _ in $(seq 1 100); do
    [ "$(cat "$WORK"/out/rank.0 "$WORK"/out/rank.2 2>/dev/null | grep -c "fence:")" -eq 2 ] && break
    sleep 0.05
  done
  took=$(($(now_ms) - start))
  p=$(grep -o "pid [0-9]* stops" "$WORK/out/rank.1" | cut -d' ' -f2)
  echo "ranks 0 and 2 returned from the fence after $took ms (job start included); continuing rank 1 (pid $p)"
  [ -n "$p" ] && kill -CONT "$p"
  wait "$JOB"
  local rc=$?
  took=$(($(now_ms) - start))
  echo "pmixrun exited $rc after $took ms"; cat "$WORK/err"
  [ "$rc" -ne 0 ] || fail "pmixrun exited 0 although fences timed out"
  for r in 0 2; do
    grep -q "round 0 fence: TIMEOUT (-24)" "$WORK/out/rank.$r" || fail "rank $r: $(cat "$WORK/out/rank.$r")"
  done
  grep -q "rank 1 continued" "$WORK/out/rank.1" || fail "rank 1 never continued"
  grep -q "fence: SUCCESS\|rank 1 done" "$WORK/out/rank.1" && fail "rank 1's fence succeeded alone"
  cat "$WORK"/out/rank.* | sed 's/^/  /'
  unset PMIX_CPP_LOCAL_FENCE FAULT_STOP_RANK FAULT_HOLD_MS
  expect_clean "after the job"
}

# Runs "$@" in a private mount namespace whose /dev/shm is a tmpfs of size $1.
in_small_shm() {
  local size=$1
  shift
  timeout -s KILL 30 unshare -m --propagation private bash -c \
    'mount -t tmpfs -o size='"$size"' tmpfs /dev/shm || exit 77; "$@"' shm "$@"
}

case_shm_full() {
  local rc start
  if ! unshare -m --propagation private true 2>/dev/null; then
    echo "SKIP: no private mount namespace here"; exit 77
  fi
  # 256 KiB: the store starts, the job's registration does not fit.
  start=$(now_ms)
  in_small_shm 256k "$BIN/pmixrun" -n 2 "$BIN/fault_client" 1 64 5 - >"$WORK/out" 2>"$WORK/err"
  rc=$?
  echo "registration on a 256 KiB /dev/shm: pmixrun exited $rc after $(($(now_ms) - start)) ms"
  cat "$WORK/err"
  [ "$rc" -eq 77 ] && { echo "SKIP: cannot mount a tmpfs"; exit 77; }
  [ "$rc" -eq 1 ] || fail "pmixrun exited $rc, expected 1"
  grep -q "could not write namespace .* (status -29, out of resources: is /dev/shm full?)" "$WORK/err" ||
    fail "no reason logged for the registration"
  grep -q "registering the job failed: OUT-OF-RESOURCE" "$WORK/err" || fail "registration did not fail"
  # 2 MiB: the job runs; each rank commits 3 MB.
  mkdir -p "$WORK/out.commit"
  start=$(now_ms)
  in_small_shm 2m "$BIN/pmixrun" -n 2 "$BIN/fault_client" 1 3000000 5 "$WORK/out.commit" \
    >"$WORK/out" 2>"$WORK/err"
  rc=$?
  echo "3 MB commit on a 2 MiB /dev/shm: pmixrun exited $rc after $(($(now_ms) - start)) ms"
  cat "$WORK/err"
  [ "$rc" -eq 1 ] || fail "pmixrun exited $rc, expected 1"
  grep -q "could not write modex .* out of resources" "$WORK/err" || fail "no reason logged for the commit"
  expect_statuses "$WORK/out.commit" "round 0 commit: OUT-OF-RESOURCE \(-29\)"
  expect_clean "after both jobs"
}

case_few_fds() {
  local rc start took
  # 16 ranks: pmixrun runs out of descriptors for the ranks' output pipes.
  start=$(now_ms)
  (ulimit -n 32 && exec timeout -s KILL 30 "$BIN/pmixrun" -n 16 "$BIN/fault_client" 2 64 2 -) \
    >"$WORK/out" 2>"$WORK/err"
  rc=$? took=$(($(now_ms) - start))
  echo "pmixrun -n 16 with ulimit -n 32: exit $rc after $took ms"; cat "$WORK/err"
  [ "$rc" -eq 1 ] || fail "pmixrun exited $rc, expected 1"
  grep -q "cannot make the output pipes of rank [0-9]*: Too many open files" "$WORK/err" ||
    fail "no reason given"
  # 8 ranks: their pipes fit, their connections do not all fit; the server says why, the ranks
  # that got in time out in their fence (PMIX_TIMEOUT 2 s), the job ends. The ranks connect 0.3 s
  # after they start: connections accepted while pmixrun still made later ranks' pipes took the
  # descriptors those pipes needed (seen once posix_spawn made starts fast).
  start=$(now_ms)
  (ulimit -n 32 && export FAULT_START_DELAY_MS=300 &&
    exec timeout -s KILL 30 "$BIN/pmixrun" -n 8 "$BIN/fault_client" 2 64 2 -) \
    >"$WORK/out" 2>"$WORK/err"
  rc=$? took=$(($(now_ms) - start))
  echo "pmixrun -n 8 with ulimit -n 32: exit $rc after $took ms"; cat "$WORK/err"
  grep "TIMEOUT\|done" "$WORK/out" | sort | uniq -c | sed 's/^/  /'
  [ "$rc" -eq 1 ] || fail "pmixrun exited $rc, expected 1"
  grep -q "accept: Too many open files (descriptor limit 32); pausing accepts on .*: clients cannot connect" \
    "$WORK/err" || fail "the server did not say why clients could not connect"
  expect_clean "after both jobs"
}

case_truncated_board() {
  # Rank 1 truncates the board 0.3 s after the others started waiting on it, then leaves. The
  # others must fail their fence with an error (the server sees rank 1 go), not die of SIGBUS.
  local rc start
  mkdir -p "$WORK/out"
  start=$(now_ms)
  FAULT_TRUNCATE_BOARD=1 FAULT_HOLD_MS=1000 timeout -s KILL 30 "$BIN/pmixrun" -n 3 \
    "$BIN/fault_client" 2 64 5 "$WORK/out" >"$WORK/out.txt" 2>"$WORK/err"
  rc=$?
  echo "pmixrun exited $rc after $(($(now_ms) - start)) ms"; cat "$WORK/err"
  cat "$WORK"/out/rank.* | sed 's/^/  /'
  grep -q "Bus error\|signal 7" "$WORK/err" && fail "a rank died of SIGBUS"
  [ "$rc" -eq 3 ] || fail "pmixrun exited $rc, expected 3 (the hostile rank's status)"
  grep -q "truncates board .*: refused" "$WORK/out/rank.1" || fail "the board could be truncated"
  for r in 0 2; do
    grep -Eq "round 0 fence: [A-Z_-]+ \(-[0-9]+\)" "$WORK/out/rank.$r" ||
      fail "rank $r: no fence error: $(cat "$WORK/out/rank.$r")"
  done
  expect_clean "after the job"
}

case_daemon_killed() {
  # Two simulated nodes x 2 ranks loop Put/Commit/Fence/Get; node 1's pmixd is SIGKILLed a random
  # 0-500 ms after its ranks started. pmixrun must name the dead daemon and exit non-zero; node 0's ranks see
  # the loss; node 1's ranks die with their daemon. The next job on the same nodes (its pmixds)
  # removes what the dead pmixd left.
  bash "$NETNS" probe "$NSPREFIX" || exit $?
  bash "$NETNS" create "$NSPREFIX" 2 >/dev/null || { echo "FAIL: cannot build 2 simulated nodes"; exit 1; }
  local hosts="${NSPREFIX}n0:2,${NSPREFIX}n1:2" delay rc took start p
  mkdir -p "$WORK/out"
  delay=$((RANDOM % 500))
  FAULT_PAUSE_MS=2 timeout -s KILL 30 "$BIN/pmixrun" --launch-agent "ip netns exec" --host "$hosts" \
    -x FAULT_TAG -x FAULT_PAUSE_MS "$BIN/fault_client" 100000 256 0 "$WORK/out" >"$WORK/out.txt" 2>"$WORK/err" &
  JOB=$!
  for _ in $(seq 1 200); do  # until node 1's ranks run
    ip netns pids "${NSPREFIX}n1" | xargs -r -I{} cat /proc/{}/comm 2>/dev/null | grep -q fault_client && break
    sleep 0.05
  done
  sleep "0.$(printf %03d $delay)"
  start=$(now_ms)
  for p in $(ip netns pids "${NSPREFIX}n1"); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = pmixd ] && kill -9 "$p"
  done
  wait "$JOB"
  rc=$? took=$(($(now_ms) - start))
  echo "pmixd of node 1 killed $delay ms into the ranks' loop: pmixrun exited $rc, $took ms after the kill"
  grep -v "^\[" "$WORK/err"
  [ "$rc" -ne 0 ] || fail "pmixrun exited 0 although a daemon died"
  [ "$took" -lt 20000 ] || fail "pmixrun took $took ms to end the job"
  grep -q "the daemon of node 1 (${NSPREFIX}n1) died (status 137)" "$WORK/err" || fail "no message naming the dead daemon"
  took=$(wait_tagged_gone 10)
  echo "every rank gone $took ms after pmixrun"
  for r in 0 1; do
    [ -e "$WORK/out/rank.$r" ] && ! grep -q "done" "$WORK/out/rank.$r" ||
      fail "rank $r (node 0): $(cat "$WORK/out/rank.$r" 2>/dev/null)"
  done
  cat "$WORK"/out/rank.* | grep -v "finalize" | sed 's/^/  /'
  echo "left by the dead pmixd: $(segments) segment(s), $(tmp_entries) TMPDIR entr(ies)"
  mkdir -p "$WORK/next"
  timeout -s KILL 30 "$BIN/pmixrun" --launch-agent "ip netns exec" --host "$hosts" -x FAULT_TAG \
    "$BIN/fault_client" 2 64 5 "$WORK/next" >"$WORK/next.out" 2>"$WORK/next.err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "the next job exited $rc: $(cat "$WORK/next.err")"
  expect_statuses "$WORK/next" "done"
  sleep 0.2
  expect_clean "after the next job"
}

case $CASE in
  server_killed) case_server_killed ;;
  stopped_member) case_stopped_member ;;
  shm_full) case_shm_full ;;
  few_fds) case_few_fds ;;
  truncated_board) case_truncated_board ;;
  daemon_killed) case_daemon_killed ;;
  *) fail "unknown case $CASE" ;;
esac
for f in "$WORK"/sanitizer/*; do
  [ -e "$f" ] && { fail "sanitizer report $(basename "$f"):"; head -40 "$f"; }
done
if [ "$fails" -ne 0 ]; then echo "$CASE: $fails failure(s)"; exit 1; fi
echo "$CASE: OK"
