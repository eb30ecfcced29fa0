#!/usr/bin/env bash
# tests/iof/pmixrun_output_options.sh BIN_DIR TICKER IOF_TOOL - pmixrun's output options, the
# exact bytes of each (launcher/output.h): the default "[rank] line", --tag-output,
# --timestamp-output, both, --xml, --raw-output (100 kB of binary data byte for byte),
# --merge-stderr-to-stdout, --output-filename DIR (names, contents, :nocopy), --output file=F,
# a directory that cannot be made (exit 2, nothing run); and that pmixrun's --tag-output
# --timestamp-output lines are the ones a tool's PMIx_IOF_pull with PMIX_IOF_TAG_OUTPUT and
# PMIX_IOF_TIMESTAMP_OUTPUT gets from the library (the two formatters agree).
set -u
BIN=$1 TICKER=$2 TOOL=$3
export TMPDIR=$(mktemp -d /tmp/pmix-iofopt.XXXXXX)
JOB_PID=
cleanup() {
  touch "$TMPDIR/stop" 2>/dev/null || true
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 1; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMPDIR" || fail "no $TMPDIR"
PROG='printf "l1\nl <&>\n"; printf "e1\n" >&2; printf part'
run() {  # NAME NPROCS OPTIONS...: stdout and stderr of the job into NAME.out / NAME.err
  local name=$1 n=$2; shift 2
  timeout 30 "$BIN/pmixrun" -n "$n" --timeout 20 "$@" sh -c "$PROG" > "$name.out" 2> "$name.err"
  echo $? > "$name.rc"
}
# One rank where a partial last line would run into another rank's output.
run default 2
run tag 1 --tag-output
run stamp 1 --timestamp-output
run both 1 --tag-output --timestamp-output
run xml 1 --xml
run merge 2 --merge-stderr-to-stdout
run files 2 --output-filename "$TMPDIR/d"
run nocopy 2 --output-filename "d2:nocopy" --merge-stderr-to-stdout
run file 2 --output file=f/out,tag
touch plain
run bad 1 --output-filename plain/sub
head -c 100000 /dev/urandom > binary
printf 'no newline at the end' >> binary
timeout 30 "$BIN/pmixrun" -n 1 --raw-output cat binary > raw.out 2> raw.err
cmp -s binary raw.out || fail "--raw-output changed the bytes: $(cmp binary raw.out)"

# The library's formatter and pmixrun's agree: a tool pulls with TAG + TIMESTAMP.
TICKER_STOP=$TMPDIR/stop "$BIN/pmixrun" -n 2 -x TICKER_STOP --timeout 60 --tag-output \
  --timestamp-output "$TICKER" > ticker.out 2> ticker.err &
JOB_PID=$!
for _ in $(seq 1 100); do
  "$BIN/pmix-servers" --json 2>/dev/null | grep -q "\"pid\":$JOB_PID" && break
  sleep 0.1
done
timeout 40 "$TOOL" --pid "$JOB_PID" --lines 10 > pulled.out 2> pulled.err || fail "iof_tool: $(cat pulled.err)"
touch stop
timeout 30 bash -c "while kill -0 $JOB_PID 2>/dev/null; do sleep 0.1; done"
wait "$JOB_PID" || fail "the ticker job failed: $(cat ticker.err)"
JOB_PID=

python3 - "$TMPDIR" <<'PY' || fail "see above"
import glob, os, re, sys
os.chdir(sys.argv[1])
def read(p): return open(p, errors="surrogateescape").read()
for name in ("default", "tag", "stamp", "both", "xml", "merge", "files", "nocopy", "file"):
    assert read(f"{name}.rc").strip() == "0", f"{name}: exit {read(name + '.rc')}: {read(name + '.err')}"
assert read("bad.rc").strip() == "2", read("bad.rc")
assert "cannot write output files in" in read("bad.err") and "Not a directory" in read("bad.err"), read("bad.err")
ns = os.path.basename(glob.glob("d/pmixrun.*")[0])
STAMP = r"\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\]"
def per_rank(text, rank_of):
    """The lines of each rank, in order (ranks interleave, their own lines never do)."""
    out = {}
    for l in text.splitlines(True):
        out.setdefault(rank_of(l), []).append(l)
    return out
def exact(name, stream, pattern):
    got = read(f"{name}.{stream}")
    assert re.fullmatch(pattern, got, re.S), f"{name}.{stream}: {got!r} !~ {pattern!r}"
E = re.escape
d = per_rank(read("default.out"), lambda l: l[1])
assert sorted(d) == ["0", "1"] and all(d[r] == [f"[{r}] l1\n", f"[{r}] l <&>\n", f"[{r}] part\n"] for r in "01"), d
assert sorted(read("default.err").splitlines()) == ["[0] e1", "[1] e1"], read("default.err")
tag_ns = re.match(r"\[(pmixrun\.\d+),0\]", read("tag.out")).group(1)
tag = lambda s: E(f"[{tag_ns},0]<{s}>: ")
exact("tag", "out", tag("stdout") + "l1\n" + tag("stdout") + E("l <&>\n") + tag("stdout") + "part")
exact("tag", "err", tag("stderr") + "e1\n")
both_ns = re.search(r"\]\[(pmixrun\.\d+),0\]", read("both.out")).group(1)
both = lambda s: STAMP + E(f"[{both_ns},0]<{s}>: ")
exact("both", "out", both("stdout") + "l1\n" + both("stdout") + E("l <&>\n") + both("stdout") + "part")
exact("both", "err", both("stderr") + "e1\n")
exact("stamp", "out", STAMP + "<stdout>: l1\n" + STAMP + E("<stdout>: l <&>\n") + STAMP + "<stdout>: part")
exact("stamp", "err", STAMP + "<stderr>: e1\n")
exact("xml", "out", E('<stdout rank="0">l1&#010;</stdout>\n<stdout rank="0">l &lt;&amp;&gt;&#010;</stdout>\n'
                     '<stdout rank="0">part</stdout>\n'))
exact("xml", "err", E('<stderr rank="0">e1&#010;</stderr>\n'))
m = per_rank(read("merge.out"), lambda l: l[1])
for r in "01":
    assert sorted(m[r]) == sorted([f"[{r}] l1\n", f"[{r}] l <&>\n", f"[{r}] part\n", f"[{r}] e1\n"]), m[r]
assert read("merge.err") == "", read("merge.err")
files = sorted(os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk("d") for f in fs)
assert files == [f"d/{ns}/rank.{r}/{s}" for r in "01" for s in ("stderr", "stdout")], files
for r in "01":
    assert read(f"d/{ns}/rank.{r}/stdout") == "l1\nl <&>\npart", read(f"d/{ns}/rank.{r}/stdout")
    assert read(f"d/{ns}/rank.{r}/stderr") == "e1\n"
f = per_rank(read("files.out"), lambda l: l[1])
assert all(f[r] == [f"[{r}] l1\n", f"[{r}] l <&>\n", f"[{r}] part\n"] for r in "01"), f
assert read("nocopy.out") == "" and read("nocopy.err") == "", "nocopy printed"
ns2 = os.path.basename(glob.glob("d2/pmixrun.*")[0])
for r in "01":
    files2 = sorted(os.listdir(f"d2/{ns2}/rank.{r}"))
    assert files2 == ["stdout"], files2  # merged: no stderr file
    t = read(f"d2/{ns2}/rank.{r}/stdout")
    assert sorted(t.replace("part", "part\n").splitlines()) == ["e1", "l <&>", "l1", "part"], t
ns3 = re.search(r"out\.(pmixrun\.\d+)\.0\.out", " ".join(os.listdir("f"))).group(1)
assert sorted(os.listdir("f")) == [f"out.{ns3}.{r}.{s}" for r in "01" for s in ("err", "out")], os.listdir("f")
t3 = lambda r, s: f"[{ns3},{r}]<{s}>: "
for r in "01":
    assert read(f"f/out.{ns3}.{r}.out") == f"{t3(r,'stdout')}l1\n{t3(r,'stdout')}l <&>\n{t3(r,'stdout')}part"
    assert read(f"f/out.{ns3}.{r}.err") == f"{t3(r,'stderr')}e1\n"
# Library and launcher formats: every line the tool pulled is one pmixrun printed (the
# timestamps may differ by a second: compared without them).
strip = lambda l: re.sub("^" + STAMP, "", l)
printed = set(strip(l) for l in read("ticker.out").splitlines())
pulled = [l for l in read("pulled.out").splitlines() if l and l != "DEREGISTERED"]
assert len(pulled) >= 10, pulled
missing = [l for l in pulled if strip(l) not in printed]
assert not missing, f"pulled, not printed alike: {missing[:3]} (printed e.g. {sorted(printed)[:3]})"
assert all(re.match(STAMP + r"\[pmixrun\.\d+,\d\]<stdout>: ", l) for l in read("ticker.out").splitlines()), read("ticker.out")[:300]
print(f"PASS: default, --tag-output, --timestamp-output, both, --xml, --merge-stderr-to-stdout, "
      f"--output-filename (+:nocopy), --output file=,tag exact; --raw-output byte-exact; bad "
      f"directory refused; {len(pulled)} lines pulled by a tool formatted as pmixrun prints them")
PY
