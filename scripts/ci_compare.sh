#!/usr/bin/env bash
# CI recipe: build the suite at a base revision and at the change, run both
# with the same flags and repetitions, and compare them.
#
#   scripts/ci_compare.sh [--base REV] [--head REV] [--reps N] [--rounds K]
#                         [--min-time SECONDS] [--filter REGEX]
#                         [--counters SPEC,...] [--out DIR] [--jobs N] [--keep]
#                         [-- COMPARE.PY OPTIONS...]
#
# Each revision is checked out in its own `git worktree` under DIR (so the
# working tree you run this from is never touched) and built with CMake
# (target benches_all). The two binaries run with the same
#   --benchmark_repetitions=N --benchmark_min_time=S --benchmark_filter=REGEX
# in K rounds that alternate base and head (base head, head base, ...), so
# a change in the machine's load during the job hits both sides alike; the
# rounds of a side are merged (scripts/merge.py) into
# DIR/base.json and DIR/head.json, N*K repetitions each. Then
# scripts/compare.py (from this checkout) prints the text report and writes
# DIR/compare.md (for a pull-request comment) and DIR/compare.json.
#
# Defaults: --base is the merge-base of HEAD and $PMUBENCH_BASE_BRANCH
# (origin/main), --head HEAD, --reps 5 (N*K of 5 or more lets the
# Mann-Whitney test reach p < 0.05 with margin: 4 vs 4 gives p >= 0.029),
# --rounds 1 (3 on a shared machine), --min-time 0.05, --filter '.',
# --jobs 2, --out ./pmubench-compare.
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

base="" head="HEAD" reps=5 rounds=1 min_time=0.05 filter="." counters="" jobs=2
out="./pmubench-compare" keep=0
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
    -h|--help) usage; exit 0 ;;
    --) shift; compare_args=("$@"); break ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || die_usage "--reps '$reps': give a whole number >= 1 (5 or more recommended)"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die_usage "--rounds '$rounds': give a whole number >= 1"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs '$jobs': give a whole number >= 1"

repo=$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null) ||
  die_usage "$script_dir is not inside a git checkout"
if [[ -z $base ]]; then
  branch=${PMUBENCH_BASE_BRANCH:-origin/main}
  base=$(git -C "$repo" merge-base HEAD "$branch" 2>/dev/null) ||
    die_usage "cannot find the merge-base of HEAD and $branch; pass --base REV (or set PMUBENCH_BASE_BRANCH)"
fi
base_sha=$(git -C "$repo" rev-parse --verify --quiet "$base^{commit}") ||
  die_usage "--base '$base' is not a commit in $repo"
head_sha=$(git -C "$repo" rev-parse --verify --quiet "$head^{commit}") ||
  die_usage "--head '$head' is not a commit in $repo"

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
  cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release >"$out/$side-cmake.log" 2>&1 ||
    die_step "cmake configure of $side failed; see $out/$side-cmake.log"
  cmake --build "$tree/build" -j"$jobs" --target benches_all >>"$out/$side-cmake.log" 2>&1 ||
    die_step "build of $side failed; see $out/$side-cmake.log"
}

run() {  # side round
  local side=$1 round=$2
  echo "== run $side, round $round of $rounds" >&2
  "$trees/$side/build/benches/all" "${run_flags[@]}" \
    "--benchmark_out=$out/.$side.$round.json" >>"$out/$side-run.log" 2>&1 ||
    die_step "the $side suite failed; see $out/$side-run.log"
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
