#!/bin/bash
# Builds and runs a consumer project against pmubench as a user would, then
# checks its JSON (check_json.py: exact page-faults per iteration).
#
#   run.sh cmake-package BUILD_DIR  cmake --install BUILD_DIR into a temporary
#                                   prefix; find_package(pmubench) there; and
#                                   pkg-config --cflags --libs pmubench
#   run.sh cmake-subdirectory       add_subdirectory(pmubench): none of
#                                   pmubench's tests or benches may be built
#   run.sh bazel                    local_repository + pmubench_deps()
#
# Each first checks that bench.cc is gbench_original.cc after convert.sed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${PMUBENCH_CONSUMER_JOBS:-2}

fail() { echo "run.sh: FAIL: $*" >&2; exit 1; }

check_converted() {
  sed -f "$here/convert.sed" "$here/gbench_original.cc" >"$work/converted.cc"
  for f in "$here/cmake/bench.cc" "$here/bazel/bench.cc"; do
    diff -u "$work/converted.cc" "$f" ||
      fail "$f is not gbench_original.cc after convert.sed"
  done
}

# run_bench BINARY OPTIMIZED(true|false)
run_bench() {
  local out="$work/run.json"
  if ! "$1" --counters=task-clock,page-faults --benchmark_min_time=0.001 \
      --benchmark_out="$out" --benchmark_out_format=json \
      >"$work/stdout" 2>"$work/stderr"; then
    cat "$work/stdout" "$work/stderr" >&2
    fail "$1 exited non-zero"
  fi
  if [[ $2 == false ]]; then
    grep -q 'compiled without optimization' "$work/stderr" ||
      fail "no warning about cases compiled without optimization"
  elif grep -q 'compiled without optimization' "$work/stderr"; then
    fail "a warning about optimization in an optimized build"
  fi
  /usr/bin/python3 "$here/check_json.py" "$out" "$2"
}

cmake_package() {
  local pmubench_build=$1
  cmake --install "$pmubench_build" --prefix "$work/prefix" >/dev/null
  cmake -S "$here/cmake" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$work/build" -j"$jobs" >/dev/null
  run_bench "$work/build/bench" true

  # pkg-config users: one command line.
  local libdir
  libdir=$(find "$work/prefix" -name pmubench.pc -printf '%h\n')
  [[ -n $libdir ]] || fail "no pmubench.pc installed"
  # shellcheck disable=SC2046
  g++ -O2 "$here/cmake/bench.cc" -o "$work/bench_pc" \
    $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs pmubench)
  run_bench "$work/bench_pc" true
}

cmake_subdirectory() {
  # No build type: pmubench must not force one, so the cases are -O0 and
  # the run must say so.
  cmake -S "$here/cmake" -B "$work/build" -DPMUBENCH_SOURCE_DIR="$root" \
    >/dev/null
  grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$work/build/CMakeCache.txt" ||
    fail "pmubench set the consumer's CMAKE_BUILD_TYPE: $(grep '^CMAKE_BUILD_TYPE' "$work/build/CMakeCache.txt")"
  cmake --build "$work/build" -j"$jobs" >/dev/null
  local built
  built=$(find "$work/build" -type f -executable \( -name perf_tests -o \
    -name runner_tests -o -name runner_e2e_tests -o -name runner_e2e_cases \
    -o -name all \) -print)
  [[ -z $built ]] || fail "pmubench's tests or benches were built: $built"
  ctest --test-dir "$work/build" -N | grep -q 'Total Tests: 1$' ||
    fail "pmubench's tests were registered in the consumer's ctest: $(ctest --test-dir "$work/build" -N)"
  run_bench "$work/build/bench" false
}

bazel_consumer() {
  cd "$here/bazel"
  # No convenience symlinks inside pmubench's tree; Bazel's default
  # compilation mode (fastbuild, no -O), so the run must warn.
  # --nosandbox_debug: Debian's /etc/bazel/bazelrc floods the log otherwise.
  bazel build --symlink_prefix=/ --nosandbox_debug //:bench
  local bin
  bin=$(bazel info --symlink_prefix=/ bazel-bin)/bench
  run_bench "$bin" false
  bazel shutdown
}

check_converted
case ${1:-} in
  cmake-package) cmake_package "${2:?usage: run.sh cmake-package BUILD_DIR}" ;;
  cmake-subdirectory) cmake_subdirectory ;;
  bazel) bazel_consumer ;;
  *) echo "usage: run.sh cmake-package BUILD_DIR | cmake-subdirectory | bazel" >&2
     exit 2 ;;
esac
echo "run.sh: $1: OK"
