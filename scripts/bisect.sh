#!/usr/bin/env bash
# Which commit changed a count: a bisection between a good and a bad
# revision, exact because the counts are (callgrind's, --pmubench_simulate).
# Run it from anywhere inside your project's git checkout:
#
#   path/to/pmubench/scripts/bisect.sh --good REV --bad REV --benchmark REGEX
#       [--metric M] [--no-simulate] [--out DIR] [--jobs N]
#       [--cmake-target T [--binary PATH] [--cmake-arg ARG]... |
#        --bazel-target //PKG:T |
#        --build-cmd 'CMD' --run-cmd 'CMD']
#
# Each revision is built as scripts/ci_compare.sh builds one (the same code,
# scripts/ci_build.sh: a git worktree under DIR/worktrees, the same flags
# and line tables; the build options mean what they mean there) and run
# with --benchmark_filter=REGEX --benchmark_repetitions=1 and, unless
# --no-simulate, --pmubench_simulate --pmubench_profile=instructions, so
# only the matching cases run, each once, counted exactly, each with its
# exact profile. M is the JSON field compared (default
# callgrind/instructions/, or instructions with --no-simulate).
#
# GOOD and BAD are built first; when every matching case counts the same
# at both, there is nothing to find and the script refuses (exit 2). Else
# `git bisect run` walks the commits between them (log2 of their number
# builds): a commit whose every matching count equals GOOD's is good, any
# other is bad. A commit that does not build (or whose run fails) is
# skipped, as `git bisect skip` does, and said on stderr. At the end it
# prints the first commit whose count changed, with its full SHA, and each
# changed case's count before (at GOOD) and after (at that commit), then
# the attribution of the change from the two runs' profiles, as
# compare.py prints it (the functions and source lines whose counts per
# iteration moved; none with --no-simulate), then how many builds it took.
#
# DIR (--out; default a new mktemp -d directory, named on stderr) gets the
# build logs, each run's JSON and bisect.log; the worktrees are removed on
# every way out.
#
# Exit status: 0 the commit was found; 1 the skipped commits leave it
# ambiguous (the candidates are listed); 2 bad usage, or a range with no
# change (before any bisection); 3 GOOD or BAD did not build or run.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}
# Inside a `git bisect run` step an exit of 2 would mark the commit bad;
# 255 stops the bisection instead.
usage_status=2
[[ " $* " == *" --step "* ]] && usage_status=255
die_usage() { echo "bisect.sh: $1" >&2; echo "run with --help for usage" >&2; exit "$usage_status"; }
die_step() { echo "bisect.sh: $1" >&2; exit 3; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
[[ -x $python ]] || python=python3

need() {
  local what=$2
  shift 2
  [[ $# -ge 2 && -n $2 ]] || die_usage "$1 needs $what"
}

good="" bad="" regex="" metric="" simulate=instructions out="" jobs=2 step=0
cmake_target="" binary="" bazel_target="" build_cmd="" run_cmd="" cmake_args=()
args=("$@")
while [[ $# -gt 0 ]]; do
  case $1 in
    --good) need "$1" "a revision" "$@"; good=$2; shift 2 ;;
    --bad) need "$1" "a revision" "$@"; bad=$2; shift 2 ;;
    --benchmark) need "$1" "a regex (--benchmark_filter syntax)" "$@"; regex=$2; shift 2 ;;
    --metric) need "$1" "a JSON field, like callgrind/instructions/" "$@"; metric=$2; shift 2 ;;
    --no-simulate) simulate=off; shift ;;
    --out) need "$1" "a directory" "$@"; out=$2; shift 2 ;;
    --jobs) need "$1" "a number" "$@"; jobs=$2; shift 2 ;;
    --cmake-target) need "$1" "a CMake target" "$@"; cmake_target=$2; shift 2 ;;
    --cmake-arg) need "$1" "an argument for cmake's configure step" "$@"; cmake_args+=("$2"); shift 2 ;;
    --binary) need "$1" "a path under the build directory" "$@"; binary=$2; shift 2 ;;
    --bazel-target) need "$1" "a label like //benches:all" "$@"; bazel_target=$2; shift 2 ;;
    --build-cmd) need "$1" "a command" "$@"; build_cmd=$2; shift 2 ;;
    --run-cmd) need "$1" "a command" "$@"; run_cmd=$2; shift 2 ;;
    --step) step=1; shift ;;  # internal: one `git bisect run` step
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ -n $good && -n $bad && -n $regex ]] ||
  die_usage "give --good REV, --bad REV and --benchmark REGEX (the cases to count)"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs '$jobs': give a whole number >= 1"
