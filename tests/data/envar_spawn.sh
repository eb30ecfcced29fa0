#!/bin/bash
# envar_spawn.sh PMIXRUN ENVAR_SPAWN: pmixrun runs one envar_spawn rank, which spawns itself with
# environment directives and checks what the child sees (envar_spawn.cpp). Passes when the rank
# printed "envar_spawn: ok" and pmixrun exited 0.
set -u
PMIXRUN=$1
PROG=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/envar-spawn.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/tmp"
env TMPDIR="$WORK/tmp" EV_WORK="$WORK" EV_PATH=/base EV_PARENT_ONLY=1 EV_FIRST=/a:/f \
  timeout -s KILL 90 "$PMIXRUN" -n 1 "$PROG" >"$WORK/out" 2>"$WORK/err"
RC=$?
echo "--- pmixrun -> $RC"; echo "--- stdout:"; cat "$WORK/out"; echo "--- stderr:"; cat "$WORK/err"
[ "$RC" -eq 0 ] || { echo "FAIL: pmixrun exited $RC"; exit 1; }
grep -q "envar_spawn: ok" "$WORK/out" || { echo "FAIL: no 'envar_spawn: ok'"; exit 1; }
echo PASS
