#!/usr/bin/env bash
# CI recipe: build your benchmark binary at a base revision and at the
# change, run both with the same flags and repetitions, and compare them.
# Run it from anywhere inside your project's git checkout:
#
#   path/to/pmubench/scripts/ci_compare.sh [--base REV] [--head REV]
#       [--reps N] [--rounds K] [--min-time SECONDS] [--filter REGEX]
#       [--counters SPEC,...] [--context KEY=VALUE ...] [--simulate[=instructions|cache] | --no-simulate]
#       [--attribute[=EVENT] | --no-attribute]
#       [--out DIR] [--jobs N] [--keep] [--allow-same-commit] [--shard I/N]
#       [--cmake-target T [--binary PATH] [--cmake-arg ARG]... |
#        --bazel-target //PKG:T |
#        --build-cmd 'CMD' --run-cmd 'CMD']
#       [-- COMPARE.PY OPTIONS...]
#
# What is built and run (in each revision's own `git worktree` under
# DIR/worktrees, so the working tree you run this from is never touched):
#   --cmake-target T   cmake -S TREE -B TREE/build -DCMAKE_BUILD_TYPE=Release
#                      with line tables (-O3 -DNDEBUG -g1 for C and C++:
#                      the same code, and a profile, --pmubench_profile,
#                      names source lines; -ffile-prefix-map=TREE=., so
#                      the worktree's path is in neither side's binary;
#                      when callgrind may count, -mno-direct-extern-access
#                      where the compiler has it: see extern_access_flag)
#                      [ARG...], then cmake --build ... --target T, and runs
#                      TREE/build/PATH (--binary, default benches/all).
#                      The default: T benches_all, pmubench's own suite.
#   --cmake-arg ARG    one more argument for the configure step of both
#                      sides (repeatable), after the default, so yours wins:
#                      --cmake-arg -DCMAKE_BUILD_TYPE=RelWithDebInfo,
#                      --cmake-arg -DCMAKE_PREFIX_PATH=$HOME/.local (where
#                      find_package looks for pmubench installed there).
#                      When configure cannot find a package X, the message
#                      says what to set: -DCMAKE_PREFIX_PATH or -DX_DIR.
#   --bazel-target //PKG:T
#                      bazel build -c opt --copt=-g1 //PKG:T (line
#                      tables, as above; when callgrind may count, also
#                      --copt=-mno-direct-extern-access), runs
#                      TREE/bazel-bin/PKG/T.
#   --build-cmd CMD --run-cmd CMD
#                      bash -c CMD in TREE; the run command gets the benchmark
#                      flags appended.
# Every run gets
#   --benchmark_repetitions=N --benchmark_min_time=S --benchmark_filter=REGEX
#   --benchmark_out=FILE --benchmark_out_format=json [--counters=SPEC]
#   --benchmark_context=kernel=$(uname -r) --benchmark_context=guest_cpu=ISA
# (the runner's facts that history.py's machine identity reads, as the
# main workflow of docs/history.md records them, so that `history.py judge`
# of head.json finds main's history; ISA is the level ld.so --help names,
# e.g. x86-64-v3) and one --benchmark_context=KEY=VALUE per --context
# KEY=VALUE (e.g. project_build=Release, when main's runs record it)
# in K rounds that alternate base and head (base head, head base, ...), so
# a change in the machine's load during the job hits both sides alike; the
# rounds of a side are merged (scripts/merge.py) into
# DIR/base.json and DIR/head.json, N*K repetitions each. Then
# scripts/compare.py (from this pmubench checkout) prints the text report
# and writes DIR/compare.md (a pull-request comment: under GitHub's 65,536
# characters whatever the suite), DIR/compare-full.md (the full report:
# every row and every attribution; the comment points to it, upload it as
# a CI artifact) and DIR/compare.json.
#
# Counting without a PMU (--simulate): each side runs once under Valgrind's
# callgrind (the binary's --pmubench_simulate[=MODE]): instruction counts
# are exact and the same run to run, so one run a side gates them at
# compare.py's 0.5% (one instruction per iteration in a case of up to 199
# instructions per iteration; every class and default threshold is in
# scripts/pmubench/verdicts/metrics.py, which compare.py reads); 'cache'
# adds simulated cache and branch misses. No times are judged (they are valgrind's), --reps and --rounds
# default to 1 and --min-time is not passed. On a machine without a
# hardware PMU, when the base binary knows --pmubench_simulate (its --help
# says so) and valgrind is installed, this is the default, said on stderr;
# --no-simulate times the runs instead. Without valgrind the script says
# what to install and times the runs. The head run's workers (with the
# attribution too: its profiles travel with the rows) take its cases
# largest first by the base run's costs
# (--pmubench_jobs with --pmubench_shard_costs=the base run's JSON,
# docs/jobs.md), when the head binary knows the flag and no --shard is given.
#
# Why a row changed (--attribute): compare.md, compare.json and the text
# report name, for each changed row, the functions and source lines whose
# counts per iteration moved (docs/comparing.md, "Why it changed"). Under
# --simulate this is the default and costs nothing: each run passes
# --pmubench_profile=instructions, whose profile comes from the same
# callgrind dumps as the counts, exact. With a PMU it is opt-in:
# --attribute[=EVENT] (EVENT defaults to instructions) passes
# --pmubench_profile=EVENT, which samples each case in one extra batch after
# its measured runs (the measured runs never carry a sampling event); the
# attribution is then estimated, with its sample counts. Either way CMake
# builds get line tables (-g1 added to the Release flags, which changes no
# code; a --cmake-arg of yours wins) and Bazel builds --copt=-g1;
# --build-cmd builds are yours to give -g1. --no-attribute: no profiles
# (the line tables stay: they change no code).
# A binary whose --help does not list --pmubench_profile is run without it.
#
# One CI job of N (--shard I/N): each run gets --pmubench_shard=I/N, so
# the job runs shard I of the suite on both sides; it stops after writing
# DIR/base.json and DIR/head.json (no verdict: a shard is not the suite).
# A final job joins the N jobs' files with scripts/merge.py --shards, one
# side at a time, and runs compare.py on the joined pair: the comparison
# of the unsharded suite (docs/sharding.md).
#
# Base and head must be different commits: the same commit on both sides
# (a fresh clone's HEAD and origin/main, say) compares a build with itself,
# and the script refuses it (exit 2) unless --allow-same-commit (an A/A run,
# to see what the noise of your machine does).
#
# Defaults: --base is the merge-base of HEAD and $PMUBENCH_BASE_BRANCH
# (origin/main), --head HEAD, --reps 3, --rounds 2 (times are then not
# gated: 4 rounds a side or more gate them, on a quiet machine; with
# --simulate 1 and 1), --min-time 0.05 (not passed with --simulate),
# --filter '.', --jobs 2, --out a new directory each run.
#
# The output directory DIR (--out) gets base-build.log, head-build.log,
# base-run.log, head-run.log, base.json, head.json, compare.md,
# compare-full.md and compare.json (reports are whole or absent, mode
# 0666 & ~umask), and while
# it runs the worktrees and each round's .base.N.json/.head.N.json (removed
# on every way out, SIGTERM and SIGINT included; --keep keeps the worktrees,
# which a later run with the same --out uses again). Without --out: a new
# private directory (mode 0700), mktemp -d
# ${TMPDIR:-/tmp}/pmubench-compare-NAME.XXXXXX (NAME: your checkout's
# directory name), named on stderr at the start. An --out is checked before
# any work (exit 2): an existing one must be a directory you own that group
# and others cannot write (chmod go-w DIR), a missing one is made with mode
# 0700 (its parent must exist), and neither may sit in a directory others
# can write unless it is sticky (/tmp is); one inside the work tree must be
# one git ignores; a DIR/worktrees/base or head must be a git worktree of
# this repository (git is never run in anything else), and the names above
# must not be directories. Files of those names are replaced, a symbolic
# link never written through. To share the reports with another user, pass
# an --out they can read.
#
# Exit status: compare.py's, passed through (0 no regression beyond its
# threshold, 1 at least one, 2 bad input, 4 inconclusive: nothing was
# gated); 2 also for bad usage (before any work); 3 when a build or a run
# fails, or when compare.md, compare-full.md or compare.json could not be
# written while
# compare.py's status is 0 (with 1, 2 or 4 that status stands, and the
# missing report is named); 128+N when stopped by signal N (SIGTERM 143,
# SIGINT 130, SIGHUP 129): the running build or run is stopped first.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