metric=${metric:-$([[ $simulate == off ]] && echo instructions || echo callgrind/instructions/)}
# shellcheck source=scripts/ci_build.sh
source "$script_dir/ci_build.sh"
check_build_way

repo=$(git rev-parse --show-toplevel 2>/dev/null) ||
  die_usage "$(pwd) is not inside a git checkout; run this from your project's checkout"
good_sha=$(git -C "$repo" rev-parse --verify --quiet "$good^{commit}") ||
  die_usage "--good '$good' is not a commit in $repo"
bad_sha=$(git -C "$repo" rev-parse --verify --quiet "$bad^{commit}") ||
  die_usage "--bad '$bad' is not a commit in $repo"
if [[ $good_sha == "$bad_sha" ]] || ! git -C "$repo" merge-base --is-ancestor "$good_sha" "$bad_sha"; then
  die_usage "--good '$good' is not an ancestor of --bad '$bad': give the earlier commit as --good"
fi

# spawn DIR COMMAND ARGS...: COMMAND run in DIR ("" for here).
spawn() { ([[ -z $1 ]] || cd "$1" || exit 125; shift; exec "$@"); }

# run_counts SIDE FILE: the side's matching cases run once into FILE.
run_counts() {
  local tree="$trees/$1" file=$2 log="$out/$1-run.log"
  local flags=("--benchmark_filter=$regex" "--benchmark_repetitions=1"
               "--benchmark_out=$file" "--benchmark_out_format=json")
  [[ $simulate == off ]] ||
    flags+=("--pmubench_simulate=$simulate" "--pmubench_profile=instructions")
  if [[ -n $run_cmd ]]; then
    spawn "$tree" bash -c "$run_cmd \"\$@\"" run-cmd "${flags[@]}"
  elif [[ -n $bazel_target ]]; then
    spawn "$tree" "./$bazel_binary" "${flags[@]}"
  else
    spawn "$tree" "build/$binary" "${flags[@]}"
  fi >>"$log" 2>&1 && [[ -s $file ]]
}

# counts FILE: "NAME<TAB>VALUE" of the metric in each run of FILE, in order.
counts() {
  "$python" -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for b in doc.get("benchmarks", []):
    if b.get("run_type", "iteration") == "iteration" and sys.argv[2] in b:
        print(b["name"] + "\t" + repr(b[sys.argv[2]]))' "$1" "$metric"
}

# One `git bisect run` step on the bisect worktree's commit: 0 it counts as
# GOOD did, 1 it does not, 125 it does not build or run (skip).
if ((step)); then
  trees="$out/worktrees"
  die_step() { echo "bisect.sh: $1: skipping this commit" >&2; exit 125; }
  sha=$(git -C "$trees/bisect" rev-parse HEAD)
  echo "$sha" >>"$out/builds"
  build bisect "$sha"
  file="$out/runs/$sha.json"
  run_counts bisect "$file" || die_step "the run of ${sha:0:12} failed; see $out/bisect-run.log"
  counts "$file" >"$out/runs/$sha.counts" || die_step "the JSON of ${sha:0:12} cannot be read"
  cmp -s "$out/runs/$sha.counts" "$out/runs/good.counts" && exit 0
  exit 1
fi

if [[ -z $out ]]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/pmubench-bisect.XXXXXX")
else
  [[ ! -e $out ]] || die_usage "--out '$out' exists; pass a new directory (it is made, mode 0700)"
  mkdir -m 0700 -- "$out" || die_usage "--out '$out' cannot be made; its parent must exist"
  out=$(cd -- "$out" && pwd -P)
