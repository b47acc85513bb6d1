# The build of one revision, shared by ci_compare.sh and bisect.sh (which
# source it): build SIDE SHA checks SHA out in the git worktree
# $trees/SIDE and builds it there as --cmake-target, --bazel-target or
# --build-cmd ask, logging to $out/SIDE-build.log. Moved here from
# ci_compare.sh unchanged. The sourcing script defines what these use:
# spawn, die_step (a failed step), and $repo, $trees, $out, $jobs,
# $simulate, $build_cmd, $bazel_target, $cmake_target, $cmake_args.
# shellcheck shell=bash disable=SC2154,SC2034  # the sourcing script's variables, and those set for it

# The build options (--cmake-target/--binary, --bazel-target, --build-cmd
# with --run-cmd) checked before any work: one way at most, the label's
# form; sets bazel_binary, or the CMake defaults (benches_all, benches/all).
# The sourcing script defines die_usage (exit 2).
check_build_way() {
  local ways=0
  [[ -n $cmake_target || -n $binary ]] && ways=$((ways + 1))
  [[ -n $bazel_target ]] && ways=$((ways + 1))
  [[ -n $build_cmd || -n $run_cmd ]] && ways=$((ways + 1))
  ((ways <= 1)) || die_usage "give one of --cmake-target/--binary, --bazel-target, or --build-cmd with --run-cmd"
  if [[ -n $build_cmd || -n $run_cmd ]]; then
    [[ -n $build_cmd && -n $run_cmd ]] || die_usage "--build-cmd and --run-cmd go together (how to build, and how to run the binary)"
  elif [[ -n $bazel_target ]]; then
    [[ $bazel_target =~ ^//([A-Za-z0-9_./-]*):([A-Za-z0-9_.+-]+)$ ]] ||
      die_usage "--bazel-target '$bazel_target': give a label of the form //package:target"
    bazel_binary="bazel-bin/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
  else
    cmake_target=${cmake_target:-benches_all}
    binary=${binary:-benches/all}
  fi
}

# What to set when configure did not find a package: cmake names it in
# 'Could not find a package configuration file provided by "X"' (wrapped
# over lines at will, so the log is read as one line).
cmake_hint() {  # LOG
  local pkg
  tr -s '\n\t ' '   ' <"$1" |
    grep -o 'Could not find a package configuration file provided by "[^"]*"' |
    sed 's/.*provided by "\(.*\)"/\1/' | sort -u |
    while IFS= read -r pkg; do
      # shellcheck disable=SC2016  # $HOME is for the reader to expand
      printf '\n  cmake cannot find package "%s": where it is installed, pass --cmake-arg -DCMAKE_PREFIX_PATH=PREFIX (its install prefix, e.g. $HOME/.local) or --cmake-arg -D%s_DIR=DIR (the directory holding %sConfig.cmake or %s-config.cmake)' \
        "$pkg" "$pkg" "$pkg" "${pkg,,}"
    done
}

# CMake's Release flags (-O3 -DNDEBUG) plus line tables: -g1 adds debug
# sections, not instructions (GCC keeps code the same with and without -g:
# its -fcompare-debug checks exactly that), and a profile
# (--pmubench_profile; under --simulate, exact per instruction) can then
# name the source line of its hottest instructions. -ffile-prefix-map
# writes the worktree's path as "." into __FILE__ strings and line tables,
# so the two sides' binaries differ only where their code does (an A/A
# builds the same binary twice). A --cmake-arg setting these variables or
# another build type wins.
release_flags() {  # tree
  local flags="-O3 -DNDEBUG -g1 -ffile-prefix-map=$1=." extern
  extern=$(extern_access_flag)
  echo "$flags${extern:+ $extern}"
}

# When the runs may be counted by callgrind (--simulate, or the default on a
# machine without a PMU where valgrind is installed).
may_simulate() {
  [[ $simulate == instructions || $simulate == cache ]] ||
    { [[ $simulate == auto ]] && ! has_hardware_pmu && command -v valgrind >/dev/null 2>&1; }
}

# Under callgrind, a count must not follow where the linker put data. A
# position-independent executable gets its own copy of a shared library's
# variable (a copy relocation, R_X86_64_COPY), placed after the program's
# own data, so its address moves with any change to the program. Abseil
# seeds absl::Hash with such an address (MixingHashState::kSeed), so one
# added case moved the instructions of every flat_hash_map insert
# (BM_FlatHashMapInsert/4096: 700,414 and 697,349). With
# -mno-direct-extern-access (GCC 12, x86-64) the program reaches such a
# variable through its GOT entry and it stays in the library, whose place
# does not depend on the program. Empty when callgrind will not count, or
# where the compiler lacks it.
extern_access_flag() {
  may_simulate || return 0
  if "${CXX:-c++}" -mno-direct-extern-access -x c++ -fsyntax-only - </dev/null >/dev/null 2>&1; then
    echo "-mno-direct-extern-access"
  fi
}

build() {  # side sha
  local side=$1 sha=$2 tree="$trees/$1" log="$out/$1-build.log"
  echo "== $side: ${sha:0:12} ($(git -C "$repo" log -1 --format=%s "$sha"))" >&2
  if [[ ! -d $tree ]]; then
    spawn "" git -C "$repo" worktree add --detach "$tree" "$sha" >/dev/null 2>&1 ||
      die_step "git worktree add $tree $sha failed"
  else  # checked above: a worktree of this repository
    spawn "" git -C "$tree" checkout --detach --quiet "$sha" ||
      die_step "checkout of $sha in $tree failed"
  fi
  if [[ -n $build_cmd ]]; then
    spawn "$tree" bash -c "$build_cmd" >"$log" 2>&1 ||
      die_step "--build-cmd failed for $side; see $log"
  elif [[ -n $bazel_target ]]; then
    local bazel_copts=(--copt=-g1) extern
    extern=$(extern_access_flag)
    [[ -n $extern ]] && bazel_copts+=("--copt=$extern")
    spawn "$tree" bazel build -c opt "${bazel_copts[@]}" "$bazel_target" >"$log" 2>&1 ||
      die_step "bazel build $bazel_target failed for $side; see $log"
  else
    local flags
    flags=$(release_flags "$tree")
    spawn "" cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_C_FLAGS_RELEASE=$flags" "-DCMAKE_CXX_FLAGS_RELEASE=$flags" "${cmake_args[@]}" \
      >"$log" 2>&1 || die_step "cmake configure of $side failed; see $log$(cmake_hint "$log")"
    spawn "" cmake --build "$tree/build" -j"$jobs" --target "$cmake_target" >>"$log" 2>&1 ||
      die_step "build of $side (target $cmake_target) failed; see $log"
  fi
}

# has_hardware_pmu: a core PMU under sysfs (x86 cpu/cpu_core/cpu_atom, arm64
# armv8_*/armv9_*); $PMUBENCH_SYSFS_PMUS stands in for the directory (tests).
has_hardware_pmu() {
  local d
  for d in "${PMUBENCH_SYSFS_PMUS:-/sys/bus/event_source/devices}"/*; do
    case ${d##*/} in cpu|cpu_core|cpu_atom|armv8*|armv9*) return 0 ;; esac
  done
  return 1
}
