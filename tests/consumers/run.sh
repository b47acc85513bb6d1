#!/bin/bash
# Builds and runs a consumer project against pmubench as a user would, then
# checks its JSON (check_json.py: exact page-faults per iteration).
#
#   run.sh cmake-package            docs/building.md's install recipe, run as written
#                                   in a fresh directory (a copy of the
#                                   source, HOME a temporary directory): it
#                                   must build the three libraries and
#                                   nothing else; then find_package(pmubench)
#                                   in that prefix, and pkg-config --cflags
#                                   --libs pmubench
#   run.sh cmake-subdirectory       add_subdirectory(pmubench): none of
#                                   pmubench's tests or benches may be built
#   run.sh bazel                    docs/building.md's WORKSPACE, BUILD and .bazelrc
#                                   (bazel/ is them, readme_snippets.py
#                                   checks); no sandbox debug log
#
# Each first checks that bench.cc is gbench_original.cc after scripts/convert.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${PMUBENCH_CONSUMER_JOBS:-2}

fail() { echo "run.sh: FAIL: $*" >&2; exit 1; }

check_converted() {
  /usr/bin/python3 "$root/scripts/convert" --quiet "$here/gbench_original.cc" \
    -o "$work/converted.cc" || fail "scripts/convert gbench_original.cc failed"
  for f in "$here/cmake/bench.cc" "$here/bazel/bench.cc"; do
    diff -u "$work/converted.cc" "$f" ||
      fail "$f is not gbench_original.cc after scripts/convert"
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
  # docs/building.md's recipe, as written: `pmubench` is the checkout (a copy, so that
  # pmubench/build is fresh), "$HOME/.local" the prefix.
  local recipe
  recipe=$(/usr/bin/python3 "$here/readme_snippets.py" install)
  grep -q -- '-DPMUBENCH_BUILD_BENCHES=OFF' <<<"$recipe" ||
    fail "docs/building.md's install recipe builds the benches: $recipe"
  mkdir -p "$work/recipe/pmubench" "$work/home"
  tar -C "$root" --exclude='./build*' --exclude='./bazel-*' --exclude=./.git \
    -cf - . | tar -C "$work/recipe/pmubench" -xf -
  local start=$SECONDS
  (cd "$work/recipe" && HOME="$work/home" bash -euo pipefail -c "$recipe") \
    >"$work/recipe.log" 2>&1 || { cat "$work/recipe.log" >&2; fail "docs/building.md's install recipe failed"; }
  local built
  built=$(sed -n 's/^\[ *[0-9]*%\] Built target //p' "$work/recipe.log" | sort | tr '\n' ' ')
  echo "run.sh: the install recipe took $((SECONDS - start)) s and built: ${built:-(no Makefile log)}"
  # The Makefile generator names each target it built: the three libraries
  # and the rooms they are made of (object libraries named pmubench_*),
  # nothing else.
  local name others=""
  for name in $built; do [[ $name == pmubench* ]] || others+=" $name"; done
  [[ -z $built || ( -z $others && " $built" == *" pmubench pmubench_"* &&
      $built == *" pmubench_main "* && $built == *" pmubench_perf "* ) ]] ||
    fail "docs/building.md's install recipe built more (or less) than the libraries: $built"
  # Whatever the generator: the build tree holds the three libraries and no
  # other program or library.
  local artifacts
  artifacts=$(find "$work/recipe/pmubench/build" -path '*/CMakeFiles' -prune -o \
    -type f \( -name '*.a' -o -name '*.so' -o -perm -u+x \) -printf '%f\n' | sort | tr '\n' ' ')
  [[ $artifacts == "libpmubench.a libpmubench_main.a libpmubench_perf.a " ]] ||
    fail "the recipe's build tree holds more than the libraries: $artifacts"
  local prefix="$work/home/.local"
  [[ -f $prefix/include/pmubench/framework/pmubench.h ]] ||
    fail "nothing installed under $prefix"
  # The public header (bench.cc includes it) beside framework/pmubench.h,
  # which files written before it include (checked below: it forwards).
  [[ -f $prefix/include/pmubench/pmubench.h ]] ||
    fail "no public header $prefix/include/pmubench/pmubench.h installed"

  cmake -S "$here/cmake" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/build" -j"$jobs" >/dev/null
  run_bench "$work/build/bench" true

  # pkg-config users: one command line.
  local libdir
  libdir=$(find "$prefix" -name pmubench.pc -printf '%h\n')
  [[ -n $libdir ]] || fail "no pmubench.pc installed"
  # shellcheck disable=SC2046
  g++ -O2 "$here/cmake/bench.cc" -o "$work/bench_pc" \
    $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs pmubench)
  run_bench "$work/bench_pc" true

  # A file that includes "framework/pmubench.h", as converted files did
  # before <pmubench/pmubench.h>, still compiles against the installed tree.
  printf '%s\n' '#include "framework/pmubench.h"' \
    'static void BM_Old(pmubench::State& s) { for (auto _ : s) {} }' \
    'PMU_BENCHMARK(BM_Old);' >"$work/old_include.cc"
  # shellcheck disable=SC2046
  g++ -fsyntax-only -Wall -Wextra "$work/old_include.cc" \
    $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags pmubench) ||
    fail "a file including framework/pmubench.h does not compile"
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
  /usr/bin/python3 "$here/readme_snippets.py" bazel-check ||
    fail "tests/consumers/bazel is not docs/building.md's Bazel text"
  cd "$here/bazel"
  # Stop the server this starts, however the test ends: it would otherwise
  # idle for hours, holding what the test's caller gave it (a flock'd fd).
  trap 'bazel shutdown >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  # No convenience symlinks inside pmubench's tree; Bazel's default
  # compilation mode (fastbuild, no -O), so the run must warn. No other
  # flag: the consumer's .bazelrc is docs/building.md's, and it alone must keep
  # Debian's --sandbox_debug out of the log.
  bazel build --symlink_prefix=/ //:bench >"$work/bazel.log" 2>&1 ||
    { cat "$work/bazel.log" >&2; fail "bazel build failed"; }
  # The debug log's lines name linux-sandbox-pid1.cc or linux-sandbox.cc
  # (progress lines say "linux-sandbox" alone, the strategy).
  local noise
  noise=$(grep -c 'linux-sandbox[-a-z0-9]*\.cc' "$work/bazel.log" || true)
  [[ $noise == 0 ]] ||
    fail "$noise lines of sandbox debug log: $(grep -m3 'linux-sandbox[-a-z0-9]*\.cc' "$work/bazel.log")"
  echo "run.sh: bazel build printed $(wc -l <"$work/bazel.log") lines"
  local bin
  bin=$(bazel info --symlink_prefix=/ bazel-bin)/bench
  run_bench "$bin" false
}

check_converted
case ${1:-} in
  cmake-package) cmake_package ;;
  cmake-subdirectory) cmake_subdirectory ;;
  bazel) bazel_consumer ;;
  *) echo "usage: run.sh cmake-package | cmake-subdirectory | bazel" >&2
     exit 2 ;;
esac
echo "run.sh: $1: OK"
