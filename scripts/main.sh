#!/usr/bin/env bash
# The main job: build the release library, launcher and examples, then launch a real job of
# N processes (default 8) with pmixrun: every rank Puts a key, Commits, Fences with data collection
# and Gets every peer's key; pmixrun prints a startup/wireup report. The same job then runs on
# Debian's OpenPMIx 4.2.2 (pmixrun-openpmix, same source) for comparison, and the library
# self-check runs last.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-8}
bash scripts/setup.sh release pmix-selfcheck pmixrun putget pmixrun-openpmix putget-openpmix
bin=build/release/bin
echo "=== PMIx-C++: pmixrun -n ${N} --report -- putget"
"$bin/pmixrun" -n "$N" --timeout 60 --report -- "$bin/putget"
echo "=== OpenPMIx 4.2.2 (Debian), same launcher source: pmixrun-openpmix -n ${N} --report -- putget-openpmix"
"$bin/pmixrun-openpmix" -n "$N" --timeout 60 --report -- "$bin/putget-openpmix"
echo "=== library self-check"
exec "$bin/pmix-selfcheck"
