#!/usr/bin/env bash
# compare_with_openpmix.sh <maps_probe linked to ours> <maps_probe linked to Debian's OpenPMIx>
#
# Runs both probes on this machine's topology and on a few synthetic ones (HWLOC_SYNTHETIC makes
# hwloc in both libraries discover the same made-up machine) and requires identical output:
# cpuset strings and locality strings are exchanged between hosts and clients, so every byte
# counts. Exit 77 (CTest: skipped) when Debian's OpenPMIx cannot start a server here.
set -uo pipefail
ours=$1
theirs=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pmix-maps-compare.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Debian's library keeps some allocations until exit: no leak check for its probe (ours keeps it).
their_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

topologies=(
  ""                                          # this machine
  "pack:2 numa:1 l3:1 l2:2 l1d:1 core:1 pu:2" # two sockets, private L2/L1 per core, SMT
  "pack:1 numa:2 l3:1 core:4 pu:1"            # NUMA nodes below the package
  "numa:2 pack:1 core:3 pu:2"                 # NUMA nodes above the package
  "pack:4 core:2 pu:1"                        # no caches at all
)

failed=0
for topo in "${topologies[@]}"; do
  label=${topo:-this machine}
  mkdir -p "$scratch/ours" "$scratch/theirs"
  if [[ -n $topo ]]; then export HWLOC_SYNTHETIC=$topo; else unset HWLOC_SYNTHETIC; fi
  ASAN_OPTIONS=$their_asan "$theirs" "$scratch/theirs" \
    >"$scratch/theirs.out" 2>"$scratch/theirs.err"
  rc=$?
  if ((rc == 77)); then
    echo "SKIP: Debian's OpenPMIx could not initialise a server:"; cat "$scratch/theirs.err"
    exit 77
  fi
  if ((rc != 0)); then
    echo "FAIL [$label]: OpenPMIx probe exited with $rc"; cat "$scratch/theirs.err"; failed=1
    continue
  fi
  if ! "$ours" "$scratch/ours" >"$scratch/ours.out" 2>"$scratch/ours.err"; then
    echo "FAIL [$label]: our probe failed"; cat "$scratch/ours.err"; failed=1
    continue
  fi
  if diff -u "$scratch/theirs.out" "$scratch/ours.out" >"$scratch/diff"; then
    echo "same [$label]: $(grep -c '' "$scratch/ours.out") lines"
  else
    echo "DIFFERENT [$label] (--- OpenPMIx, +++ ours):"; cat "$scratch/diff"; failed=1
  fi
done
exit $failed
