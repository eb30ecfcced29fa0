#!/bin/bash
# envar_cmdline.sh PMIXRUN ENVAR_CLIENT: pmixrun's prterun-style environment options on one node.
# Two ranks of envar_client print the variables they start with; every directive must have been
# applied in command-line order (set, then prepend onto it), the unset pattern must remove every
# matching variable and nothing else, and a bad directive must stop pmixrun before any rank runs.
set -u
PMIXRUN=$1
CLIENT=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/envar-cmdline.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/tmp"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_lines() {  # expect_lines PATTERN N
  local got
  got=$(grep -c -- "$1" "$WORK/out")
  [ "$got" -eq "$2" ] || fail "$2 line(s) matching '$1' expected, got $got"
}
echo "+ pmixrun -n 2 --set-env EV_A=1 --prepend-env EV_A[:] x --append-env EV_PATH[;] /z" \
  "--unset-env 'EV_DROP_*' -x EV_DROP_X=3 envar_client ..."
env TMPDIR="$WORK/tmp" EV_PATH=/base EV_DROP_1=a EV_DROP_2=b EV_KEEP=k \
  timeout -s KILL 60 "$PMIXRUN" -n 2 --set-env EV_A=1 --prepend-env 'EV_A[:]' x \
  --append-env 'EV_PATH[;]' /z --unset-env 'EV_DROP_*' -x EV_DROP_X=3 \
  "$CLIENT" EV_A EV_PATH EV_DROP_1 EV_DROP_2 EV_DROP_X EV_KEEP >"$WORK/out" 2>"$WORK/err"
RC=$?
cat "$WORK/out" "$WORK/err"
[ "$RC" -eq 0 ] || fail "pmixrun exited $RC"
expect_lines "EV_A=x:1$" 2
expect_lines "EV_PATH=/base;/z$" 2
expect_lines "EV_DROP_1 unset" 2
expect_lines "EV_DROP_2 unset" 2
expect_lines "EV_DROP_X unset" 2   # -x variables are matched by the pattern too
expect_lines "EV_KEEP=k$" 2
expect_lines "init=SUCCESS" 2
echo "+ pmixrun --prepend-env EV_A x envar_client (no separator: refused)"
env TMPDIR="$WORK/tmp" timeout -s KILL 60 "$PMIXRUN" --prepend-env EV_A x "$CLIENT" EV_A \
  >"$WORK/out" 2>"$WORK/err"
RC=$?
cat "$WORK/out" "$WORK/err"
[ "$RC" -eq 2 ] || fail "a directive without its separator: pmixrun exited $RC, expected 2"
grep -q "NAME\[c\]" "$WORK/err" || fail "no message saying how to write the separator"
[ -s "$WORK/out" ] && fail "a rank ran although the command line was refused"
[ "$fails" -eq 0 ] && echo PASS
exit $((fails > 0))
