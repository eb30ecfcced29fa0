#!/usr/bin/env bash
# Cross-node fence benchmark: D = 2, 4, 8 simulated nodes (network namespaces on a bridge), one
# bench-fabric-node per node over tcp;ofi_rxm, 0 B / 64 B / 4 KiB / 64 KiB per node.
#   bash bench/fabric/run.sh [BUILD_DIR] [ITERS]      (root; writes bench/results/fabric-<date>.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
iters=${2:-200}
bin=$build/bin/bench-fabric-node
[ -x "$bin" ] || { echo "build $bin first (cmake --build $build --target bench-fabric-node)" >&2; exit 2; }
prefix="fb$$"
work=$(mktemp -d)
cleanup() { bash scripts/netns.sh destroy "$prefix"; rm -rf "$work"; }
trap cleanup EXIT
out=bench/results/fabric-$(date -u +%Y%m%d-%H%M%S).md
{
  echo "# Cross-node fence collectives (bench/fabric/run.sh, $(date -u +%F), $(nproc) cores)"
  echo
  echo "One process per simulated node (network namespace on a Linux bridge), libfabric tcp;ofi_rxm,"
  echo "$iters repetitions per row; times measured on node 0. model = 2 x ceil(log2 D) x latency + bytes x (D-1) x per-byte cost,"
  echo "with latency and per-byte cost measured between nodes 0 and 1 of the same run."
  echo
} >"$out"
for d in 2 4 8; do
  echo "== D = $d" >&2
  bash scripts/netns.sh create "$prefix" "$d"
  mkdir -p "$work/$d"
  pids=()
  for ((r = 0; r < d; r++)); do
    timeout -s KILL 300 ip netns exec "${prefix}n$r" "$bin" --rank "$r" --size "$d" --dir "$work/$d" \
      --node "198.18.0.$((r + 1))" --iters "$iters" >"$work/$d/out.$r" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { echo "a node failed:" >&2; cat "$work/$d"/out.* >&2; exit 1; }; done
  cat "$work/$d/out.0" | tee -a "$out"
  echo >>"$out"
  bash scripts/netns.sh destroy "$prefix"
done
echo "report: $out" >&2
