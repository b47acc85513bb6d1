"""The native C++ rules of Bazel 4.2.3, under the names rules_cc exports.

BUILD files load `@rules_cc//cc:defs.bzl` as upstream rules_cc asks; here each
macro forwards its attributes unchanged to the rule built into Bazel, so the
build behaves exactly as with the native rules and downloads nothing.
"""

def cc_binary(**attrs):
    """Forwards to native.cc_binary."""
    native.cc_binary(**attrs)

def cc_test(**attrs):
    """Forwards to native.cc_test."""
    native.cc_test(**attrs)

def cc_library(**attrs):
    """Forwards to native.cc_library."""
    native.cc_library(**attrs)

def cc_import(**attrs):
    """Forwards to native.cc_import."""
    native.cc_import(**attrs)

def cc_proto_library(**attrs):
    """Forwards to native.cc_proto_library."""
    native.cc_proto_library(**attrs)

def fdo_prefetch_hints(**attrs):
    """Forwards to native.fdo_prefetch_hints."""
    native.fdo_prefetch_hints(**attrs)

def fdo_profile(**attrs):
    """Forwards to native.fdo_profile."""
    native.fdo_profile(**attrs)

def cc_toolchain(**attrs):
    """Forwards to native.cc_toolchain."""
    native.cc_toolchain(**attrs)

def cc_toolchain_suite(**attrs):
    """Forwards to native.cc_toolchain_suite."""
    native.cc_toolchain_suite(**attrs)
