#!/usr/bin/env bash
# test.sh - the second README command: install what is missing, build, and run every test:
# the CUnit suites (ctest), the parser fuzzers for a bounded time (tools/fuzz.sh --ci), the
# end-to-end pytest suite against real servers and a real naming service, then, with
# everything built with ASan + UBSan (any sanitizer report fails the run), the CUnit suites
# and the e2e tests that drive C/C++ code (tests/e2e/stages.py, `pytest -m native`: servers
# and the local back end's extension), and the CUnit suites under valgrind. The time of each
# stage is printed at the end (docs/development.md, "What test.sh runs").
set -euo pipefail
cd "$(dirname "$0")"
# compiles go through ccache when it is installed (tools/bootstrap.sh installs it): a rebuild
# of an unchanged tree, as CI's fresh clone is, is then mostly cache hits
if command -v ccache > /dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi
stage_times=()
stage_name=""
stage_start=$SECONDS
stage() {  # stage NAME TITLE: end the current stage (its time is kept), announce the next
  if [ -n "$stage_name" ]; then stage_times+=("$(printf '%-14s %5d s' "$stage_name" \
    $((SECONDS - stage_start)))"); fi
  stage_name=$1
  stage_start=$SECONDS
  if [ -n "$1" ]; then echo "== $2"; fi
}

stage bootstrap "install and build (tools/bootstrap.sh)"
tools/bootstrap.sh

stage ctest "unit tests (ctest)"
ctest --test-dir build --output-on-failure -j2

stage fuzz "fuzzing the parsers (tools/fuzz.sh --ci: ${HRPSIM_FUZZ_SECONDS:-30} s per target)"
if [ "${HRPSIM_FUZZ_SECONDS:-30}" != 0 ]; then
  tools/fuzz.sh --ci --seconds "${HRPSIM_FUZZ_SECONDS:-30}"
fi

stage e2e "end-to-end tests (pytest)"
.venv/bin/python -m pytest tests/e2e -q

stage asan-build "built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
cmake -S . -B build-asan -G Ninja -DHRPSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug > /dev/null
ninja -C build-asan > build-asan/build.log 2>&1 || { tail -50 build-asan/build.log; exit 1; }
stage asan-ctest "unit tests with ASan + UBSan"
reports=$(mktemp -d)
export ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$reports/ubsan"
show_reports() { echo "sanitizer reports:"; cat "$reports"/* 2>/dev/null; exit 1; }
ctest --test-dir build-asan --output-on-failure -j2 || show_reports
stage asan-e2e "e2e tests that drive C/C++ code, against build-asan (pytest -m native)"
# The servers come from build-asan/bin; the local back end's extension from build-asan/python,
# built with the sanitizers too, loads into the pytest process, which starts with the ASan
# runtime preloaded (and libstdc++, whose __cxa_throw ASan's interceptor must find at start-up)
# and without leak checks (CPython leaves blocks unfreed at exit; the core's leaks are the
# CUnit suites' to find). tests/e2e/conftest.py checks that it loaded that extension and hands
# its children the servers' options without the preload (docs/development.md).
servers_asan_options=$ASAN_OPTIONS
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
  ASAN_OPTIONS="detect_leaks=0:log_path=$reports/asan" \
  HRPSIM_E2E_CHILD_ASAN_OPTIONS="$servers_asan_options" \
  HRPSIM_CORE_MODULE_DIR="$PWD/build-asan/python" HRPSIM_BIN_DIR="$PWD/build-asan/bin" \
  .venv/bin/python -m pytest tests/e2e -m native -q -p no:cacheprovider || show_reports
unset ASAN_OPTIONS UBSAN_OPTIONS
if compgen -G "$reports/*" > /dev/null; then
  show_reports
fi
echo "sanitizers: clean"

stage valgrind "unit tests under valgrind"
# the mesh importer's forked children are left out: a child of a many-threaded test holds
# copies of the other threads' buffers it can never free (the importer's own code is checked
# in process, meshInProcess); "possibly lost" blocks (thread stacks) are neither shown nor errors
# valgrind runs one thread at a time, so the runs go two side by side (the machine has 2
# cores), one per suite (each runner takes a suite name: tests/unit/test_support.c) so that the
# long dynamics runner is split too; the unit tests make their own temporary directories
valgrind_one() {  # valgrind_one RUNNER SUITE: exit 255 (xargs stops) if valgrind finds errors
  valgrind -q --child-silent-after-fork=yes --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=1 --keep-debuginfo=yes --suppressions=tests/valgrind.supp "$1" "$2" \
    > /dev/null || { echo "valgrind found errors in $1 $2"; exit 255; }
}
export -f valgrind_one
valgrind_jobs=()
for t in build/bin/*_tests; do
  module=$(basename "$t" _tests)
  sources=(tests/unit/"$module"/test_*.c*)
  suites=$(grep -ho 'hst_addSuite("[^"]*")' "${sources[@]}" | sed 's/.*("\(.*\)")/\1/')
  # every suite must be named by a literal here, or it would be left out
  if [ "$(grep -o 'hst_addSuite(' "${sources[@]}" | wc -l)" != "$(echo "$suites" | grep -c .)" ]
  then echo "$module: a suite whose name is not a string literal; valgrind would miss it"; exit 1
  fi
  while IFS= read -r s; do valgrind_jobs+=("$t" "$s"); done <<< "$suites"
done
printf '%s\0' "${valgrind_jobs[@]}" | xargs -0 -n 2 -P 2 bash -c 'valgrind_one "$0" "$1"' ||
  { echo "valgrind: errors (above)"; exit 1; }
echo "valgrind: clean"
stage "" ""
echo "== stage times"
printf '   %s\n' "${stage_times[@]}"
