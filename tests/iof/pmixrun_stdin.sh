#!/usr/bin/env bash
# tests/iof/pmixrun_stdin.sh PMIXRUN STDIN_COUNT - pmixrun's stdin reaches rank 0 byte for byte
# (8 MiB of random bytes, then an empty stdin and a slow writer); the other ranks read EOF.
set -u
PMIXRUN=$1 COUNT=$2
DIR=$(mktemp -d /tmp/pmix-iofstdin.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # file -> "bytes N fnv H"
  python3 - "$1" <<'PY'
import sys
h, n = 1469598103934665603, 0
data = open(sys.argv[1], "rb").read()
for b in data:
    h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
print(f"bytes {len(data)} fnv {h:016x}")
PY
}
head -c $((8 * 1024 * 1024)) /dev/urandom > "$DIR/in"
: > "$DIR/empty"
EMPTY=$(expect "$DIR/empty")
want=$(expect "$DIR/in")
/usr/bin/time -f "%M" -o "$DIR/rss" timeout 120 "$PMIXRUN" -n 3 "$COUNT" < "$DIR/in" > "$DIR/out" 2>&1 \
  || fail "pmixrun: $(cat "$DIR/out")"
grep -qx "\[0\] rank 0 $want" "$DIR/out" || fail "rank 0: want '$want', got: $(cat "$DIR/out")"
for r in 1 2; do
  grep -qx "\[$r\] rank $r $EMPTY" "$DIR/out" || fail "rank $r did not read EOF: $(cat "$DIR/out")"
done
echo "8 MiB through pmixrun's stdin: $want; pmixrun max RSS $(cat "$DIR/rss") KiB"
timeout 60 "$PMIXRUN" -n 1 "$COUNT" < /dev/null > "$DIR/out0" 2>&1 || fail "empty stdin run failed"
grep -qx "\[0\] rank 0 $EMPTY" "$DIR/out0" || fail "empty stdin: $(cat "$DIR/out0")"
(echo one; sleep 0.5; echo two) | timeout 60 "$PMIXRUN" -n 1 "$COUNT" > "$DIR/out1" 2>&1 \
  || fail "slow writer run failed"
printf 'one\ntwo\n' > "$DIR/slow"
grep -qx "\[0\] rank 0 $(expect "$DIR/slow")" "$DIR/out1" || fail "slow writer: $(cat "$DIR/out1")"
echo PASS
