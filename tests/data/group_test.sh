#!/bin/bash
# group_test.sh PMIXRUN GROUP_CLIENT MODE N: pmixrun runs N group_client ranks in MODE
# (group_client.cpp lists the modes). Passes when every rank that should finish printed
# "done MODE failures=0", no rank printed a FAIL line, every context id is the same for all
# members of its group and different between groups, and pmixrun exited 0 (in the die modes a
# rank dies on purpose, so pmixrun's status is not 0 and the dead rank prints no "done").
set -u
PMIXRUN=$1
PROG=$2
MODE=$3
N=$4
WORK=$(mktemp -d "${TMPDIR:-/tmp}/group-test.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/tmp"
env TMPDIR="$WORK/tmp" timeout -s KILL 150 "$PMIXRUN" -n "$N" "$PROG" "$MODE" \
  >"$WORK/out" 2>"$WORK/err"
RC=$?
echo "--- pmixrun -n $N $MODE -> $RC"; echo "--- stdout:"; cat "$WORK/out"
echo "--- stderr:"; cat "$WORK/err"
fail() { echo "FAIL: $*"; exit 1; }
WANT=$N
case "$MODE" in
  die*) WANT=$((N - 1)); [ "$RC" -ne 137 ] || fail "pmixrun was killed (hang)" ;;
  *) [ "$RC" -eq 0 ] || fail "pmixrun exited $RC" ;;
esac
DONE=$(grep -c "done $MODE failures=0" "$WORK/out")
[ "$DONE" -eq "$WANT" ] || fail "$DONE of $WANT ranks finished without failures"
! grep -q ": FAIL " "$WORK/out" || fail "a rank reported a failure"
OKS=$(grep -c ": ok " "$WORK/out")
[ "$OKS" -gt 0 ] || fail "no check ran"
# Context ids: one per group, none shared between groups.
# pmixrun tags each line with its rank ("[r] ").
PAIRS=$(sed 's/^\[[0-9.]*\] //' "$WORK/out" | grep '^ctx ' | sort -u)
GROUPS_SEEN=$(echo "$PAIRS" | awk 'NF' | awk '{print $2}' | sort | uniq -d)
[ -z "$GROUPS_SEEN" ] || fail "members of a group got different context ids: $GROUPS_SEEN"
IDS_SHARED=$(echo "$PAIRS" | awk 'NF' | awk '{print $3}' | sort | uniq -d)
[ -z "$IDS_SHARED" ] || fail "groups share a context id: $IDS_SHARED"
echo "checks passed: $OKS, context ids: $(echo "$PAIRS" | awk 'NF' | wc -l) distinct"
echo PASS
