#!/usr/bin/env bash
# The full test suite: dev preset (-Werror) then the ASan/UBSan preset, each with every CTest label,
# then the shared-memory store's tests (label gds) under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
for preset in dev asan; do
  echo "=== ${preset}: build"
  bash scripts/setup.sh "$preset"
  echo "=== ${preset}: test"
  ctest --preset "$preset" "$@"
done
echo "=== tsan: build (gds tests only)"
bash scripts/setup.sh tsan test_gds
echo "=== tsan: test (label gds)"
ctest --preset tsan "$@"
echo "=== all suites passed in $(( $(date +%s) - start )) s"
