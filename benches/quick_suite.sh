#!/bin/bash
# quick_suite: benches/all in quick mode, a smoke test, not a measurement.
# It must run to the end (exit 0) with the counters this machine has and
# write its JSON (--benchmark_out) with at least one benchmark in it.
#
#   quick_suite.sh BINARY OUT.json [FLAG...]
#
# CMake's benches.quick_suite runs every family; Bazel's //benches:quick_suite
# passes a --benchmark_filter (it runs under --config=asan in scripts/test).
# OUT.json "-" (Bazel's) is quick_suite.json in $TEST_UNDECLARED_OUTPUTS_DIR.
set -euo pipefail

[[ $# -ge 2 ]] || { echo "usage: quick_suite.sh BINARY OUT.json [FLAG...]" >&2; exit 2; }
bin=$1 out=$2
shift 2
if [[ $out == - ]]; then
  out=${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:?}}/quick_suite.json
fi
rm -f "$out"

status=0
"$bin" "$@" --benchmark_out="$out" --benchmark_out_format=json || status=$?
if [[ $status != 0 ]]; then
  echo "quick_suite: FAIL: $bin exited $status" >&2
  exit 1
fi
[[ -s $out ]] || { echo "quick_suite: FAIL: $out was not written" >&2; exit 1; }
/usr/bin/python3 - "$out" <<'PY'
import json
import sys

with open(sys.argv[1]) as f:
    benchmarks = json.load(f).get("benchmarks", [])
if not benchmarks:
    sys.exit(f"quick_suite: FAIL: {sys.argv[1]} holds no benchmark")
print(f"quick_suite: {sys.argv[1]}: {len(benchmarks)} benchmarks")
PY
