#!/bin/bash
# commit_segment.sh MODE BINDIR N: N ranks loop Put/Commit/collecting Fence/Get of the next rank's
# fresh key (fault_client, 300 rounds, values checked) with the own modex segment (MODE on, the
# default: the asynchronous commit, peers read the segment) or without (off:
# PMIX_CPP_COMMIT_SEGMENT=off, the synchronous commit); every rank must finish, and no
# shared-memory object of the run may be left.
set -u
MODE=$1 BIN=$2 N=${3:-4}
PREFIX="pmixcseg-$$"
export PMIX_CPP_GDS_PREFIX="/$PREFIX"
[ "$MODE" = on ] && unset PMIX_CPP_COMMIT_SEGMENT
[ "$MODE" = off ] && export PMIX_CPP_COMMIT_SEGMENT=off
log=$(mktemp)
FAULT_PAUSE_MS=2 timeout -s KILL 60 "$BIN/pmixrun" -n "$N" "$BIN/fault_client" 300 64 10 - >"$log" 2>&1 &
job=$!
# While it runs: the ranks (pmixrun's children) that hold their own segment, a sealed memfd
# named "pmix-modex" (gds/backing_memfd.cpp).
seen=""
while kill -0 "$job" 2>/dev/null; do
  server=$(pgrep -P "$job" -x pmixrun | head -1)
  for rank in $( [ -n "$server" ] && pgrep -P "$server"); do
    ls -l "/proc/$rank/fd" 2>/dev/null | grep -q "memfd:pmix-modex" && seen="$seen $rank"
  done
  sleep 0.05
done
wait "$job"
rc=$?
out=$(cat "$log"); rm -f "$log"
fails=0
owners=$(tr ' ' '\n' <<<"$seen" | sort -u | grep -c .)
if [ "$MODE" = on ] && [ "$owners" -eq 0 ]; then echo "FAIL: no rank's own segment seen"; fails=1; fi
if [ "$MODE" = off ] && [ "$owners" -ne 0 ]; then echo "FAIL: own segments although off"; fails=1; fi
[ "$rc" -eq 0 ] || { echo "FAIL: pmixrun exited $rc"; fails=1; }
done_count=$(grep -c "rank [0-9]* done" <<<"$out")
[ "$done_count" -eq "$N" ] || { echo "FAIL: $done_count of $N ranks done"; echo "$out" | tail -20; fails=1; }
sleep 0.2
left=$(cd /dev/shm && ls -d "$PREFIX"-* 2>/dev/null)
if [ -n "$left" ]; then
  echo "FAIL: left in /dev/shm: $left"
  (cd /dev/shm && rm -f "$PREFIX"-*)
  fails=1
fi
echo "commit_segment $MODE N=$N: $done_count ranks done, pmixrun $rc, own segments of $owners rank(s) seen"
exit $fails
