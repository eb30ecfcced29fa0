#!/usr/bin/env bash
# pset_spawn.sh PMIXRUN PSET_SPAWN: one rank spawns two children as process set "kids"
# (pset_spawn.c). Passes when pmixrun exits 0 with "parent ok" once and "child ok" twice.
set -u
PMIXRUN=$1
PROG=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pset-spawn.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/tmp"
env TMPDIR="$WORK/tmp" timeout -s KILL 90 "$PMIXRUN" --timeout 80 -n 1 "$PROG" >"$WORK/out" 2>"$WORK/err"
RC=$?
echo "--- pmixrun -> $RC"; cat "$WORK/out" "$WORK/err"
[ "$RC" -eq 0 ] || { echo "FAIL: pmixrun exited $RC"; exit 1; }
[ "$(grep -c 'parent ok' "$WORK/out")" -eq 1 ] || { echo "FAIL: no 'parent ok'"; exit 1; }
[ "$(grep -c 'child ok' "$WORK/out")" -eq 2 ] || { echo "FAIL: not two 'child ok'"; exit 1; }
echo PASS
