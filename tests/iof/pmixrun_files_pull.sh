#!/usr/bin/env bash
# tests/iof/pmixrun_files_pull.sh BIN_DIR IOF_LINES IOF_FILES_TOOL - tools attached to a running
# pmixrun job pull its output with a NULL callback and the file directives; the library writes the
# files (client/iof_files.h). Five tools pull at once, before the job writes anything:
# Ten ranks, so that file names pad the rank to two digits (as OpenPMIx: the digits of the size).
#   a: PMIX_IOF_OUTPUT_TO_FILE                      a/out.<ns>.<rr>.out|.err, copy on the terminal
#   b: OUTPUT_TO_DIRECTORY + FILE_ONLY              b/<ns>/rank.<rr>/stdout|stderr, terminal empty
#   c: FILE + FILE_PATTERN + MERGE_STDERR_STDOUT    c/job-<ns>-r<r>.out holds both, no .err (%r is
#                                                   not padded);
#                                                   the terminal copy of stderr is on stdout
#   e: FILE + TAG_OUTPUT + LOCAL_OUTPUT=false       tagged files, terminal empty
#   and three refused pulls: a directory under a plain file, a pattern "%x", an empty file name.
# Exact file names (the whole tree) and contents are checked.
set -u
BIN=$1 LINES=$2 TOOL=$3
export TMPDIR=$(mktemp -d /tmp/pmix-ioffiles.XXXXXX)
D=$TMPDIR/out
mkdir -p "$D"
JOB_PID=
cleanup() {
  touch "$TMPDIR/go" "$TMPDIR/until" "$TMPDIR/stop" 2>/dev/null || true
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 1; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

IOF_GO=$TMPDIR/go IOF_STOP=$TMPDIR/stop "$BIN/pmixrun" -n 10 -x IOF_GO -x IOF_STOP --timeout 60 \
  "$LINES" > "$TMPDIR/job.out" 2> "$TMPDIR/job.err" &
JOB_PID=$!
for _ in $(seq 1 100); do
  "$BIN/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
  sleep 0.1
done
touch "$D/plainfile"
declare -A SPEC=(
  [a]="file=$D/a/out"
  [b]="dir=$D/b,fonly"
  [c]="file=$D/c/job-%n-r%r,pattern,merge"
  [e]="file=$D/e/t,tag,local=false"
  [x1]="dir=$D/plainfile/sub"
  [x2]="file=$D/x/%x,pattern"
  [x3]="file="
)
TOOLS=()
for t in "${!SPEC[@]}"; do
  timeout 40 "$TOOL" --pid "$JOB_PID" --pull "${SPEC[$t]}" --ready "$TMPDIR/ready.$t" \
    --until "$TMPDIR/until" > "$TMPDIR/tool.$t.out" 2> "$TMPDIR/tool.$t.err" &
  TOOLS+=($!)
done
timeout 20 bash -c "until [[ \$(ls $TMPDIR/ready.* 2>/dev/null | wc -l) == ${#SPEC[@]} ]]; do sleep 0.05; done" \
  || fail "not every tool pulled: $(cat "$TMPDIR"/tool.*.err)"
touch "$TMPDIR/go"
# Everything is written once every rank's files have its last stderr line (the tools flush
# partial lines when they deregister). Ten ranks: file names pad ranks to two digits. Every rank,
# not the first and last only: under TSan rank 7's output reached two tools after rank 9's.
done_writing() {
  local r
  for r in 0 1 2 3 4 5 6 7 8 9; do
    grep -qs "err $r 2" "$D"/e/t.*.0$r.err && grep -qs "err $r 2" "$D"/a/out.*.0$r.err \
      && grep -qs "err $r 2" "$D"/b/*/rank.0$r/stderr && grep -qs "err $r 2" "$D"/c/job-*-r$r.out \
      || return 1
  done
}
for _ in $(seq 1 400); do done_writing && break; sleep 0.05; done
touch "$TMPDIR/until"
for p in "${TOOLS[@]}"; do wait "$p"; done
touch "$TMPDIR/stop"
timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
wait "$JOB_PID" || fail "the job failed: $(cat "$TMPDIR/job.err")"
JOB_PID=
python3 - "$TMPDIR" <<'PY' || fail "see above"
import os, re, sys
tmp = sys.argv[1]; d = os.path.join(tmp, "out")
def read(p): return open(p).read()
def status(t):
    m = re.search(r"iof_files_tool: pull (\S+)", read(f"{tmp}/tool.{t}.err"))
    return m.group(1) if m else None
ns = re.search(r"iof_files_tool: nspace (\S+)", read(f"{tmp}/tool.a.err")).group(1)
def own(t):  # what the tool itself wrote to stderr, minus its reports
    return "".join(l for l in read(f"{tmp}/tool.{t}.err").splitlines(True)
                   if not l.startswith("iof_files_tool:"))
for t in "abce":
    assert status(t).isdigit(), f"tool {t}: pull {status(t)}: {read(f'{tmp}/tool.{t}.err')}"
assert status("x1") == "FILE_OPEN_FAILURE", f"x1: {status('x1')}"
assert status("x2") == "BAD-PARAM", f"x2: {status('x2')}"
assert status("x3") == "BAD-PARAM", f"x3: {status('x3')}"
RANKS = range(10)
tree = sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)
want = sorted(["plainfile"] +
    [f"a/out.{ns}.{r:02}.{s}" for r in RANKS for s in ("out", "err")] +
    [f"b/{ns}/rank.{r:02}/{s}" for r in RANKS for s in ("stdout", "stderr")] +
    [f"c/job-{ns}-r{r}.out" for r in RANKS] +
    [f"e/t.{ns}.{r:02}.{s}" for r in RANKS for s in ("out", "err")])
assert tree == want, f"files: {tree}\n want {want}"
out = lambda r: "".join(f"out {r} {i}\n" for i in range(3)) + f"part {r}"
err = lambda r: "".join(f"err {r} {i}\n" for i in range(3))
for r in RANKS:
    assert read(f"{d}/a/out.{ns}.{r:02}.out") == out(r), read(f"{d}/a/out.{ns}.{r:02}.out")
    assert read(f"{d}/a/out.{ns}.{r:02}.err") == err(r)
    assert read(f"{d}/b/{ns}/rank.{r:02}/stdout") == out(r)
    assert read(f"{d}/b/{ns}/rank.{r:02}/stderr") == err(r)
    merged = read(f"{d}/c/job-{ns}-r{r}.out")
    lines = merged.replace(f"part {r}", "").splitlines()
    assert [l for l in lines if l.startswith("out")] == out(r).splitlines()[:3], merged
    assert [l for l in lines if l.startswith("err")] == err(r).splitlines(), merged
    assert f"part {r}" in merged
    jobid = ns.rsplit("@", 1)[-1]
    tag = lambda s: f"[{jobid},{r}]<{s}>: "
    assert read(f"{d}/e/t.{ns}.{r:02}.out") == "".join(tag("stdout") + l for l in out(r).splitlines(True))
    assert read(f"{d}/e/t.{ns}.{r:02}.err") == "".join(tag("stderr") + l for l in err(r).splitlines(True))
# Terminal copies: a has stdout on stdout and stderr on stderr; b (FILE_ONLY) and e
# (LOCAL_OUTPUT=false) nothing; c (merge) everything on stdout.
def same_lines(text, want):  # the same pieces (lines, and "part r" anywhere), any order
    pieces = [p for w in want for p in w.replace("part", "\npart").splitlines(True) if p != "\n"]
    return len(text) == sum(map(len, want)) and all(text.count(p) == 1 for p in pieces)
assert same_lines(read(f"{tmp}/tool.a.out"), [out(r) for r in RANKS]), read(f"{tmp}/tool.a.out")
assert same_lines(own("a"), [err(r) for r in RANKS]), own("a")
for t in "be":
    assert read(f"{tmp}/tool.{t}.out") == "" and own(t) == "", f"tool {t} wrote to the terminal"
assert same_lines(read(f"{tmp}/tool.c.out"), [out(r) for r in RANKS] + [err(r) for r in RANKS]), read(f"{tmp}/tool.c.out")
assert own("c") == "", own("c")
print(f"PASS: {len(tree) - 1} files of {ns} exact; FILE_ONLY and LOCAL_OUTPUT=false wrote nothing "
      "to the terminal; merge put stderr in stdout; bad directory / pattern / name refused")
PY
