"""pmubench_deps(): every repository pmubench's build needs, offline.

pmubench's own WORKSPACE calls it, and so does a project that uses pmubench:

    local_repository(name = "pmubench", path = "/path/to/pmubench")
    load("@pmubench//bazel:deps.bzl", "pmubench_deps")
    pmubench_deps()

and depends on "@pmubench//framework:pmubench_main" (or :pmubench with
PMUBENCH_MAIN()), and on "@pmubench//third_party:absl" if its own code
includes Abseil. The project's .bazelrc sets the C++ standard, as for
Abseil (`build --cxxopt=-std=c++20`), and `build --nosandbox_debug` against
Debian's /etc/bazel/bazelrc. docs/building.md, "Use it in your project", has the
three files.

Everything comes from the local disk (Debian's bazel-bootstrap 4.2.3):
rules_java from the bazel-rules-java package, rules_cc and
remote_coverage_tools from stand-ins inside pmubench (tools/), the C++
libraries from Debian packages under /usr (third_party/repositories.bzl).
A repository the calling WORKSPACE already defined is left as it is.
"""

load("//third_party:repositories.bzl", "pmubench_system_libraries")

# A file at pmubench's root: its directory is pmubench's, wherever the
# calling workspace put it (a relative local_repository path would resolve
# against the calling workspace instead).
_PMUBENCH_ROOT_FILE = Label("//:WORKSPACE")

def _pmubench_subdirectory_impl(rctx):
    root = rctx.path(rctx.attr._root_file).dirname
    source = root
    for part in rctx.attr.subdirectory.split("/"):  # get_child: one name
        source = source.get_child(part)
    if not source.exists:
        fail("pmubench: %s is missing from %s" % (rctx.attr.subdirectory, root))
    for child in source.readdir():
        rctx.symlink(child, child.basename)

# A repository whose files are a directory of pmubench (tools/rules_cc, ...),
# located from pmubench's root rather than the calling workspace's.
_pmubench_subdirectory = repository_rule(
    implementation = _pmubench_subdirectory_impl,
    attrs = {
        "subdirectory": attr.string(mandatory = True),
        "_root_file": attr.label(default = _PMUBENCH_ROOT_FILE),
    },
    local = True,
)

def pmubench_deps():
    """Declares the repositories pmubench needs that are not yet declared."""
    if not native.existing_rule("rules_java"):
        # Java rules from Debian's bazel-rules-java package (Bazel's built-in
        # WORKSPACE suffix would otherwise download them).
        native.local_repository(
            name = "rules_java",
            path = "/usr/share/bazel/rules/java",
        )
    if not native.existing_rule("rules_cc"):
        # The native C++ rules under rules_cc's names (tools/rules_cc).
        _pmubench_subdirectory(name = "rules_cc", subdirectory = "tools/rules_cc")
    if not native.existing_rule("remote_coverage_tools"):
        # `bazel test` resolves the coverage tools even without coverage.
        _pmubench_subdirectory(
            name = "remote_coverage_tools",
            subdirectory = "tools/remote_coverage_tools",
        )

    # Abseil, Google Benchmark, libdw and GoogleTest/GoogleMock from /usr,
    # checked to be installed.
    pmubench_system_libraries()
