#!/usr/bin/env bash
# tests/tools/cli_pmixrun.sh BIN_DIR TARGET CYCLES_BIN CASE [RSS_BOUND_KIB] - tools against a
# running pmixrun.
#   cli:    pmix-servers / pmix-ps / pmix-query (text and JSON) see the job, its processes
#           (pid, state, exit code of a finished rank) and its namespace; everything the
#           launcher and its library wrote is gone after the job.
#   cycles: 1,000 tool connect / query / disconnect cycles against the launcher, with its and
#           the tool's descriptors and memory measured (tool_cycles).
# Runs in a private TMPDIR (the rendezvous files go there), under a deadline; kills the job on exit.
set -euo pipefail
BIN=$1 TARGET=$2 CYCLES=$3 CASE=$4 RSS_BOUND_KIB=${5:-4096}
export TMPDIR=$(mktemp -d /tmp/pmix-clitest.XXXXXX)
GO=$TMPDIR/go
JOB_PID=
cleanup() {
  touch "$GO" 2>/dev/null || true
  if [[ -n $JOB_PID ]] && kill -0 "$JOB_PID" 2>/dev/null; then
    sleep 1; kill -9 "$JOB_PID" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

TOOL_TARGET_GO=$GO "$BIN/pmixrun" -n 3 -x TOOL_TARGET_GO --timeout 120 "$TARGET" > "$TMPDIR/job.out" 2>&1 &
JOB_PID=$!

# The launcher's server shows up in pmix-servers once its rendezvous files are written.
for _ in $(seq 1 100); do
  "$BIN/pmix-servers" --json > "$TMPDIR/servers.json" 2>/dev/null || true
  grep -q "\"pid\":$JOB_PID" "$TMPDIR/servers.json" && break
  sleep 0.2
done
grep -q "\"pid\":$JOB_PID" "$TMPDIR/servers.json" || fail "pmix-servers never listed pmixrun ($JOB_PID): $(cat "$TMPDIR/servers.json")"
echo "pmix-servers:"; "$BIN/pmix-servers"

if [[ $CASE == cycles ]]; then
  "$CYCLES" --pid "$JOB_PID" --cycles 1000 --max-rss-growth-kib "$RSS_BOUND_KIB"
  touch "$GO"; wait "$JOB_PID" || fail "the job failed: $(cat "$TMPDIR/job.out")"
  JOB_PID=
  exit 0
fi

# Wait for rank 0 to finish (its state and exit code are what the launcher reports).
for _ in $(seq 1 100); do
  "$BIN/pmix-ps" --json > "$TMPDIR/ps.json" 2>"$TMPDIR/ps.err" || true
  python3 - "$TMPDIR/ps.json" <<'PY' && break
import json, sys
jobs = json.load(open(sys.argv[1]))
procs = jobs[0]["procs"] if jobs else []
ok = len(procs) == 3 and "TERMINATED" in procs[0]["state"] and all("CONNECTED" in p["state"] or "EXECUTING" in p["state"] for p in procs[1:])
sys.exit(0 if ok else 1)
PY
  sleep 0.2
done
echo "pmix-ps:"; "$BIN/pmix-ps"
python3 - "$TMPDIR/ps.json" "$TARGET" <<'PY' || fail "pmix-ps --json: $(cat "$TMPDIR/ps.json") $(cat "$TMPDIR/ps.err")"
import json, os, sys
jobs = json.load(open(sys.argv[1]))
assert len(jobs) == 1, jobs
procs = jobs[0]["procs"]
assert [p["proc"]["rank"] for p in procs] == [0, 1, 2], procs
assert "TERMINATED" in procs[0]["state"] and procs[0]["exit_code"] == 0, procs[0]
for p in procs[1:]:
    assert "CONNECTED" in p["state"], p
    cmdline = open(f"/proc/{p['pid']}/cmdline").read()          # the pid is the real process
    assert os.path.basename(sys.argv[2]) in cmdline, (p, cmdline)
    assert p["executable"] == sys.argv[2], p
print("pmix-ps: ranks, pids, states, exit code and executable as expected")
PY
NS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["nspace"])' "$TMPDIR/ps.json")
"$BIN/pmix-query" --pid "$JOB_PID" --json PMIX_QUERY_NAMESPACES pmix.qry.jst > "$TMPDIR/q.json"
cat "$TMPDIR/q.json"
python3 - "$TMPDIR/q.json" "$NS" <<'PY' || fail "pmix-query --json"
import json, sys
q = json.load(open(sys.argv[1]))
assert q["status"] == "SUCCESS", q
assert q["pmix.qry.ns"] == sys.argv[2], q
assert q["pmix.qry.jst"] == "SUCCESS", q
PY
"$BIN/pmix-query" --pid "$JOB_PID" --nspace "$NS" PMIX_QUERY_LOCAL_PROC_TABLE | grep -q '"rank":2' || fail "pmix-query text: local proc table"
if "$BIN/pmix-query" --pid 1 PMIX_QUERY_NAMESPACES 2>/dev/null; then fail "pmix-query reached pid 1"; fi
touch "$GO"
wait "$JOB_PID" || fail "the job failed: $(cat "$TMPDIR/job.out")"
JOB_PID=
left=$(find "$TMPDIR" -mindepth 1 -not -name job.out -not -name '*.json' -not -name ps.err -not -name go)
[[ -z $left ]] || fail "left behind after the job: $left"
echo "after the job: no rendezvous file, socket or session directory left"
