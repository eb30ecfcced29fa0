#!/usr/bin/env bash
# Collectives across D simulated nodes: one bench-fabric-node per network namespace over
# tcp;ofi_rxm, each checking every block it receives.
#   fabric_netns.sh BIN D            all nodes must finish every collective (exit 0)
#   fabric_netns.sh BIN D killed     the last node dies after 30 collectives: every other node must
#                                    fail visibly (timeout or lost connection), none may hang
# Namespaces get a unique prefix and are always removed. Exit 77 (skipped) without netns rights.
set -uo pipefail
bin=$1 d=$2 mode=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
netns="$here/../../scripts/netns.sh"
prefix="ft$$"
work=$(mktemp -d)
cleanup() {
  pkill -9 -f -- "--dir $work" 2>/dev/null
  bash "$netns" destroy "$prefix"
  rm -rf "$work"
}
trap cleanup EXIT
bash "$netns" probe "$prefix" || exit $?
bash "$netns" create "$prefix" "$d" || { echo "FAIL: cannot build $d simulated nodes"; exit 1; }
pids=()
for ((r = 0; r < d; r++)); do
  extra=()
  [ "$mode" = killed ] && [ "$r" -eq $((d - 1)) ] && extra=(--kill-after 30)
  timeout -s KILL 120 ip netns exec "${prefix}n$r" "$bin" --rank "$r" --size "$d" --dir "$work" \
    --node "198.18.0.$((r + 1))" --iters 20 --deadline-ms 3000 "${extra[@]}" >"$work/out.$r" 2>&1 &
  pids+=($!)
done
fails=0
for ((r = 0; r < d; r++)); do
  wait "${pids[$r]}"
  rc=$?
  echo "--- node $r exit $rc"
  cat "$work/out.$r"
  if [ "$mode" = killed ]; then
    if [ "$r" -lt $((d - 1)) ]; then
      [ "$rc" -ne 0 ] && [ "$rc" -ne 137 ] && grep -qE "failed: (timeout|lost connection)" "$work/out.$r" ||
        { echo "FAIL: node $r did not report the dead node (exit $rc)"; fails=$((fails + 1)); }
    fi
  elif [ "$rc" -ne 0 ]; then
    echo "FAIL: node $r exit $rc"
    fails=$((fails + 1))
  fi
done
[ "$mode" = killed ] || grep -q "| $d | tcp;ofi_rxm | 65536 B" "$work/out.0" || { echo "FAIL: no report from node 0"; fails=$((fails + 1)); }
bash "$netns" destroy "$prefix"
left=$(ip netns list | grep -c "^$prefix" || true)
[ "$left" -eq 0 ] || { echo "FAIL: $left namespaces left"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "PASS: $d simulated nodes${mode:+ ($mode)}"
exit $((fails > 0))
