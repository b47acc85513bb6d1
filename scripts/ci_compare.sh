#!/usr/bin/env bash
# CI recipe: build your benchmark binary at a base revision and at the
# change, run both with the same flags and repetitions, and compare them.
# Run it from anywhere inside your project's git checkout:
#
#   path/to/pmubench/scripts/ci_compare.sh [--base REV] [--head REV]
#       [--reps N] [--rounds K] [--min-time SECONDS] [--filter REGEX]
#       [--counters SPEC,...] [--out DIR] [--jobs N] [--keep]
#       [--allow-same-commit]
#       [--cmake-target T [--binary PATH] | --bazel-target //PKG:T |
#        --build-cmd 'CMD' --run-cmd 'CMD']
#       [-- COMPARE.PY OPTIONS...]
#
# What is built and run (in each revision's own `git worktree` under DIR, so
# the working tree you run this from is never touched):
#   --cmake-target T   cmake -S TREE -B TREE/build -DCMAKE_BUILD_TYPE=Release,
#                      then cmake --build ... --target T, and runs
#                      TREE/build/PATH (--binary, default benches/all).
#                      The default: T benches_all, pmubench's own suite.
#   --bazel-target //PKG:T
#                      bazel build -c opt //PKG:T, runs TREE/bazel-bin/PKG/T.
#   --build-cmd CMD --run-cmd CMD
#                      bash -c CMD in TREE; the run command gets the benchmark
#                      flags appended.
# Every run gets
#   --benchmark_repetitions=N --benchmark_min_time=S --benchmark_filter=REGEX
#   --benchmark_out=FILE --benchmark_out_format=json [--counters=SPEC]
# in K rounds that alternate base and head (base head, head base, ...), so
# a change in the machine's load during the job hits both sides alike; the
# rounds of a side are merged (scripts/merge.py) into
# DIR/base.json and DIR/head.json, N*K repetitions each. Then
# scripts/compare.py (from this pmubench checkout) prints the text report
# and writes DIR/compare.md (for a pull-request comment) and
# DIR/compare.json.
#
# Base and head must be different commits: the same commit on both sides
# (a fresh clone's HEAD and origin/main, say) compares a build with itself,
# and the script refuses it (exit 2) unless --allow-same-commit (an A/A run,
# to see what the noise of your machine does).
#
# Defaults: --base is the merge-base of HEAD and $PMUBENCH_BASE_BRANCH
# (origin/main), --head HEAD, --reps 3, --rounds 2 (times are then not
# gated: 4 rounds a side or more gate them, on a quiet machine),
# --min-time 0.05, --filter '.', --jobs 2, --out
# ${TMPDIR:-/tmp}/pmubench-compare-NAME (NAME: your checkout's directory
# name; outside the work tree). An --out inside the work tree must be one
# git ignores.
#
# Exit status: compare.py's (0 no regression beyond its threshold, 1 at
# least one, 2 bad input); 2 also for bad usage; 3 when a build or a run
# fails.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

die_usage() { echo "ci_compare.sh: $1" >&2; echo "run with --help for usage" >&2; exit 2; }
die_step() { echo "ci_compare.sh: $1" >&2; exit 3; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
[[ -x $python ]] || python=python3

base="" head="HEAD" reps=3 rounds=2 min_time=0.05 filter="." counters="" jobs=2
out="" keep=0 allow_same=0
cmake_target="" binary="" bazel_target="" build_cmd="" run_cmd=""
compare_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --base) base=${2:?--base needs a revision}; shift 2 ;;
    --head) head=${2:?--head needs a revision}; shift 2 ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    --min-time) min_time=${2:?--min-time needs seconds}; shift 2 ;;
    --filter) filter=${2:?--filter needs a regex}; shift 2 ;;
    --counters) counters=${2:?--counters needs SPEC,...}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --keep) keep=1; shift ;;
    --allow-same-commit) allow_same=1; shift ;;
    --cmake-target) cmake_target=${2:?--cmake-target needs a CMake target}; shift 2 ;;
    --binary) binary=${2:?--binary needs a path under the build directory}; shift 2 ;;
    --bazel-target) bazel_target=${2:?--bazel-target needs a label like //benches:all}; shift 2 ;;
    --build-cmd) build_cmd=${2:?--build-cmd needs a command}; shift 2 ;;
    --run-cmd) run_cmd=${2:?--run-cmd needs a command}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; compare_args=("$@"); break ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || die_usage "--reps '$reps': give a whole number >= 1 (5 or more recommended)"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die_usage "--rounds '$rounds': give a whole number >= 1"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs '$jobs': give a whole number >= 1"

ways=0
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

repo=$(git rev-parse --show-toplevel 2>/dev/null) ||
  die_usage "$(pwd) is not inside a git checkout; run this from your project's checkout"
if [[ -z $base ]]; then
  branch=${PMUBENCH_BASE_BRANCH:-origin/main}
  base=$(git -C "$repo" merge-base HEAD "$branch" 2>/dev/null) ||
    die_usage "cannot find the merge-base of HEAD and $branch; pass --base REV (or set PMUBENCH_BASE_BRANCH)"
