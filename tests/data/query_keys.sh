#!/usr/bin/env bash
# Every query key against a one-node pmixrun job (tests/data/query_keys_client.c checks each answer).
#   query_keys.sh BINDIR MODE
# MODE named:    two app contexts named with --pset, --timeout 60
#      default:  two app contexts with the launcher's set names, no time limit
#      openpmix: pmixrun-openpmix (Debian's OpenPMIx 4.2.2 library, the same launcher source) and
#                the client built against it: the host's answers are the same code; the library's
#                own (ABI levels before and after init) are OpenPMIx's.
# Passes when pmixrun exits 0, no "FAIL" line was printed and every rank printed its checks.
set -u
bin=$1 mode=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/qkeys.XXXXXX")
tag="qkeys.$$.$RANDOM"
cleanup() {
  for p in $(grep -lsa "PMIXRUN_TEST_TAG=$tag" /proc/[0-9]*/environ | cut -d/ -f3); do
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/tmp"
run=$bin/pmixrun client=$bin/query_keys_client extra=()
case $mode in
named) args=(--timeout 60 -n 2 --pset ocean "$client" ocean,ice 60 1 : -n 1 --pset ice "$client" ocean,ice 60 1) ;;
default) args=(-n 2 "$client" default 0 1 : -n 2 "$client" default 0 1) ;;
openpmix)
  run=$bin/pmixrun-openpmix client=$bin/query_keys_client-openpmix
  [ -x "$run" ] && [ -x "$client" ] || { echo "SKIP: OpenPMIx variants not built"; exit 77; }
  extra=("ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
  args=(--timeout 60 -n 2 --pset ocean "$client" ocean,ice 60 1 noget : -n 1 --pset ice "$client" ocean,ice 60 1 noget)
  ;;
*) echo "FAIL: unknown mode $mode"; exit 1 ;;
esac
env TMPDIR="$work/tmp" PMIXRUN_TEST_TAG="$tag" PMIX_CPP_GDS_PREFIX="/qkeys-$$" "${extra[@]}" \
  timeout -s KILL 100 "$run" "${args[@]}" >"$work/out" 2>"$work/err"
rc=$?
echo "--- $mode: pmixrun exit $rc"
cat "$work/out" "$work/err"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$rc" -eq 0 ] || fail "pmixrun exited $rc"
grep -q "FAIL" "$work/out" && fail "a check failed (above)"
# Rank 0 runs 22 checks (21 without the two of its own set), every other rank 2.
nranks=$(grep -c '^\[[0-9]*\] ok stable ABI version answered before PMIx_Init' "$work/out")
oks=$(grep -c '^\[[0-9]*\] ok ' "$work/out")
echo "ranks $nranks, checks passed $oks"
[ "$nranks" -ge 3 ] || fail "not every rank reported"
[ "$oks" -ge 20 ] || fail "only $oks checks passed"
[ "$fails" -eq 0 ] && echo PASS
