#!/usr/bin/env bash
# tests/iof/pmixrun_push.sh BIN_DIR STDIN_COUNT IOF_PUSHER - a tool pushes input to rank 0 of a
# running pmixrun job (whose own stdin stays open and silent): 4 MiB of random bytes through
# PMIx_IOF_push then PMIX_IOF_COMPLETE, and again through PMIX_IOF_PUSH_STDIN; rank 0 must read
# exactly those bytes and EOF.
set -u
BIN=$1 COUNT=$2 PUSHER=$3
export TMPDIR=$(mktemp -d /tmp/pmix-iofpush.XXXXXX)
JOB_PID= HOLD_PID=
cleanup() {
  [[ -n $JOB_PID ]] && kill -9 "$JOB_PID" 2>/dev/null
  [[ -n $HOLD_PID ]] && kill "$HOLD_PID" 2>/dev/null
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {
  python3 - "$1" <<'PY'
import sys
h, data = 1469598103934665603, open(sys.argv[1], "rb").read()
for b in data:
    h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
print(f"bytes {len(data)} fnv {h:016x}")
PY
}
head -c $((4 * 1024 * 1024)) /dev/urandom > "$TMPDIR/in"
want=$(expect "$TMPDIR/in")
for mode in file stdin; do
  mkfifo "$TMPDIR/hold.$mode"
  sleep 100 > "$TMPDIR/hold.$mode" & HOLD_PID=$!
  "$BIN/pmixrun" -n 2 --timeout 80 "$COUNT" < "$TMPDIR/hold.$mode" > "$TMPDIR/job.$mode" 2>&1 &
  JOB_PID=$!
  for _ in $(seq 1 100); do
    "$BIN/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
    sleep 0.2
  done
  if [[ $mode == file ]]; then
    timeout 60 "$PUSHER" --pid "$JOB_PID" --file "$TMPDIR/in" > "$TMPDIR/push.$mode" 2>&1 \
      || fail "iof_pusher ($mode): $(cat "$TMPDIR/push.$mode")"
  else
    (timeout 60 "$PUSHER" --pid "$JOB_PID" --stdin --until "$TMPDIR/done.$mode" < "$TMPDIR/in" \
       > "$TMPDIR/push.$mode" 2>&1; echo $? > "$TMPDIR/push.rc") &
  fi
  timeout 60 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
  touch "$TMPDIR/done.$mode"
  wait "$JOB_PID" || fail "job ($mode): $(cat "$TMPDIR/job.$mode")"
  JOB_PID=
  kill "$HOLD_PID" 2>/dev/null; HOLD_PID=
  grep -qx "\[0\] rank 0 $want" "$TMPDIR/job.$mode" \
    || fail "rank 0 ($mode): want '$want', got: $(cat "$TMPDIR/job.$mode")"
  grep -q "^\[1\] rank 1 bytes 0 " "$TMPDIR/job.$mode" || fail "rank 1 read input ($mode)"
  echo "$mode: rank 0 read $want"; cat "$TMPDIR/push.$mode"
done
wait
[[ $(cat "$TMPDIR/push.rc") == 0 ]] || fail "iof_pusher --stdin: $(cat "$TMPDIR/push.stdin")"
# A target that closed its stdin: once the write to it fails (EPIPE) the input can no longer be
# delivered, and the pushes still coming (or waiting for room) get PMIX_ERR_IOF_FAILURE.
mkfifo "$TMPDIR/hold.gone"
sleep 100 > "$TMPDIR/hold.gone" & HOLD_PID=$!
"$BIN/pmixrun" -n 1 --timeout 60 sh -c 'exec 0<&-; sleep 4' < "$TMPDIR/hold.gone" \
  > "$TMPDIR/job.gone" 2>&1 &
JOB_PID=$!
for _ in $(seq 1 100); do
  "$BIN/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
  sleep 0.2
done
timeout 60 "$PUSHER" --pid "$JOB_PID" --file "$TMPDIR/in" > "$TMPDIR/push.gone" 2>&1
rc=$?
wait "$JOB_PID" || fail "job (gone): $(cat "$TMPDIR/job.gone")"
JOB_PID=
kill "$HOLD_PID" 2>/dev/null; HOLD_PID=
[[ $rc == 2 ]] || fail "iof_pusher to a closed stdin exited $rc: $(cat "$TMPDIR/push.gone")"
grep -qx "push data IOF FAILURE" "$TMPDIR/push.gone" \
  || fail "no PMIX_ERR_IOF_FAILURE for a target that closed its stdin: $(cat "$TMPDIR/push.gone")"
echo "closed stdin:"; cat "$TMPDIR/push.gone"
echo PASS
