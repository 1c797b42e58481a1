#!/usr/bin/env bash
# tools/fuzz.sh - run the parser fuzzers (tests/fuzz; docs/development.md, "Fuzzing").
#
#   tools/fuzz.sh [--seconds N] [--max-len BYTES] [--jobs N] [--ci] [TARGET...]
#
# Targets: vrml urdf mjcf mesh body_info (libFuzzer, C/C++, built into build-fuzz/ with clang,
# ASan and UBSan: cmake -DHRPSIM_FUZZ=ON) and project (atheris, the Python project readers).
# Default: every target, 3600 s each, one after the other, at nice 10, inputs up to 4096 bytes
# (larger seeds are still read whole; mutations stay within the limit).
#
# Each target's corpus starts from the seeds (the samples and the test data, made afresh each
# run) and keeps what libFuzzer finds in fuzz-corpus/TARGET/ (not committed; delete it to start
# over). Inputs that once crashed a harness live in tests/fuzz/regressions/TARGET/ (committed)
# and are run first, every time. A crash, leak, sanitizer report or timeout writes the input
# to fuzz-artifacts/TARGET/ and makes the script exit 1.
#
# --jobs N: run N targets at a time (default 1; each target still gets its N seconds).
# --ci: 60 s per target (unless --seconds), 2 targets at a time (unless --jobs), a throw-away
# corpus; test.sh runs it (30 s). The executions of each target and their total are printed at
# the end, target by target in the order given.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

seconds=3600
max_len=4096
ci=0
jobs=""
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --max-len) max_len=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --ci) ci=1; [ "$seconds" = 3600 ] && seconds=60; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ "$ci" = 1 ] && [ "$seconds" = 3600 ]; then seconds=60; fi
if [ -z "$jobs" ]; then
  if [ "$ci" = 1 ]; then jobs=2; else jobs=1; fi
