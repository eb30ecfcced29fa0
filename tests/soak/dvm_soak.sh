#!/usr/bin/env bash
# tests/soak/dvm_soak.sh BIN_DIR [JOBS] [CHECKPOINT] - one-process `hello` jobs back to back
# through the persistent launcher (pmixrun --dvm), started by a tool (dvm_tool run, one job at a
# time). Prints the launcher's VmRSS, descriptors and /dev/shm objects (count, bytes) after 2
# warm-up jobs, after CHECKPOINT jobs (default 250) and after JOBS jobs (default 2,000), as a
# Markdown table; exits 1 when a job fails, or when descriptors or /dev/shm bytes at JOBS exceed
# those at CHECKPOINT (RSS is printed, not judged: the allocator's own growth is not a leak).
# CTest soak.dvm.flat runs 200 jobs (checkpoint 50); 2,000 take ~10 s here, by hand:
#     bash tests/soak/dvm_soak.sh build/dev/bin 2000 250
set -u
BIN=$1 JOBS=${2:-2000} CHECK=${3:-250}
export TMPDIR=$(mktemp -d /tmp/pmix-dvm-soak.XXXXXX)
LOGS=$(mktemp -d /tmp/pmix-dvm-soak-logs.XXXXXX)
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
  tail -n 20 "$LOGS/dvm.err" 2>/dev/null
  grep FAIL "$LOGS/tool.out" | tail -n 20
  exit 1
}

# A tool run of `n` one-process hellos, one after another (1 s a job at most, plus 30 s).
run_jobs() {
  local n=$1
  timeout $((30 + n)) "$BIN/dvm_tool" run "$n" 1 0 1 "$BIN/hello" 1 > "$LOGS/tool.out" 2>&1 ||
    fail "dvm_tool run $n"
  # dvm_tool checks every JOB_END itself (the jobs' output, forwarded to it, interleaves).
  grep -q '^dvm_tool: run ok' "$LOGS/tool.out" || fail "dvm_tool run $n did not say ok"
}

# "rss_kib fds shm_count shm_bytes" of the launcher, once two samples 0.1 s apart agree on fds and
# /dev/shm (a finished job's connections close a moment after its JOB_END).
footprint() {
  local last="" now
  for _ in $(seq 1 50); do
    local shm=(/dev/shm/pmixgds*-"$DVM_PID"-*) bytes=0 count=0 f
    for f in "${shm[@]}"; do
      [[ -e $f ]] || continue
      ((++count)); bytes=$((bytes + $(stat -c %s "$f")))
    done
    now="$(ls "/proc/$DVM_PID/fd" | wc -l) $count $bytes"
    [[ $now == "$last" ]] && break
    last=$now
    sleep 0.1
  done
  echo "$(awk '/^VmRSS/ {print $2}' "/proc/$DVM_PID/status") $now"
}

"$BIN/pmixrun" --dvm --report-uri "$LOGS/uri" > "$LOGS/dvm.out" 2> "$LOGS/dvm.err" &
DVM_PID=$!
timeout 10 bash -c "until [[ -s '$LOGS/uri' ]]; do sleep 0.05; done" || fail "no URI in 10 s"

run_jobs 2
read -r rss0 fd0 n0 b0 <<< "$(footprint)"
start=$SECONDS
run_jobs $((CHECK - 2))
read -r rss1 fd1 n1 b1 <<< "$(footprint)"
run_jobs $((JOBS - CHECK))
read -r rss2 fd2 n2 b2 <<< "$(footprint)"
elapsed=$((SECONDS - start))

echo "| jobs | VmRSS KiB | fds | /dev/shm objects | /dev/shm bytes |"
echo "|---:|---:|---:|---:|---:|"
echo "| 2 | $rss0 | $fd0 | $n0 | $b0 |"
echo "| $CHECK | $rss1 | $fd1 | $n1 | $b1 |"
echo "| $JOBS | $rss2 | $fd2 | $n2 | $b2 |"
echo "($((JOBS - 2)) jobs in ${elapsed} s; RSS $(( (rss2 - rss1) * 1024 / (JOBS - CHECK) )) B/job" \
     "from $CHECK to $JOBS)"

timeout 20 "$BIN/pmix-dvm" --stop > "$LOGS/stop.out" 2>&1 || fail "pmix-dvm --stop"
timeout 15 bash -c "while kill -0 $DVM_PID 2>/dev/null; do sleep 0.05; done" ||
  fail "the DVM still runs 15 s after --stop"
DVM_PID=
((fd2 <= fd1)) || fail "descriptors grew: $fd1 -> $fd2"
((b2 <= b1)) || fail "/dev/shm grew: $b1 -> $b2 bytes"
echo "flat"