die_usage() { echo "ci_compare.sh: $1" >&2; echo "run with --help for usage" >&2; exit 2; }
die_step() { echo "ci_compare.sh: $1" >&2; exit 3; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
[[ -x $python ]] || python=python3

# need OPTION WHAT "$@": exits 2 unless OPTION has a non-empty value.
need() {
  local what=$2
  shift 2
  [[ $# -ge 2 && -n $2 ]] || die_usage "$1 needs $what"
}

base="" head="HEAD" reps="" rounds="" min_time="" filter="." counters="" jobs=2 shard=""
simulate=auto simulate_flag="" attribute=auto
# choose_simulate FLAG MODE: two flags that disagree (--simulate and
# --no-simulate) are refused: the last would win silently.
choose_simulate() {
  [[ -z $simulate_flag || $simulate == "$2" ]] ||
    die_usage "$simulate_flag and $1 disagree: give one of --simulate[=instructions|cache] and --no-simulate"
  simulate=$2 simulate_flag=$1
}
out="" keep=0 allow_same=0
cmake_target="" binary="" bazel_target="" build_cmd="" run_cmd=""
cmake_args=() compare_args=() context_flags=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --base) need "$1" "a revision" "$@"; base=$2; shift 2 ;;
    --head) need "$1" "a revision" "$@"; head=$2; shift 2 ;;
    --reps) need "$1" "a number" "$@"; reps=$2; shift 2 ;;
    --rounds) need "$1" "a number" "$@"; rounds=$2; shift 2 ;;
    --min-time) need "$1" "seconds" "$@"; min_time=$2; shift 2 ;;
    --filter) need "$1" "a regex" "$@"; filter=$2; shift 2 ;;
    --counters) need "$1" "SPEC,..." "$@"; counters=$2; shift 2 ;;
    --context) need "$1" "KEY=VALUE" "$@"
               [[ $2 =~ ^[A-Za-z_][A-Za-z0-9_]*=[^,=]+$ ]] ||
                 die_usage "--context '$2': give KEY=VALUE (a name of letters, digits and _; a value without , or =), like project_build=Release"
               context_flags+=("--benchmark_context=$2"); shift 2 ;;
    --simulate) choose_simulate "$1" instructions; shift ;;
    --simulate=*) [[ ${1#--simulate=} == instructions || ${1#--simulate=} == cache ]] ||
                    die_usage "$1: give instructions or cache (or --simulate alone)"
                  choose_simulate "$1" "${1#--simulate=}"; shift ;;
    --no-simulate) choose_simulate "$1" off; shift ;;
    --attribute) attribute=instructions; shift ;;
    --attribute=*) attribute=${1#--attribute=}; shift
                   [[ -n $attribute ]] || die_usage "--attribute= needs an event, like instructions or cycles" ;;
    --no-attribute) attribute=off; shift ;;
    --out) need "$1" "a directory" "$@"; out=$2; shift 2 ;;
    --jobs) need "$1" "a number" "$@"; jobs=$2; shift 2 ;;
    --shard) need "$1" "I/N, like 2/4" "$@"; shard=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --allow-same-commit) allow_same=1; shift ;;
    --cmake-target) need "$1" "a CMake target" "$@"; cmake_target=$2; shift 2 ;;
    --cmake-arg) need "$1" "an argument for cmake's configure step, like -DCMAKE_PREFIX_PATH=DIR" "$@"
                 cmake_args+=("$2"); shift 2 ;;
    --binary) need "$1" "a path under the build directory" "$@"; binary=$2; shift 2 ;;
    --bazel-target) need "$1" "a label like //benches:all" "$@"; bazel_target=$2; shift 2 ;;
    --build-cmd) need "$1" "a command" "$@"; build_cmd=$2; shift 2 ;;
    --run-cmd) need "$1" "a command" "$@"; run_cmd=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; compare_args=("$@"); break ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ -z $reps || $reps =~ ^[1-9][0-9]*$ ]] || die_usage "--reps '$reps': give a whole number >= 1 (5 or more recommended)"
