"""A room of framework/perf or framework/runner: one library of the files
in one folder (docs/design.md#where-each-stage-lives)."""

load("@rules_cc//cc:defs.bzl", "cc_library")

def room(name, folder, below, deps, exclude = []):
    """A cc_library `name` of framework/<folder>'s .cc and .h files.

    Args:
      name: the library, as framework/CMakeLists.txt names it.
      folder: "perf/<room>" or "runner/<room>".
      below: the rooms under this one that it may include (labels). Bazel's
        sandbox refuses an include of any other room's header.
      deps: what else it uses: the perf layer, Abseil, Google Benchmark.
      exclude: sources of the folder that belong to another library.
    """
    cc_library(
        name = name,
        srcs = native.glob([folder + "/*.cc"], exclude = exclude),
        hdrs = native.glob([folder + "/*.h"]),
        visibility = ["//visibility:private"],
        deps = below + deps,
    )
