#!/usr/bin/env bash
# The main job: build the release library and run the demo (library version + pack/unpack self-check).
# Until the launcher lands this is the library self-check; see README "Status".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh release pmix-selfcheck
exec build/release/bin/pmix-selfcheck "$@"