fi
base_sha=$(git -C "$repo" rev-parse --verify --quiet "$base^{commit}") ||
  die_usage "--base '$base' is not a commit in $repo"
head_sha=$(git -C "$repo" rev-parse --verify --quiet "$head^{commit}") ||
  die_usage "--head '$head' is not a commit in $repo"
if [[ $base_sha == "$head_sha" && $allow_same -eq 0 ]]; then
  die_usage "base ('$base') and head ('$head') are the same commit ${base_sha:0:12}: there is no change to compare. Pass --base with the revision to compare against (a fresh clone's origin/main is its HEAD), or --allow-same-commit for an A/A run"
fi

if [[ -z $out ]]; then
  out="${TMPDIR:-/tmp}/pmubench-compare-$(basename "$repo")"
else
  mkdir -p "$out"
  abs_out=$(cd "$out" && pwd)
  case "$abs_out/" in
    "$repo"/*)
      git -C "$repo" check-ignore -q "$abs_out" ||
        die_usage "--out '$out' is inside the work tree and git does not ignore it (its reports and worktrees would show as untracked files); pick a directory outside $repo or add it to .gitignore" ;;
  esac
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
trees="$out/worktrees"
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [[ $keep -eq 0 ]]; then
    for side in base head; do
      if [[ -d $trees/$side ]]; then
        git -C "$repo" worktree remove --force "$trees/$side" >/dev/null 2>&1 || true
      fi
    done
    git -C "$repo" worktree prune >/dev/null 2>&1 || true
    rmdir "$trees" 2>/dev/null || true
  fi
}
trap cleanup EXIT

run_flags=("--benchmark_repetitions=$reps" "--benchmark_min_time=$min_time"
           "--benchmark_filter=$filter" "--benchmark_out_format=json")
[[ -n $counters ]] && run_flags+=("--counters=$counters")

build() {  # side sha
  local side=$1 sha=$2 tree="$trees/$1"
  echo "== $side: ${sha:0:12} ($(git -C "$repo" log -1 --format=%s "$sha"))" >&2
  if [[ ! -d $tree ]]; then
    git -C "$repo" worktree add --detach "$tree" "$sha" >/dev/null 2>&1 ||
      die_step "git worktree add $tree $sha failed"
  else
    git -C "$tree" checkout --detach --quiet "$sha" || die_step "checkout of $sha in $tree failed"
  fi
  local log="$out/$side-build.log"
  if [[ -n $build_cmd ]]; then
    (cd "$tree" && bash -c "$build_cmd") >"$log" 2>&1 ||
      die_step "--build-cmd failed for $side; see $log"
  elif [[ -n $bazel_target ]]; then
    (cd "$tree" && bazel build -c opt "$bazel_target") >"$log" 2>&1 ||
      die_step "bazel build $bazel_target failed for $side; see $log"
  else
    cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1 ||
      die_step "cmake configure of $side failed; see $log"
    cmake --build "$tree/build" -j"$jobs" --target "$cmake_target" >>"$log" 2>&1 ||
      die_step "build of $side (target $cmake_target) failed; see $log"
  fi
}

run() {  # side round
  local side=$1 round=$2
  echo "== run $side, round $round of $rounds" >&2
  local tree="$trees/$side" file="$out/.$side.$round.json"
  local flags=("${run_flags[@]}" "--benchmark_out=$file")
  if [[ -n $run_cmd ]]; then
    (cd "$tree" && bash -c "$run_cmd \"\$@\"" run-cmd "${flags[@]}")
  elif [[ -n $bazel_target ]]; then
    (cd "$tree" && "./$bazel_binary" "${flags[@]}")
  else
    (cd "$tree" && "build/$binary" "${flags[@]}")
  fi >>"$out/$side-run.log" 2>&1 || die_step "the $side run failed; see $out/$side-run.log"
  [[ -s $file ]] || die_step "the $side run wrote no $file: does the run command pass its arguments to the benchmark binary?"
}

build base "$base_sha"
build head "$head_sha"
rm -f "$out/base-run.log" "$out/head-run.log"
for ((round = 1; round <= rounds; round++)); do
  if ((round % 2)); then run base "$round"; run head "$round"
  else run head "$round"; run base "$round"; fi
done
for side in base head; do
  parts=()
  for ((round = 1; round <= rounds; round++)); do parts+=("$out/.$side.$round.json"); done
  "$python" "$script_dir/merge.py" "$out/$side.json" "${parts[@]}" ||
    die_step "merging the $side rounds failed"
  rm -f "${parts[@]}"
done

compare="$script_dir/compare.py"
"$python" "$compare" "$out/base.json" "$out/head.json" --format markdown \
  --output "$out/compare.md" "${compare_args[@]}" || true
"$python" "$compare" "$out/base.json" "$out/head.json" --format json \
  --output "$out/compare.json" "${compare_args[@]}" || true
status=0
"$python" "$compare" "$out/base.json" "$out/head.json" "${compare_args[@]}" || status=$?
echo "reports: $out/compare.md $out/compare.json (exit $status)" >&2
exit "$status"
