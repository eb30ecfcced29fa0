#!/bin/bash
# segment_case.sh MODE BINDIR: segment_client MODE (failed_write | reinit | get_nb) on 2 ranks under
# pmixrun, with the client's debug log: both ranks must say "ok"; failed_write must also show that
# rank 0's segment write failed and was abandoned (so the case tested the path it is about).
set -u
MODE=$1 BIN=$2
out=$(PMIX_CPP_LOG=debug timeout -s KILL 60 "$BIN/pmixrun" -n 2 "$BIN/segment_client" "$MODE" 2>&1)
rc=$?
fails=0
[ "$rc" -eq 0 ] || { echo "FAIL: pmixrun exited $rc"; fails=1; }
for r in 0 1; do
  grep -q "rank $r ok" <<<"$out" || { echo "FAIL: rank $r not ok"; fails=1; }
done
if [ "$MODE" = failed_write ] && ! grep -q "own modex segment abandoned" <<<"$out"; then
  echo "FAIL: the segment write did not fail (the case did not test its path)"; fails=1
fi
grep "^rank\|abandoned\|FAIL" <<<"$out"
[ "$fails" -eq 0 ] || { echo "$out" | tail -30; exit 1; }
echo PASS
