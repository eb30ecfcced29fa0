#!/usr/bin/env bash
# The main job: build the release library, launcher and examples, then launch a real job of
# N processes (default 8) with pmixrun: every rank Puts a key, Commits, Fences with data collection
# and Gets every peer's key; pmixrun prints a startup/wireup report. The same job then runs on
# Debian's OpenPMIx 4.2.2 (pmixrun-openpmix, same source) for comparison; then, where network
# namespaces can be made (root), the same job across 2 simulated nodes (one pmixd each, fences
# over libfabric); the library self-check runs last.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-8}
bash scripts/setup.sh release pmix-selfcheck pmixrun pmixd putget pmixrun-openpmix putget-openpmix
bin=build/release/bin
echo "=== PMIx-C++: pmixrun -n ${N} --report -- putget"
"$bin/pmixrun" -n "$N" --timeout 60 --report -- "$bin/putget"
echo "=== OpenPMIx 4.2.2 (Debian), same launcher source: pmixrun-openpmix -n ${N} --report -- putget-openpmix"
"$bin/pmixrun-openpmix" -n "$N" --timeout 60 --report -- "$bin/putget-openpmix"
sim="pm$$"
if bash scripts/netns.sh probe "$sim" >/dev/null; then
  trap 'bash scripts/netns.sh destroy "$sim"' EXIT
  bash scripts/netns.sh create "$sim" 2
  half=$(( (N + 1) / 2 ))
  echo "=== PMIx-C++ on 2 simulated nodes: pmixrun --host ${sim}n0:${half},${sim}n1:${half} -n ${N} --launch-agent \"ip netns exec\" --report -- putget"
  "$bin/pmixrun" --host "${sim}n0:${half},${sim}n1:${half}" -n "$N" --launch-agent "ip netns exec" \
    --timeout 60 --report -- "$bin/putget"
  bash scripts/netns.sh destroy "$sim"
  trap - EXIT
else
  echo "=== (no network namespaces here: the 2-node run is skipped)"
fi
echo "=== library self-check"
exec "$bin/pmix-selfcheck"
