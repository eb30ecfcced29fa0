#!/usr/bin/env bash
# IO forwarding across two simulated nodes (network namespaces, pmixd through `ip netns exec`),
# two ranks per node (ranks 2 and 3 on the second node):
#  - out: rank 3 writes MB (default 100) MiB of random bytes; pmixrun --raw-output prints them
#    byte for byte (sha256), through pmixd, the channel and the head;
#  - in: IN_MB (default 16, for time) MiB of pmixrun's stdin reach rank 3 (--stdin 3), 8 MiB
#    every rank (--stdin all);
#  - nothing lost: rank 3 writes 2000 lines and partial last lines, then calls PMIx_Abort;
#  - a tool attached to the head pulls the output of ranks on both nodes (tagged), then
#    deregisters.
# The peak RSS (VmHWM, sampled) of pmixrun and of each pmixd is printed (not asserted).
#  - a tool's PMIx_IOF_push (4 MiB, then PMIX_IOF_COMPLETE) to rank 3 (--stdin 3) through the head.
# PART: bulk (out, slow reader, in, --stdin all) or tools (abort, tool pull, tool push).
#   iof_netns.sh PART BINDIR LAST_WORDS TICKER IOF_TOOL IOF_PUSHER [MB [IN_MB]]
set -uo pipefail
part=$1 bin=$2 last=$3 ticker=$4 tool=$5 pusher=$6 mb=${7:-100} in_mb=${8:-16}
here=$(cd "$(dirname "$0")" && pwd)
netns="$here/../../scripts/netns.sh"
prefix="io$$"
work=$(mktemp -d)
export PMIX_CPP_GDS_PREFIX="/pmixio-$$"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
job=
watchers=()
cleanup() {
  touch "$work/stop" 2>/dev/null
  [ ${#watchers[@]} -gt 0 ] && kill "${watchers[@]}" 2>/dev/null
  [ -n "$job" ] && kill -9 "$job" 2>/dev/null
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix"); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
  done
  bash "$netns" destroy "$prefix"
  rm -f /dev/shm/pmixio-$$-* 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bash "$netns" probe "$prefix" || exit $?
bash "$netns" create "$prefix" 2 || { echo "FAIL: cannot build 2 simulated nodes"; exit 1; }
hosts="${prefix}n0:2,${prefix}n1:2"
# The largest VmHWM (KiB) of the processes whose command line matches $1, sampled every 50 ms
# (VmHWM is the peak so far) into file $2, until killed.
hwm_watch() {
  local max=0 v p
  echo 0 > "$2"
  while :; do
    for p in $(pgrep -f "$1"); do
      v=$(awk '/^VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null)
      if [ -n "$v" ] && [ "$v" -gt "$max" ]; then max=$v; echo "$max" > "$2"; fi
    done
    sleep 0.05
  done
}
watchers=()
watch_start() {
  hwm_watch "^$bin/pmixrun " "$work/rss" & watchers+=($!)
  for i in 0 1; do hwm_watch "pmixd --node-name ${prefix}n$i " "$work/pmixd.$i" & watchers+=($!); done
}
watch_stop() { kill "${watchers[@]}" 2>/dev/null; wait "${watchers[@]}" 2>/dev/null; watchers=(); }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sha() { sha256sum | cut -c1-64; }
PMIXRUN=(timeout -s KILL 60 "$bin/pmixrun" --launch-agent "ip netns exec" --host "$hosts")
rss() { echo "pmixrun $(cat "$work/rss") KiB, pmixd $(cat "$work/pmixd.0") and" \
  "$(cat "$work/pmixd.1") KiB"; }
now() { date +%s.%N; }
find_head() {  # head_pid: the pmixrun under `timeout` $job, once its server answers tools
  head_pid=
  for _ in $(seq 1 50); do head_pid=$(pgrep -P "$job" -x pmixrun) && break; sleep 0.1; done
  for _ in $(seq 1 100); do
    "$bin/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$head_pid" && break
    sleep 0.1
  done
}

SUM='printf "rank %s %s\n" "$PMIX_RANK" "$(sha256sum | cut -c1-64)"'
if [ "$part" = bulk ]; then
head -c $((mb * 1024 * 1024 - 7)) /dev/urandom > "$work/data"
want=$(sha < "$work/data")

watch_start
t0=$(now)
"${PMIXRUN[@]}" --raw-output \
  sh -c "[ \$PMIX_RANK = 3 ] && exec cat $work/data; exit 0" 2> "$work/err" | sha > "$work/got" ||
  fail "output across nodes: pmixrun failed: $(cat "$work/err")"
t1=$(now)
watch_stop
[ "$(cat "$work/got")" = "$want" ] || fail "output across nodes: sha256 differs: $(cat "$work/err")"
echo "out: $mb MiB from rank 3 (node 1) byte-exact in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; max RSS $(rss)"
# A reader that takes nothing for 1 s: the head blocks in write, the channel fills, pmixd stops
# reading the rank's pipe; nothing grows without bound.
head -c $((in_mb * 1024 * 1024 - 5)) "$work/data" > "$work/part"
watch_start
"${PMIXRUN[@]}" --raw-output \
  sh -c "[ \$PMIX_RANK = 3 ] && exec cat $work/part; exit 0" 2> "$work/err" | { sleep 1; sha; } > "$work/got" ||
  fail "slow reader across nodes: pmixrun failed: $(cat "$work/err")"
watch_stop
[ "$(cat "$work/got")" = "$(sha < "$work/part")" ] || fail "slow reader across nodes: sha256 differs"
echo "out, slow reader: $in_mb MiB byte-exact; max RSS $(rss)"

empty=$(printf '' | sha)
watch_start
t0=$(now)
"${PMIXRUN[@]}" --stdin 3 sh -c "$SUM" < "$work/part" > "$work/out" 2>&1 || fail "--stdin 3: pmixrun failed"
t1=$(now)
watch_stop
want_in=$(sha < "$work/part")
grep -qx "\[3\] rank 3 $want_in" "$work/out" || fail "stdin to rank 3: $(cat "$work/out")"
grep -qx "\[0\] rank 0 $empty" "$work/out" || fail "rank 0 did not read EOF: $(cat "$work/out")"
echo "in: $in_mb MiB to rank 3 (node 1) byte-exact in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; max RSS $(rss)"
head -c $((8 * 1024 * 1024 + 3)) "$work/data" > "$work/small"
small=$(sha < "$work/small")
"${PMIXRUN[@]}" --stdin all sh -c "$SUM" < "$work/small" > "$work/out" 2>&1 || fail "--stdin all: pmixrun failed"
for r in 0 1 2 3; do
  grep -qx "\[$r\] rank $r $small" "$work/out" || fail "--stdin all, rank $r: $(cat "$work/out")"
done
echo "in, --stdin all: 8 MiB to each of 4 ranks on 2 nodes"
else

"${PMIXRUN[@]}" "$last" abort 2000 3 > "$work/out" 2> "$work/err"
rc=$?
[ "$rc" = 3 ] || fail "abort: pmixrun exited $rc: $(tail -3 "$work/err")"
[ "$(grep -c '^\[3\] line [0-9]*$' "$work/out")" = 2000 ] || fail "abort: lines of rank 3 lost"
grep -qx "\[3\] last words abort" "$work/out" || fail "abort: partial stdout line lost"
grep -qx "\[3\] err words abort" "$work/err" || fail "abort: partial stderr line lost"
echo "abort on node 1: 2000 lines and both partial lines printed"

TICKER_STOP="$work/stop" "${PMIXRUN[@]}" -x TICKER_STOP --timeout 50 "$ticker" > "$work/job.out" 2>&1 &
job=$!
find_head
timeout 40 "$tool" --pid "$head_pid" --lines 400 > "$work/tool.out" 2> "$work/tool.err" ||
  fail "iof_tool: $(cat "$work/tool.err")"
touch "$work/stop"
wait "$job" || fail "the ticker job failed: $(cat "$work/job.out")"
job=
python3 - "$work/tool.out" "$work/job.out" <<'PY' || fail "tool pull across nodes"
import re, sys
tool = open(sys.argv[1]).read().split("\n")
job = open(sys.argv[2]).read().split("\n")
pulled = tool[:tool.index("DEREGISTERED")]
after = [l for l in tool[tool.index("DEREGISTERED") + 1:] if l]
assert not after, f"output after deregistration: {after[:3]}"
ranks = set()
for l in pulled:
    m = re.match(r"\[.*\]\[([^,\]]+),(\d+)\]<stdout>: (tick \d+)$", l)
    assert m, f"not tagged: {l!r}"
    ranks.add(int(m.group(2)))
    assert f"[{m.group(2)}] {m.group(3)}" in job, f"pulled but not printed: {l!r}"
assert ranks == {0, 1, 2, 3}, f"ranks pulled: {sorted(ranks)}"
print(f"tool: {len(pulled)} lines pulled from ranks {sorted(ranks)} of both nodes")
PY

# A tool pushes to rank 3 on node 1 while pmixrun's own stdin stays open and silent.
head -c $((4 * 1024 * 1024)) /dev/urandom > "$work/push"
mkfifo "$work/hold"
sleep 60 > "$work/hold" &
hold=$!
# The ranks stay 2 s after EOF: the pusher's second COMPLETE must find the job (and be refused).
"${PMIXRUN[@]}" --stdin 3 sh -c "$SUM; sleep 2" < "$work/hold" > "$work/job.out" 2>&1 &
job=$!
find_head
timeout 40 "$pusher" --pid "$head_pid" --rank 3 --file "$work/push" > "$work/push.out" 2>&1 ||
  fail "iof_pusher: $(cat "$work/push.out")"
wait "$job" || fail "the pushed-to job failed: $(cat "$work/job.out")"
job=
kill "$hold" 2>/dev/null
grep -qx "\[3\] rank 3 $(sha < "$work/push")" "$work/job.out" ||
  fail "PMIx_IOF_push to rank 3: $(cat "$work/job.out" "$work/push.out")"
echo "tool push: 4 MiB to rank 3 on node 1 through the head"
fi

sleep 0.2
left=$(pgrep -f "$bin/pmixd" | wc -l)
[ "$left" -eq 0 ] || fail "$left pmixd process(es) left"
[ "$fails" -eq 0 ] && echo "PASS: IO forwarding across 2 simulated nodes ($part)"
exit $((fails > 0))
