#!/bin/sh
# Stand-in for Bazel's coverage tools (see BUILD): says why `bazel coverage`
# cannot work in the offline build instead of failing obscurely.
echo "pmubench: 'bazel coverage' is not supported: the offline build replaces" \
  "Bazel's downloaded remote_coverage_tools with a stub" \
  "(tools/remote_coverage_tools). Use 'bazel test' for results." >&2
exit 1
