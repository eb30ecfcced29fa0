#!/usr/bin/env bash
# tests/iof/fwd_spawn.sh PMIXRUN FWD_SPAWN - PMIx_Spawn's PMIX_FWD_STDOUT / PMIX_FWD_STDERR: a
# client of a pmixrun job spawns two children; the channels it asked for reach it (its library
# writes them to its own stdout / stderr, which pmixrun then prints as the parent's, "[0] ..."),
# the others do not. Without FWD nothing reaches it (pmixrun prints the children's output as
# theirs, "[1.<rank>] ...", in every mode).
set -u
PMIXRUN=$1 PROG=$2
export TMPDIR=$(mktemp -d /tmp/pmix-fwdspawn.XXXXXX)
trap 'rm -rf "$TMPDIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for mode in stdout stderr none; do
  timeout 60 "$PMIXRUN" -n 1 --timeout 50 "$PROG" "$mode" \
    > "$TMPDIR/$mode.out" 2> "$TMPDIR/$mode.err"
  rc=$?
  cat "$TMPDIR/$mode.out" "$TMPDIR/$mode.err" | sed "s/^/$mode| /"
  [[ $rc == 0 ]] || fail "mode $mode: pmixrun exited $rc"
  out_fwd=$(grep -c '^\[0\] fwd-child stdout' "$TMPDIR/$mode.out")
  err_fwd=$(grep -c '^\[0\] fwd-child stderr' "$TMPDIR/$mode.err")
  own_out=$(grep -c '^\[1\.[01]\] fwd-child stdout' "$TMPDIR/$mode.out")
  own_err=$(grep -c '^\[1\.[01]\] fwd-child stderr' "$TMPDIR/$mode.err")
  case $mode in
    stdout) want_out=6 want_err=0 ;;
    stderr) want_out=0 want_err=6 ;;
    none) want_out=0 want_err=0 ;;
  esac
  [[ $out_fwd == "$want_out" && $err_fwd == "$want_err" ]] ||
    fail "mode $mode: the parent passed on $out_fwd stdout / $err_fwd stderr lines (want $want_out / $want_err)"
  [[ $own_out == 6 && $own_err == 6 ]] ||
    fail "mode $mode: pmixrun printed $own_out / $own_err of the children's own lines (want 6 / 6)"
  grep -q "^\[0\] fwd_spawn: mode=$mode " "$TMPDIR/$mode.out" || fail "mode $mode: no summary"
done
echo "PASS: FWD_STDOUT / FWD_STDERR / none"
