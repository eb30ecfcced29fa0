#!/usr/bin/env bash
# tests/compat/python/tool_vs_pmixrun.sh LIBDIR PMIXRUN TARGET - runs a 2-rank pmixrun job that
# waits (tool_target), points python3-pmix's PMIxTool (tool.py) at it, then lets the job end.
# Private TMPDIR, deadline, the job is always ended.
set -euo pipefail
LIBDIR=$1 PMIXRUN=$2 TARGET=$3
export TMPDIR=$(mktemp -d /tmp/pmix-pytool.XXXXXX)
trap 'touch "$TMPDIR/go"; sleep 0.5; kill -9 $JOB 2>/dev/null || true; rm -rf "$TMPDIR"' EXIT
TOOL_TARGET_GO=$TMPDIR/go "$PMIXRUN" -n 2 -x TOOL_TARGET_GO --timeout 60 "$TARGET" > "$TMPDIR/job.out" 2>&1 &
JOB=$!
for _ in $(seq 1 100); do ls "$TMPDIR"/pmix.*.tool.$JOB > /dev/null 2>&1 && break; sleep 0.1; done
LD_LIBRARY_PATH=$LIBDIR timeout -s KILL 30 /usr/bin/python3 -W ignore \
  "$(dirname "$0")/tool.py" "$JOB" "pmixrun.$JOB" 2
touch "$TMPDIR/go"
wait $JOB
