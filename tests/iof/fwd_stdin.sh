#!/usr/bin/env bash
# tests/iof/fwd_stdin.sh PMIXRUN FWD_STDIN STDIN_COUNT - PMIx_Spawn's PMIX_FWD_STDIN: a client of
# a pmixrun job spawns STDIN_COUNT jobs and pushes input to the ranks FWD_STDIN named (fwd_stdin.cpp
# says which); each spawned rank must report exactly the bytes (count and FNV-1a) the client says
# it pushed to it, the ranks not named none (EOF at once), and every refusal must have come.
set -u
PMIXRUN=$1 PROG=$2 COUNT=$3
export TMPDIR=$(mktemp -d /tmp/pmix-fwdstdin.XXXXXX)
cleanup() { rm -rf "$TMPDIR"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

timeout 60 "$PMIXRUN" -n 1 --timeout 50 "$PROG" "$COUNT" < /dev/null \
  > "$TMPDIR/out" 2> "$TMPDIR/err"
rc=$?
cat "$TMPDIR/out" "$TMPDIR/err"
[[ $rc == 0 ]] || fail "pmixrun exited $rc"
grep -q '^\[0\] fwd_stdin: 0 failed checks$' "$TMPDIR/out" || fail "the client's checks failed"
expected=$(grep -c '^\[0\] fwd_stdin: job ' "$TMPDIR/out")
[[ $expected == 7 ]] || fail "the client expects $expected ranks' input (want 7)"
while read -r _ _ _ job _ rank _ bytes _ hash; do
  grep -qx "\[$job\.$rank\] rank $rank bytes $bytes fnv $hash" "$TMPDIR/out" ||
    fail "rank $job.$rank did not read the $bytes bytes (fnv $hash) pushed to it"
done < <(grep '^\[0\] fwd_stdin: job ' "$TMPDIR/out")
echo "PASS: PMIX_FWD_STDIN (rank, bool, wildcard): $expected ranks read exactly what was pushed; refusals as expected"