fi
((${#targets[@]})) || targets=(vrml urdf mjcf mesh body_info project)

# the build: clang with libFuzzer, ASan and UBSan
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DHRPSIM_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
fi
fuzz_bins=()
for t in "${targets[@]}"; do
  [ "$t" = project ] || fuzz_bins+=("fuzz_$t")
done
if ((${#fuzz_bins[@]})); then
  nice -n 10 ninja -C build-fuzz "${fuzz_bins[@]}" > build-fuzz/fuzz-build.log 2>&1 ||
    { tail -40 build-fuzz/fuzz-build.log; exit 1; }
fi

# mesh imports run in a child process, as in the servers, so that assimp's own crashes (which
# the servers survive) are not findings; HRPSIM_FUZZ_MESH_IN_PROCESS=1 imports in the fuzzer's
# process instead, where the sanitizers see our conversion code (and assimp's crashes too: the
# seed tests/data/meshes/assimp_crash.dae is one)
if [ "${HRPSIM_FUZZ_MESH_IN_PROCESS:-0}" = 1 ]; then
  export HRPSIM_FUZZ_MESH_FORK=0
else
  export HRPSIM_FUZZ_MESH_FORK=1
fi

# the harnesses write each input to a file: on tmpfs when there is one
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
seeds_root=$(mktemp -d)
if [ "$ci" = 1 ]; then
  corpus_root=$seeds_root/corpus
else
  corpus_root=$repo/fuzz-corpus
fi
artifacts_root=$repo/fuzz-artifacts
trap 'rm -rf "$seeds_root"' EXIT

# seeds: every file of a kind under samples/ and tests/data/ (and the regressions)
seed_files() {  # seed_files DIR PATTERN...
  local dir=$1; shift
  mkdir -p "$dir"
  local args=() p
  for p in "$@"; do args+=(-o -iname "$p"); done
  find samples tests/data -type f \( "${args[@]:1}" \) -print0 |
    while IFS= read -r -d '' f; do
      cp "$f" "$dir/$(echo "$f" | tr '/' '_')"
    done
}
make_seeds() {  # make_seeds TARGET DIR
  case "$1" in
    vrml) seed_files "$2" '*.wrl' ;;
    urdf) seed_files "$2" '*.urdf' ;;
    mjcf)  # the .xml files whose top element is <mujoco>
      seed_files "$2" '*.xml'
      grep -L '<mujoco' "$2"/* | xargs -r rm -f
      ;;
    project) seed_files "$2" '*.xml' ;;
    mesh)
      # the harness reads byte 0 as the type (0 stl, 1 obj, 2 dae, 3 ply, 4 off), byte 1 as the
      # scale (0: 1)
      mkdir -p "$2"
      local f t
      while IFS= read -r -d '' f; do
        case "${f,,}" in
          *.stl) t='\x00' ;; *.obj) t='\x01' ;; *.dae) t='\x02' ;; *.ply) t='\x03' ;;
          *) t='\x04' ;;
        esac
        { printf "$t\\x00"; cat "$f"; } > "$2/$(echo "$f" | tr '/' '_')"
      done < <(find samples tests/data -type f \( -iname '*.stl' -o -iname '*.obj' \
                 -o -iname '*.dae' -o -iname '*.ply' -o -iname '*.off' \) -print0)
      ;;
    body_info)
      mkdir -p "$2"
      local models=()
      while IFS= read -r -d '' f; do models+=("$f"); done < <(
        find samples/models -type f \( -name '*.wrl' -o -name '*.urdf' \) -print0)
      # parts of models (Inlined files) do not load alone: those are skipped with a message
      build-fuzz/bin/fuzz_body_info --make-seeds "$2" "${models[@]}" > /dev/null 2>&1 || true
      ;;
  esac
  if [ -d "tests/fuzz/regressions/$1" ]; then
    cp tests/fuzz/regressions/"$1"/* "$2"/ 2>/dev/null || true
  fi
}

run_target() {  # run_target TARGET -> prints the executions
  local t=$1 corpus=$corpus_root/$1 seeds=$seeds_root/seeds-$1 art=$artifacts_root/$1
  mkdir -p "$corpus" "$art"
  make_seeds "$t" "$seeds"
  local cmd
  if [ "$t" = project ]; then
    cmd=("$repo/.venv/bin/python" "$repo/tests/fuzz/fuzz_project.py")
  else
    cmd=("$repo/build-fuzz/bin/fuzz_$t")
  fi
  local log=$art/last-run.log len=$max_len
  # a BodyInfo's CDR is tens of kilobytes: cut shorter, every mutant fails to unmarshal
  [ "$t" = body_info ] && ((len < 65536)) && len=65536
  # the regressions first, each input once
  if [ -d "tests/fuzz/regressions/$t" ] && compgen -G "tests/fuzz/regressions/$t/*" > /dev/null
  then
    if ! ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$repo/tests/fuzz/lsan.supp \
         UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
         nice -n 10 "${cmd[@]}" tests/fuzz/regressions/"$t"/* \
         > "$log" 2>&1; then
      echo "== $t: a regression input fails again:"; tail -40 "$log"; return 1
    fi
  fi
  local rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  LSAN_OPTIONS=suppressions=$repo/tests/fuzz/lsan.supp \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n 10 "${cmd[@]}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
      -max_len="$len" -print_final_stats=1 -artifact_prefix="$art/" "$corpus" "$seeds" \
      > "$log" 2>&1 || rc=$?
  local execs
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  echo "${execs:-0}" > "$art/last-execs"
  if [ "$rc" != 0 ]; then
    echo "== $t: FINDING (exit $rc); input in $art/, log $log"
    local finding='ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error'
    finding+='|fuzz finding|Traceback|==ERROR'
    grep -m1 -A30 -E "$finding" "$log" || tail -40 "$log"
    return 1
  fi
  echo "== $t: ${execs:-0} executions in ${seconds} s, no finding" \
    "(corpus $(ls "$corpus" | wc -l) files)"
}

# the targets, --jobs at a time; each one's output is kept and printed in the given order
outputs=$(mktemp -d)
run_one() {  # run_one TARGET: its output and exit status into $outputs
  local rc=0
  run_target "$1" > "$outputs/$1.out" 2>&1 || rc=$?
  echo "$rc" > "$outputs/$1.rc"
}
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do
    wait -n || true
  done
  run_one "$t" &
done
wait
failed=0
total=0
for t in "${targets[@]}"; do
  cat "$outputs/$t.out"
  [ "$(cat "$outputs/$t.rc" 2>/dev/null || echo 1)" = 0 ] || failed=1
  total=$((total + $(cat "$artifacts_root/$t/last-execs" 2>/dev/null || echo 0)))
done
rm -rf "$outputs"
echo "== fuzzing: $total executions in total over ${targets[*]}"
exit $failed