fi
echo "bisect.sh: logs and runs go to $out" >&2
trees="$out/worktrees"
mkdir -p "$out/runs"
cleanup() {
  local side
  for side in good bad bisect; do
    [[ -d $trees/$side ]] && git -C "$repo" worktree remove --force "$trees/$side" >/dev/null 2>&1
  done
  git -C "$repo" worktree prune >/dev/null 2>&1 || true
  rmdir "$trees" 2>/dev/null || true
}
trap cleanup EXIT

for side in good bad; do
  sha_var=${side}_sha
  build "$side" "${!sha_var}"
  run_counts "$side" "$out/runs/$side.json" ||
    die_step "the $side run (${!sha_var:0:12}) failed or wrote no JSON; see $out/$side-run.log"
  counts "$out/runs/$side.json" >"$out/runs/$side.counts"
done
[[ -s $out/runs/good.counts ]] ||
  die_usage "no run of --good matching --benchmark '$regex' has the field '$metric'; see $out/runs/good.json for the names and fields (--metric)"
if cmp -s "$out/runs/good.counts" "$out/runs/bad.counts"; then
  die_usage "--good ${good_sha:0:12} and --bad ${bad_sha:0:12} count the same $metric for every case matching '$regex': there is no change to find; check the revisions and --benchmark"
fi

# The bisection, in a worktree of its own (the user's checkout is never
# touched); each step is this script again with --step.
spawn "" git -C "$repo" worktree add --detach "$trees/bisect" "$bad_sha" >/dev/null 2>&1 ||
  die_step "git worktree add $trees/bisect failed"
: >"$out/builds"
git -C "$trees/bisect" bisect start "$bad_sha" "$good_sha" >"$out/bisect.log" 2>&1 ||
  die_step "git bisect start failed; see $out/bisect.log"
git -C "$trees/bisect" bisect run "$script_dir/bisect.sh" "${args[@]}" --good "$good_sha" \
  --bad "$bad_sha" --out "$out" --step >>"$out/bisect.log" 2>&1 || true
grep -h "skipping this commit" "$out"/bisect.log >&2 || true
builds=$(($(wc -l <"$out/builds") + 2))
if ! grep -q "is the first bad commit" "$out/bisect.log"; then
  echo "bisect.sh: the commits that did not build leave the first change ambiguous; it is one of:" >&2
  sed -n '/could be any of/,/^We cannot bisect/p' "$out/bisect.log" | grep -E '^[0-9a-f]{40}' >&2 || true
  echo "bisect.sh: $builds builds; see $out/bisect.log" >&2
  exit 1
fi
first=$(grep -oE '^[0-9a-f]{40} is the first bad commit' "$out/bisect.log" | cut -d' ' -f1)
after="$out/runs/$first.counts"
[[ $first == "$bad_sha" ]] && after="$out/runs/bad.counts"
echo "first commit whose $metric changed: $first $(git -C "$repo" log -1 --format=%s "$first")"
"$python" -c '
import sys
before = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[1]))
after = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[2]))
for name in list(before) + [n for n in after if n not in before]:
    a, b = before.get(name, "absent"), after.get(name, "absent")
    if a != b:
        print(f"  {name}: {a} -> {b}")' "$out/runs/good.counts" "$after"
# Why: compare.py's attribution of GOOD's run against that commit's.
after_json="$out/runs/$first.json"
[[ $first == "$bad_sha" ]] && after_json="$out/runs/bad.json"
why=$("$python" "$script_dir/compare.py" "$out/runs/good.json" "$after_json" \
  --format text 2>/dev/null | sed -n '/^Why it changed/,/^$/p') || true
if [[ -n $why ]]; then
  printf '%s\n' "$why"
else
  echo "  (no attribution: the runs hold no profile of $metric; under --pmubench_simulate they do)"
fi
echo "$builds builds ($((builds - 2)) between --good and --bad); logs in $out" >&2
