#!/usr/bin/env bash
# The full test suite: dev preset (-Werror) then the ASan/UBSan preset, each with every CTest label.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
for preset in dev asan; do
  echo "=== ${preset}: build"
  bash scripts/setup.sh "$preset"
  echo "=== ${preset}: test"
  ctest --preset "$preset" "$@"
done
echo "=== all suites passed in $(( $(date +%s) - start )) s"
