#!/usr/bin/env bash
# tests/iof/pmixrun_pull.sh BIN_DIR TICKER IOF_TOOL - a tool attaches to a running pmixrun job,
# pulls a copy of its output with tags and timestamps while pmixrun still prints it, then
# deregisters and sees no more.
# Then a second tool with PMIX_IOF_REDIRECT: pmixrun does not print what it takes live (what was
# cached before, pmixrun had printed) and prints again once it deregistered.
# Checks: the tool got >= 20 lines, each "[<ctime>][<jobid>,<rank>]<stdout>: tick <n>", of both
# ranks; nothing after its "DEREGISTERED"; every pulled line is in pmixrun's own output (as
# "[<rank>] tick <n>"); pmixrun went on printing after the tool left.
set -u
BIN=$1 TICKER=$2 TOOL=$3
export TMPDIR=$(mktemp -d /tmp/pmix-iofrun.XXXXXX)
STOP=$TMPDIR/stop
JOB_PID=
cleanup() {
  touch "$STOP" 2>/dev/null || true
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 1; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

TICKER_STOP=$STOP "$BIN/pmixrun" -n 2 -x TICKER_STOP --timeout 80 "$TICKER" \
  > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
JOB_PID=$!
for _ in $(seq 1 100); do
  "$BIN/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
  sleep 0.2
done
timeout 40 "$TOOL" --pid "$JOB_PID" --lines 20 > "$TMPDIR/tool.out" 2> "$TMPDIR/tool.err"
rc=$?
[[ $rc == 0 ]] || fail "iof_tool exited $rc: $(cat "$TMPDIR/tool.err")"
sleep 0.5  # pmixrun goes on printing after the tool left
# A second tool takes the output with PMIX_IOF_REDIRECT: pmixrun stops printing it meanwhile.
timeout 40 "$TOOL" --pid "$JOB_PID" --lines 300 --redirect > "$TMPDIR/redirect.out" 2>> "$TMPDIR/tool.err"
rc=$?
[[ $rc == 0 ]] || fail "iof_tool --redirect exited $rc: $(cat "$TMPDIR/tool.err")"
sleep 0.5
touch "$STOP"
timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
wait "$JOB_PID" || fail "the job failed: $(cat "$TMPDIR/job.err")"
JOB_PID=
cat "$TMPDIR/tool.err"
python3 - "$TMPDIR/tool.out" "$TMPDIR/job.out" "$TMPDIR/redirect.out" <<'PY' || fail "see above"
import re, sys
tool = open(sys.argv[1]).read().split("\n")
job = open(sys.argv[2]).read().split("\n")
assert "DEREGISTERED" in tool, "no DEREGISTERED marker"
marker = tool.index("DEREGISTERED")
pulled, after = tool[:marker], [l for l in tool[marker + 1:] if l]
assert not after, f"output after deregistration: {after[:3]}"
stamp = r"\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\]"
line = re.compile(stamp + r"\[([^,\]]+),(\d+)\]<stdout>: (tick \d+)$")
ranks = set()
for l in pulled:
    m = line.match(l)
    assert m, f"not tagged and timestamped: {l!r}"
    ranks.add(m.group(2))
    assert f"[{m.group(2)}] {m.group(3)}" in job, f"pulled line not printed by pmixrun: {l!r}"
assert len(pulled) >= 20, f"only {len(pulled)} lines pulled"
assert ranks == {"0", "1"}, f"ranks pulled: {ranks}"
# Per rank: the ranks tick on their own clocks, and under load one may run far ahead of the
# other (comparing rank 0's printed ticks with the highest tick of either rank failed so).
def last_tick(lines, rank):
    ticks = [int(l.split()[-1]) for l in lines if line.match(l) and line.match(l).group(2) == rank]
    return max(ticks, default=-1)
printed = {r: [int(l.split()[-1]) for l in job if re.match(rf"\[{r}\] tick \d+$", l)]
           for r in ("0", "1")}
for r in ("0", "1"):
    last = last_tick(pulled, r)
    assert max(printed[r]) > last, \
        f"pmixrun stopped printing rank {r} at {max(printed[r])} (tool saw up to {last})"
red = open(sys.argv[3]).read().split("\n")
rmark = red.index("DEREGISTERED")
rpulled, rafter = red[:rmark], [l for l in red[rmark + 1:] if l]
assert not rafter, f"output after deregistration (redirect): {rafter[:3]}"
unprinted = [l for l in rpulled if f"[{line.match(l).group(2)}] {line.match(l).group(3)}" not in job]
assert unprinted, "with PMIX_IOF_REDIRECT pmixrun still printed everything the tool got"
for r in ("0", "1"):
    rlast = last_tick(rpulled, r)
    assert max(printed[r]) > rlast, \
        f"pmixrun did not resume printing rank {r} after the redirect ended ({rlast})"
print(f"redirect: {len(rpulled)} lines pulled, {len(unprinted)} of them not printed by pmixrun")
print(f"PASS: {len(pulled)} lines pulled of ranks {sorted(ranks)}, pmixrun printed "
      f"{len(printed['0'])} lines of rank 0 (up to tick {max(printed['0'])}), none after deregistration")
PY
