#!/usr/bin/env bash
# bench-collective-sim --quick (D = 2, 3, 8, 16): every row of every table is there, every
# simulated collective delivered the right data on every node (the program checks each node's
# result and exits non-zero otherwise) and the model agrees with the real engines. No timings.
#   collective_sim_quick.sh BENCH_COLLECTIVE_SIM
set -u
bin=$1
out=$(mktemp)
cleanup() { rm -f "$out"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

timeout 60 "$bin" --quick >"$out" 2>&1 || fail "exit status $?"
grep -q "WRONG\|DIFFERS" "$out" && fail "wrong data or model disagreement"
count() { grep -c "$1" "$out"; }
# Per D: four allgathers (three at D = 3: recursive doubling needs a power of two), two barriers,
# two broadcasts, each with a verified real-code result except the flat broadcast (model only).
for d in 2 3 8 16; do
  want=8
  [ "$d" = 3 ] && want=7
  got=$(grep -c "^| [a-z ]* | $d | " "$out")
  [ "$got" = "$want" ] || fail "D = $d: $got operation rows, expected $want"
  ok=$(grep "^| [a-z ]* | $d | " "$out" | grep -c "| ok |$")
  [ "$ok" = $((want - 1)) ] || fail "D = $d: $ok rows with verified data, expected $((want - 1))"
done
[ "$(count '^| [0-9]* | [0-9]* B | [0-9.]* | ')" = $((4 * 3 + 4)) ] || fail "sweep rows"
[ "$(count '^| [0-9]* | [0-9]* | [0-9.]* | 50.1 | ')" = 4 ] || fail "projection rows"
grep -q "^Engines' host cost, .* data ok" "$out" || fail "host cost line"
echo "PASS: every row, every node's data verified"
