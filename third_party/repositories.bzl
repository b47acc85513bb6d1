"""The system libraries pmubench builds against, all from Debian packages.

Each is a system_library repository (see system_library.bzl): checked to be
installed, never downloaded. BUILD files use them through the aliases in
//third_party (//third_party:absl, :benchmark, :dw, :gtest, :gtest_main).
"""

load("//third_party:system_library.bzl", "system_library")

# The Abseil libraries for: flags (+ flags_parse, flags_usage), status,
# statusor, strings, str_format, flat_hash_map (hash, raw_hash_set),
# btree, synchronization, time. Regenerate the list (order matters for
# static archives) with
#   pkg-config --libs absl_flags absl_flags_parse absl_flags_usage \
#     absl_status absl_statusor absl_strings absl_str_format \
#     absl_flat_hash_map absl_synchronization absl_time absl_btree
# Header-only parts (btree, span, cleanup, ...) need no library. There is no
# libabsl_flags: absl_flags is the set below.
_ABSL_LIBRARIES = [
    "absl_flags_parse",
    "absl_flags_usage",
    "absl_flags_usage_internal",
    "absl_flags_internal",
    "absl_flags_marshalling",
    "absl_flags_reflection",
    "absl_flags_private_handle_accessor",
    "absl_flags_commandlineflag",
    "absl_flags_commandlineflag_internal",
    "absl_flags_config",
    "absl_flags_program_name",
    "absl_statusor",
    "absl_status",
    "absl_strerror",
    "absl_str_format_internal",
    "absl_hash",
    "absl_city",
    "absl_bad_variant_access",
    "absl_low_level_hash",
    "absl_raw_hash_set",
    "absl_hashtablez_sampler",
    "absl_cord",
    "absl_cordz_info",
    "absl_cord_internal",
    "absl_cordz_functions",
    "absl_exponential_biased",
    "absl_cordz_handle",
    "absl_synchronization",
    "absl_graphcycles_internal",
    "absl_stacktrace",
    "absl_symbolize",
    "absl_debugging_internal",
    "absl_demangle_internal",
    "absl_malloc_internal",
    "absl_time",
    "absl_civil_time",
    "absl_time_zone",
    "absl_bad_optional_access",
    "absl_strings",
    "absl_strings_internal",
    "absl_base",
    "absl_spinlock_wait",
    "absl_int128",
    "absl_throw_delegate",
    "absl_raw_logging_internal",
    "absl_log_severity",
]

def _system_library(name, **attrs):
    # A repository the calling WORKSPACE declared itself is left as it is.
    if not native.existing_rule(name):
        system_library(name = name, **attrs)

def pmubench_system_libraries():
    """Declares one repository per Debian package the C++ build needs."""
    _system_library(
        name = "system_absl",
        package = "libabsl-dev",
        include_dirs = ["absl"],
        headers = [
            "absl/base/config.h",
            "absl/container/btree_map.h",
            "absl/container/flat_hash_map.h",
            "absl/flags/flag.h",
            "absl/flags/parse.h",
            "absl/flags/usage.h",
            "absl/status/status.h",
            "absl/status/statusor.h",
            "absl/strings/str_format.h",
            "absl/synchronization/mutex.h",
            "absl/time/time.h",
        ],
        targets = {"absl": _ABSL_LIBRARIES},
        # From the same pkg-config output: libatomic only where needed.
        linkopts = [
            "-Wl,--push-state,--as-needed",
            "-latomic",
            "-Wl,--pop-state",
            "-lrt",
            "-pthread",
        ],
    )

    # libbenchmark only: pmubench supplies its own main (//framework:pmubench_main),
    # so libbenchmark_main is never linked.
    _system_library(
        name = "system_benchmark",
        package = "libbenchmark-dev",
        include_dirs = ["benchmark"],
        headers = ["benchmark/benchmark.h"],
        targets = {"benchmark": ["benchmark"]},
        linkopts = ["-pthread"],
    )

    # Debian ships googletest as static archives: dependents come first.
    _system_library(
        name = "system_googletest",
        package = "libgtest-dev libgmock-dev",
        include_dirs = ["gtest", "gmock"],
        headers = ["gtest/gtest.h", "gmock/gmock.h"],
        targets = {
            "gtest": ["gmock", "gtest"],
            "gtest_main": ["gmock", "gtest_main", "gtest"],
        },
        linkopts = ["-pthread"],
    )

    # elfutils' libdwfl (libdw-dev): source lines of sampled addresses.
    _system_library(
        name = "system_libdw",
        package = "libdw-dev",
        include_dirs = ["elfutils"],
        headers = ["elfutils/libdwfl.h"],
        targets = {"dw": ["dw"]},
    )