[[ -z $rounds || $rounds =~ ^[1-9][0-9]*$ ]] || die_usage "--rounds '$rounds': give a whole number >= 1"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die_usage "--jobs '$jobs': give a whole number >= 1"
[[ -z $shard || ( $shard =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ && ${BASH_REMATCH[1]} -le ${BASH_REMATCH[2]} ) ]] ||
  die_usage "--shard '$shard': give I/N, this job's shard I of N with 1 <= I <= N (like --shard 2/4)"
[[ -z $min_time || $min_time =~ ^([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?[sx]?$ ]] ||
  die_usage "--min-time '$min_time': give seconds, like 0.05 (or 0.05s; 100x for iterations)"

if [[ $simulate == instructions || $simulate == cache ]] &&
   [[ $attribute != auto && $attribute != off && $attribute != instructions ]]; then
  die_usage "--attribute=$attribute with --simulate: callgrind profiles instructions only (exact, from the measured runs themselves); give --attribute or leave it out"
fi
if ((${#cmake_args[@]})) && [[ -n $bazel_target || -n $build_cmd || -n $run_cmd ]]; then
  die_usage "--cmake-arg goes with a CMake build (--cmake-target, the default); --bazel-target and --build-cmd do not run cmake: put such options in your build command"
fi
# shellcheck source=scripts/ci_build.sh
source "$script_dir/ci_build.sh"
check_build_way

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

# --- The output directory: checked whole before anything is made or run. ---
# What this script writes there (and replaces: a link is removed, not followed).
outputs=(base-build.log head-build.log base-run.log head-run.log
         base.json head.json compare.md compare-full.md compare.json)
me=$(id -u)
out_arg=$out

# round_files COMMAND ARGS...: runs COMMAND ARGS followed by the per-round
# files in $out (.base.N.json, .head.N.json), when there are any.
round_files() {
  local f found=()
  for f in "$out"/.base.[0-9]*.json "$out"/.head.[0-9]*.json; do
    if [[ -e $f || -L $f ]]; then found+=("$f"); fi
  done
  ((${#found[@]} == 0)) || "$@" "${found[@]}"
}

# Exits 2 unless the existing directory $out is ours and only we can write it.
check_private() {
  local owner mode
  read -r owner mode < <(stat -L -c '%u %a' -- "$out") ||
    die_usage "--out '$out_arg': cannot stat $out"
  ((owner == me)) ||
    die_usage "--out '$out_arg': $out belongs to uid $owner, not to you (uid $me): its owner could plant links there or swap base.json/head.json; pass --out a directory of your own, or no --out for a new private one"
  (((8#$mode & 8#022) == 0)) ||
    die_usage "--out '$out_arg': $out is writable by group or others (mode $mode): they could plant links there or swap base.json/head.json; chmod go-w '$out', or pass another --out"
}

# check_parent DIR WHAT: exits 2 when others could rename what is made in
# DIR away (DIR world-writable and not sticky, unlike /tmp).
check_parent() {
  local mode
  mode=$(stat -L -c '%a' -- "$1") || die_usage "$2: cannot stat $1"
  if (((8#$mode & 8#002) && !(8#$mode & 8#1000))); then
    die_usage "$2: $1 is writable by others and not sticky (mode $mode): anyone could replace a directory made there; pass --out a directory elsewhere"
  fi
}

# not_file PATH...: exits 2 when one is a directory where a file goes.
not_file() {
  local f
  for f; do
    [[ -L $f || ! -d $f ]] ||
      die_usage "--out '$out_arg': $f is a directory where this script writes a file; remove it, or pass another --out"
  done
}

# True when $1 is a linked worktree of this repository (its own top level,
# and listed by git worktree list). A plain directory would not do: git run
# there works on whatever repository encloses it, maybe the user's checkout.
is_our_worktree() {
  local tree=$1 top listed
  [[ -d $tree && ! -L $tree ]] || return 1
  top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null) || return 1
  [[ $top == "$tree" && $tree != "$repo" ]] || return 1
  listed=$(git -C "$repo" worktree list --porcelain) || return 1
  grep -Fxq -- "worktree $tree" <<<"$listed"
}

fresh_out=0 make_out=0
if [[ -z $out ]]; then
  fresh_out=1
elif [[ -e $out || -L $out ]]; then
  [[ -d $out ]] || die_usage "--out '$out_arg' exists and is not a directory; pass a directory (or no --out for a new one)"
  out=$(cd -- "$out" && pwd -P)
  check_private
else
  parent=$(dirname -- "$out")
  [[ -d $parent ]] ||
    die_usage "--out '$out_arg': its parent directory $parent does not exist; create it first (only --out itself is made, mode 0700), or pass another --out"
  out="$(cd -- "$parent" && pwd -P)/$(basename -- "$out")"
  make_out=1
fi
if ((fresh_out)); then
  tmp=${TMPDIR:-/tmp}
  [[ -d $tmp ]] || die_usage "\$TMPDIR '$tmp' is not a directory: set TMPDIR to a writable directory, or pass --out DIR"
  check_parent "$tmp" "\$TMPDIR '$tmp'"
else
  check_parent "$(dirname -- "$out")" "--out '$out_arg'"
  case "$out/" in
    "$repo"/*)
      git -C "$repo" check-ignore -q "$out/" ||
        die_usage "--out '$out_arg' is inside the work tree and git does not ignore it (its reports and worktrees would show as untracked files); pick a directory outside $repo or add it to .gitignore" ;;
  esac
fi
trees="$out/worktrees"
if ((!fresh_out && !make_out)); then
  if [[ -L $trees || (-e $trees && ! -d $trees) ]]; then
    die_usage "--out '$out_arg': $trees is not a directory (a symbolic link?); remove it, or pass another --out"
  fi
  for side in base head; do
    if [[ -e $trees/$side || -L $trees/$side ]] && ! is_our_worktree "$trees/$side"; then
      die_usage "--out '$out_arg': $trees/$side exists and is not a git worktree of $repo (git run there could act on another checkout, yours included); remove it, or pass another --out"
    fi
  done
  for name in "${outputs[@]}"; do not_file "$out/$name"; done
  round_files not_file
fi

# --- Work starts: make the directory, clear what an earlier run left. ---
if ((fresh_out)); then
  out=$(mktemp -d "$tmp/pmubench-compare-$(basename "$repo").XXXXXX" 2>/dev/null) ||
    die_usage "cannot make a directory in $tmp (\$TMPDIR): set TMPDIR to a writable directory, or pass --out DIR"
  out=$(cd -- "$out" && pwd -P)
  trees="$out/worktrees"
elif ((make_out)); then
  err=$(mkdir -m 0700 -- "$out" 2>&1) || die_usage "--out '$out_arg': $err"
fi
echo "ci_compare.sh: logs and reports go to $out" >&2
for name in "${outputs[@]}"; do rm -f -- "${out:?}/$name"; done
round_files rm -f --

# The signal handler runs inside whatever redirection is active (a log):
# it says why it stopped on the script's own stderr, kept here.
exec {stderr}>&2
child=0
# spawn DIR COMMAND ARGS...: runs COMMAND in DIR ("" for here) in the
# background and waits for it, so that a signal is handled at once (bash
# runs a trap only after a foreground command ends) and the handler can stop
# it. The subshell execs the command: $child is the command itself, with the
# default SIGINT/SIGQUIT (an asynchronous simple command would ignore them).
spawn() {
  local rc=0
  ([[ -z $1 ]] || cd "$1" || exit 125; shift; exec {stderr}>&-; exec "$@") &
  child=$!
  wait "$child" || rc=$?
  child=0
  return "$rc"
}

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  trap '' INT TERM HUP  # a second stop does not cut the cleaning short
  round_files rm -f --
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

# shellcheck disable=SC2317  # called by the signal traps
on_signal() {  # NAME NUMBER
  trap '' INT TERM HUP
  # Every job of this shell, not only $child: a signal that lands between
  # spawn's fork and its child=$! runs this trap with child still 0.
  local pids
  pids=$(jobs -p)
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086  # one pid a word
    kill -TERM $pids 2>/dev/null || true
    # shellcheck disable=SC2086
    wait $pids 2>/dev/null || true
    rm -f -- "$out"/.pmubench-*.tmp  # a merge.py/compare.py write cut short
  fi
  echo "ci_compare.sh: stopped by SIG$1" >&"$stderr"
  exit $((128 + $2))
}
# A signal ignored when the script started (SIGINT and SIGQUIT of a
# command started with & by a non-interactive shell, or under nohup) stays
# ignored: bash cannot trap it (bash(1), SIGNALS), so such a run goes on
# after that signal, as its starter asked.
trap cleanup EXIT
trap 'on_signal TERM 15' TERM
trap 'on_signal INT 2' INT
trap 'on_signal HUP 1' HUP



run() {  # side round
  local side=$1 round=$2
  echo "== run $side, round $round of $rounds" >&2
  local tree="$trees/$side" file="$out/.$side.$round.json" log="$out/$side-run.log"
  local flags=("${run_flags[@]}" "--benchmark_out=$file")
  [[ $side == head ]] && flags+=("${head_cost_flags[@]}")
  if [[ -n $run_cmd ]]; then
    spawn "$tree" bash -c "$run_cmd \"\$@\"" run-cmd "${flags[@]}"
  elif [[ -n $bazel_target ]]; then
    spawn "$tree" "./$bazel_binary" "${flags[@]}"
  else
    spawn "$tree" "build/$binary" "${flags[@]}"
  fi >>"$log" 2>&1 || die_step "the $side run failed; see $log"
  [[ -s $file ]] || die_step "the $side run wrote no $file: does the run command pass its arguments to the benchmark binary?"
}

# knows_simulate SIDE: the side's binary lists --pmubench_simulate in --help.
knows_simulate() { knows_flag "$1" --pmubench_simulate; }

# knows_flag SIDE FLAG: the side's binary lists FLAG in --help.
# (Its whole output is read first: grep -q would stop reading early, and
# under pipefail the binary's SIGPIPE would make the answer no.)
knows_flag() {
  local tree="$trees/$1" help
  if [[ -n $run_cmd ]]; then
    help=$(cd "$tree" && bash -c "$run_cmd \"\$@\"" run-cmd --help 2>&1) || true
  elif [[ -n $bazel_target ]]; then
    help=$(cd "$tree" && "./$bazel_binary" --help 2>&1) || true
  else
    help=$(cd "$tree" && "build/$binary" --help 2>&1) || true
  fi
  [[ $help == *"$2"* ]]
}

# After the base build: whether to count with callgrind (see --simulate).
choose_simulation() {
  [[ $simulate == auto ]] || return 0
  simulate=off
  has_hardware_pmu && return 0
  knows_simulate base || return 0
  if ! command -v valgrind >/dev/null 2>&1; then
    echo "ci_compare.sh: this machine has no hardware PMU and valgrind is not installed: only times can judge this comparison, and they need --rounds 4 or more on a quiet machine; install valgrind (apt-get install valgrind) to gate on exact instruction counts (--simulate)" >&2
    return 0
  fi
  echo "ci_compare.sh: this machine has no hardware PMU: counting instructions with callgrind, one run a side (--simulate; --no-simulate times the runs instead)" >&2
  simulate=instructions
}

# The benchmark flags of every run, once --simulate is settled.
set_run_flags() {
  if [[ $simulate == instructions || $simulate == cache ]]; then
    reps=${reps:-1} rounds=${rounds:-1}
    run_flags=("--pmubench_simulate=$simulate")
    [[ -n $min_time ]] && run_flags+=("--benchmark_min_time=$min_time")
  else
    reps=${reps:-3} rounds=${rounds:-2}
    run_flags=("--benchmark_min_time=${min_time:-0.05}")
  fi
  run_flags+=("--benchmark_repetitions=$reps" "--benchmark_filter=$filter"
              "--benchmark_out_format=json")
  add_machine_context
  [[ -n $counters ]] && run_flags+=("--counters=$counters")
  if [[ -n $shard ]]; then
    knows_flag base --pmubench_shard ||
      die_step "--shard: the base binary does not know --pmubench_shard (its --help does not list it); shard a suite whose base has it"
    run_flags+=("--pmubench_shard=$shard")
  fi
  set_profile_flag
  return 0
}

# Under --simulate the head's workers (--pmubench_jobs) take the cases
# largest first by the base run's costs (--pmubench_shard_costs; a case the
# base did not run is placed by count). Not with --shard (each side must
# cut the suite the same way). A simulated profile (the attribution) travels
# with its worker's rows; a head binary from before refused workers with a
# profile (its --help does not say "a sampled --pmubench_profile"), so it
# runs serially.
head_cost_flags=()
set_head_cost_flags() {
  head_cost_flags=()
  [[ $simulate == instructions || $simulate == cache ]] || return 0
  [[ -z $shard ]] || return 0
  knows_flag head --pmubench_shard_costs || return 0
  if [[ " ${run_flags[*]} " == *" --pmubench_profile="* ]]; then
    knows_flag head "with a sampled --pmubench_profile" || return 0
  fi
  [[ -s $out/.base.1.json ]] || return 0
  head_cost_flags=("--pmubench_jobs=$(nproc)" "--pmubench_shard_costs=$out/.base.1.json")
}

# The runner's facts that the history's machine identity reads beside the
# run's own (docs/history.md, "Series and machine identity"), recorded as
# the documented main workflow records them, so that `history.py judge`
# of head.json finds the machine of main's history; then --context's.
add_machine_context() {
  local cpu
  run_flags+=("--benchmark_context=kernel=$(uname -r)")
  cpu=$(ld.so --help 2>/dev/null | grep -m1 'supported, searched' | awk '{print $1}') || true
  [[ -n $cpu ]] && run_flags+=("--benchmark_context=guest_cpu=$cpu")
  run_flags+=("${context_flags[@]}")
}

# --attribute: the profile flag of every run (see "Why a row changed").
set_profile_flag() {
  local event
  if [[ $simulate == instructions || $simulate == cache ]]; then
    [[ $attribute == off ]] && return 0
    event=instructions
  else
    [[ $attribute == auto || $attribute == off ]] && return 0
    event=$attribute
  fi
  if ! knows_flag base --pmubench_profile; then
    echo "ci_compare.sh: the base binary does not know --pmubench_profile: no attribution of changed rows" >&2
    return 0
  fi
  run_flags+=("--pmubench_profile=$event")
  if [[ $event == "$attribute" && $simulate == off ]]; then
    echo "ci_compare.sh: --attribute: each case is sampled ($event) in one extra batch after its measured runs; the attribution is estimated" >&2
  fi
}

build base "$base_sha"
build head "$head_sha"
choose_simulation
set_run_flags
for ((round = 1; round <= rounds; round++)); do
  if ((round % 2)); then run base "$round"; set_head_cost_flags; run head "$round"
  else run head "$round"; run base "$round"; fi
done
for side in base head; do
  parts=()
  for ((round = 1; round <= rounds; round++)); do parts+=("$out/.$side.$round.json"); done
  spawn "" "$python" "$script_dir/merge.py" "$out/$side.json" "${parts[@]}" ||
    die_step "merging the $side rounds failed"
done
round_files rm -f --
if [[ -n $shard ]]; then
  echo "shard $shard: $out/base.json $out/head.json; join every shard's files with scripts/merge.py --shards and compare the joined pair (docs/sharding.md)" >&2
  exit 0
fi

compare="$script_dir/compare.py"
md_status=0 json_status=0 status=0
spawn "" "$python" "$compare" "$out/base.json" "$out/head.json" --format markdown \
  --output "$out/compare.md" --full-output "$out/compare-full.md" "${compare_args[@]}" ||
  md_status=$?
spawn "" "$python" "$compare" "$out/base.json" "$out/head.json" --format json \
  --output "$out/compare.json" "${compare_args[@]}" || json_status=$?
spawn "" "$python" "$compare" "$out/base.json" "$out/head.json" "${compare_args[@]}" || status=$?
written=() missing=0
for report in "compare.md $md_status" "compare-full.md $md_status" "compare.json $json_status"; do
  read -r name rc <<<"$report"
  if [[ -f $out/$name && ! -L $out/$name ]]; then
    written+=("$out/$name")
  else
    echo "ci_compare.sh: $out/$name was not written (compare.py exited $rc writing it; see its message above)" >&2
    missing=1
  fi
done
if ((missing)) && [[ $status != [124] ]]; then
  echo "ci_compare.sh: a report that could not be written fails the run: exit 3 (compare.py's status was $status)" >&2
  status=3
fi
echo "reports: ${written[*]:-none written} (exit $status)" >&2
exit "$status"
