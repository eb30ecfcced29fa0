#!/usr/bin/env bash
# Simulated nodes on one machine: network namespaces joined by veth pairs on a Linux bridge.
#   netns.sh create PREFIX D   -> namespaces PREFIXn0..n(D-1) with 198.18.0.1..D/24, bridge in PREFIXbr
#   netns.sh destroy PREFIX    -> removes every namespace whose name starts with PREFIX
#   netns.sh probe PREFIX      -> exit 0 if namespaces can be made here, else a SKIP line and 77
# PREFIX must be short (interface names are at most 15 characters) and unique per run.
set -euo pipefail
cmd=${1:?create|destroy}
prefix=${2:?prefix}
case $cmd in
create)
  d=${3:?number of nodes}
  ip netns add "${prefix}br"
  ip -n "${prefix}br" link add br0 type bridge
  ip -n "${prefix}br" link set br0 up
  for ((i = 0; i < d; i++)); do
    ns="${prefix}n$i"
    ip netns add "$ns"
    ip link add "${prefix}v$i" type veth peer name "${prefix}b$i"
    ip link set "${prefix}v$i" netns "$ns"
    ip link set "${prefix}b$i" netns "${prefix}br"
    ip -n "${prefix}br" link set "${prefix}b$i" master br0 up
    ip -n "$ns" addr add "198.18.0.$((i + 1))/24" dev "${prefix}v$i"
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "${prefix}v$i" up
  done
  ;;
probe)
  if ! err=$(ip netns add "${prefix}probe" 2>&1); then
    echo "SKIP: cannot create network namespaces: $err"
    exit 77
  fi
  ip netns del "${prefix}probe"
  ;;
destroy)
  for ns in $(ip netns list | awk '{print $1}' | grep "^${prefix}" || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$ns"
  done
  ;;
*) echo "usage: $0 create PREFIX D | destroy PREFIX | probe PREFIX" >&2; exit 2 ;;
esac
