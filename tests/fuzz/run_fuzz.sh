#!/usr/bin/env bash
# run_fuzz.sh <harness> <seconds> <work dir> <seed dir> <regression dir>
# One bounded libFuzzer run of a harness (the fuzz preset's tests fuzz.<h>): starts from the seeds
# and every reproducer, keeps what it finds in <work dir>/corpus, writes a crashing input to
# <work dir>/crash-* and fails on any crash, leak, UBSan report or timeout (libFuzzer's exit code).
set -u
harness=$1 seconds=$2 work=$3 seeds=$4 regressions=$5
mkdir -p "$work/corpus"
cleanup() { :; }  # libFuzzer runs in the foreground; timeout below ends it
trap cleanup EXIT
# One process on one core (no -jobs: that forks workers and sends their output to files).
# -timeout: one input taking longer is a hang; the outer timeout guards libFuzzer itself.
timeout --kill-after=10 $((seconds + 60)) "$harness" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" "$seeds" "$regressions"
rc=$?
if ((rc != 0)); then
  echo "run_fuzz: $(basename "$harness") failed (exit $rc); reproducers: $(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null | tr '\n' ' ')"
fi
exit $rc
