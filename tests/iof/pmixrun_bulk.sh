#!/usr/bin/env bash
# tests/iof/pmixrun_bulk.sh PMIXRUN LAST_WORDS [MB] - output and input through pmixrun on one node,
# byte for byte, with bounded memory:
#  - MB (default 100) MiB of random bytes (NULs, no final newline) written by rank 0 reach
#    pmixrun's stdout unchanged (--raw-output); then again while pmixrun's reader is slow at first;
#  - MB MiB fed to pmixrun's stdin reach rank 0 (sha256); --stdin all: every rank of 3, --stdin 2:
#    rank 2 only, --stdin none: nobody (the others read EOF);
#  - nothing lost at the end: a rank that exits, is killed (SIGKILL) or calls PMIx_Abort after
#    2000 lines and a partial line on stdout and on stderr has all of it printed.
# pmixrun's peak RSS (VmHWM, /usr/bin/time %M) and the throughput are printed, not asserted.
set -uo pipefail  # a pipeline fails when pmixrun does
PMIXRUN=$1 LAST=$2 MB=${3:-100}
DIR=$(mktemp -d /tmp/pmix-iofbulk.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sha() { sha256sum | cut -c1-64; }
now() { date +%s.%N; }

head -c $((MB * 1024 * 1024 - 7)) /dev/urandom > "$DIR/data"  # not a multiple of any buffer
want=$(sha < "$DIR/data")

# Output: rank 0 cats the file; pmixrun prints the bytes as they come.
t0=$(now)
/usr/bin/time -f %M -o "$DIR/rss.out" timeout 60 "$PMIXRUN" -n 1 --raw-output cat "$DIR/data" \
  2> "$DIR/err" | sha > "$DIR/got" || fail "output run: $(cat "$DIR/err")"
t1=$(now)
[[ $(cat "$DIR/got") == "$want" ]] || fail "output: sha256 differs ($(cat "$DIR/err"))"
echo "out: $MB MiB byte-exact through pmixrun in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s;" \
  "pmixrun max RSS $(cat "$DIR/rss.out") KiB"
# A reader that takes nothing for 2 s: pmixrun must wait (the rank blocks), not buffer it all.
/usr/bin/time -f %M -o "$DIR/rss.slow" timeout 60 "$PMIXRUN" -n 1 --raw-output cat "$DIR/data" \
  2> "$DIR/err" | { sleep 2; sha; } > "$DIR/got" || fail "slow output run: $(cat "$DIR/err")"
[[ $(cat "$DIR/got") == "$want" ]] || fail "slow reader: sha256 differs"
echo "out, slow reader: byte-exact; pmixrun max RSS $(cat "$DIR/rss.slow") KiB"

# Input: pmixrun's stdin to rank 0 (default), every rank, rank 2, nobody.
SUM='printf "rank %s %s\n" "$PMIX_RANK" "$(sha256sum | cut -c1-64)"'
empty=$(printf '' | sha)
t0=$(now)
/usr/bin/time -f %M -o "$DIR/rss.in" timeout 60 "$PMIXRUN" -n 2 sh -c "$SUM" < "$DIR/data" \
  > "$DIR/out" 2>&1 || fail "stdin run: $(cat "$DIR/out")"
t1=$(now)
grep -qx "\[0\] rank 0 $want" "$DIR/out" || fail "stdin to rank 0: $(cat "$DIR/out")"
grep -qx "\[1\] rank 1 $empty" "$DIR/out" || fail "rank 1 did not read EOF: $(cat "$DIR/out")"
echo "in: $MB MiB byte-exact to rank 0 in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s;" \
  "pmixrun max RSS $(cat "$DIR/rss.in") KiB"
head -c $((8 * 1024 * 1024 + 3)) "$DIR/data" > "$DIR/small"
small=$(sha < "$DIR/small")
/usr/bin/time -f %M -o "$DIR/rss.all" timeout 60 "$PMIXRUN" -n 3 --stdin all sh -c "$SUM" \
  < "$DIR/small" > "$DIR/out" 2>&1 || fail "--stdin all: $(cat "$DIR/out")"
for r in 0 1 2; do
  grep -qx "\[$r\] rank $r $small" "$DIR/out" || fail "--stdin all, rank $r: $(cat "$DIR/out")"
done
echo "in, --stdin all: 8 MiB to each of 3 ranks; pmixrun max RSS $(cat "$DIR/rss.all") KiB"
timeout 60 "$PMIXRUN" -n 3 --stdin 2 sh -c "$SUM" < "$DIR/small" > "$DIR/out" 2>&1 \
  || fail "--stdin 2: $(cat "$DIR/out")"
grep -qx "\[2\] rank 2 $small" "$DIR/out" || fail "--stdin 2: $(cat "$DIR/out")"
grep -qx "\[0\] rank 0 $empty" "$DIR/out" || fail "--stdin 2, rank 0: $(cat "$DIR/out")"
timeout 60 "$PMIXRUN" -n 2 --stdin none sh -c "$SUM" < "$DIR/small" > "$DIR/out" 2>&1 \
  || fail "--stdin none: $(cat "$DIR/out")"
[[ $(grep -c " $empty\$" "$DIR/out") == 2 ]] || fail "--stdin none: $(cat "$DIR/out")"
"$PMIXRUN" -n 2 --stdin 2 true > "$DIR/out" 2>&1
[[ $? == 2 ]] || fail "--stdin 2 of 2 ranks was accepted"

# Nothing lost: exit, SIGKILL and PMIx_Abort right after writing.
for mode in exit signal abort; do
  want_rc=0
  [[ $mode == signal ]] && want_rc=137
  [[ $mode == abort ]] && want_rc=3
  timeout 60 "$PMIXRUN" -n 2 "$LAST" "$mode" 2000 > "$DIR/out" 2> "$DIR/err"
  rc=$?
  [[ $rc == "$want_rc" ]] || fail "$mode: pmixrun exited $rc, not $want_rc: $(tail -3 "$DIR/err")"
  [[ $(grep -c '^\[0\] line [0-9]*$' "$DIR/out") == 2000 ]] || fail "$mode: lines lost"
  grep -qx "\[0\] line 1999" "$DIR/out" || fail "$mode: the last whole line is missing"
  grep -qx "\[0\] last words $mode" "$DIR/out" || fail "$mode: partial stdout line lost"
  grep -qx "\[0\] err words $mode" "$DIR/err" || fail "$mode: partial stderr line lost"
done
echo "exit, SIGKILL, PMIx_Abort: 2000 lines and both partial lines printed"
echo PASS
