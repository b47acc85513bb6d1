"""The closing-line parsers behind scripts/test's summary line."""

from dev.test_summary import Counts, parse_bazel, parse_ctest, parse_pytest


def test_ctest_counts_skipped_apart_from_passed():
    out = """100% tests passed, 0 tests failed out of 156

Total Test time (real) =   1.32 sec

The following tests did not run:
\t 16 - perf.HardwareCounterGroupTest.CyclesAndInstructionsCountThroughRdpmc (Skipped)
\t123 - runner.SessionTest.DefaultIsHardwareSetWithPmu (Skipped)
"""
    assert parse_ctest(out) == Counts(passed=154, failed=0, skipped=2)


def test_ctest_failures():
    out = "97% tests passed, 3 tests failed out of 100\n"
    assert parse_ctest(out) == Counts(passed=97, failed=3)


def test_ctest_without_closing_line_is_a_failure():
    assert parse_ctest("make: *** [all] Error 2\n").failed == 1


def test_bazel_all_pass():
    out = "INFO: Build completed successfully\nExecuted 3 out of 3 tests: 3 tests pass.\n"
    assert parse_bazel(out) == Counts(passed=3, failed=0)


def test_bazel_some_fail():
    out = "Executed 3 out of 3 tests: 2 tests pass and 1 fails locally.\n"
    assert parse_bazel(out) == Counts(passed=2, failed=1)


def test_bazel_build_failure_counts_unexecuted_targets_as_failed():
    out = "Executed 1 out of 3 tests: 1 test passes and 2 were skipped.\n"
    assert parse_bazel(out) == Counts(passed=1, failed=2)
    assert parse_bazel("ERROR: Build did NOT complete successfully\n").failed == 1


def test_pytest_last_line():
    out = "....s.F\n=== 1 failed, 5 passed, 1 skipped in 2.31s ===\n"
    assert parse_pytest(out) == Counts(passed=5, failed=1, skipped=1)
    assert parse_pytest("167 passed in 54.83s\n") == Counts(passed=167)
