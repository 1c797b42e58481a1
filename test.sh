#!/usr/bin/env bash
# test.sh - the second README command: install what is missing, build, and run every test:
# the CUnit suites (ctest), the parser fuzzers for a bounded time (tools/fuzz.sh --ci), the
# end-to-end pytest suite against real servers and a real naming service, then both again with
# everything built with ASan + UBSan (any sanitizer report fails the run), and the CUnit suites
# under valgrind.
set -euo pipefail
cd "$(dirname "$0")"
tools/bootstrap.sh

echo "== unit tests (ctest)"
ctest --test-dir build --output-on-failure

echo "== fuzzing the parsers (tools/fuzz.sh --ci: ${HRPSIM_FUZZ_SECONDS:-30} s per target)"
if [ "${HRPSIM_FUZZ_SECONDS:-30}" != 0 ]; then
  tools/fuzz.sh --ci --seconds "${HRPSIM_FUZZ_SECONDS:-30}"
fi

echo "== end-to-end tests (pytest)"
.venv/bin/python -m pytest tests/e2e -q

echo "== everything again, built with AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DHRPSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug > /dev/null
ninja -C build-asan > build-asan/build.log 2>&1 || { tail -50 build-asan/build.log; exit 1; }
reports=$(mktemp -d)
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$reports/ubsan"
show_reports() { echo "sanitizer reports:"; cat "$reports"/* 2>/dev/null; exit 1; }
ctest --test-dir build-asan --output-on-failure || show_reports
HRPSIM_BIN_DIR="$PWD/build-asan/bin" .venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider \
  || show_reports
unset ASAN_OPTIONS UBSAN_OPTIONS
if compgen -G "$reports/*" > /dev/null; then
  show_reports
fi
echo "sanitizers: clean"

echo "== unit tests under valgrind"
# the mesh importer's forked children are left out: a child of a many-threaded test holds
# copies of the other threads' buffers it can never free (the importer's own code is checked
# in process, meshInProcess); "possibly lost" blocks (thread stacks) are neither shown nor errors
for t in build/bin/*_tests; do
  valgrind -q --child-silent-after-fork=yes --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=1 --keep-debuginfo=yes --suppressions=tests/valgrind.supp "$t" \
    > /dev/null || { echo "valgrind found errors in $t"; exit 1; }
done
echo "valgrind: clean"
