#!/usr/bin/env bash
# test.sh - the second README command: install what is missing, build, and run every test:
# the CUnit suites (ctest), the same suites under ASan/UBSan and under valgrind, and the
# end-to-end pytest suite against real servers and a real naming service.
set -euo pipefail
cd "$(dirname "$0")"
tools/bootstrap.sh

echo "== unit tests (ctest)"
ctest --test-dir build --output-on-failure

echo "== unit tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DHRPSIM_WITH_SERVERS=OFF -DHRPSIM_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=Debug > /dev/null
ninja -C build-asan > /dev/null
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure

echo "== unit tests under valgrind"
for t in build/bin/*_tests; do
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
    "$t" > /dev/null || { echo "valgrind found errors in $t"; exit 1; }
done
echo "valgrind: clean"

echo "== end-to-end tests (pytest)"
.venv/bin/python -m pytest tests/e2e -q
