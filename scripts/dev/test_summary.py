"""Pure parsers of the closing lines of CTest, Bazel and pytest, for
scripts/test's one-line summary."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def add(self, other: "Counts") -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped


def parse_ctest(output: str) -> Counts:
    """Counts from CTest's closing lines.

    '100% tests passed, 0 tests failed out of 57' and, when some skipped,
    'The following tests did not run:' followed by '  12 - Name (Skipped)'.
    """
    m = re.search(r"tests passed, (\d+) tests? failed out of (\d+)", output)
    if not m:
        return Counts(failed=1)
    failed, total = int(m.group(1)), int(m.group(2))
    skipped = len(re.findall(r"^\s*\d+ - .*\(Skipped\)\s*$", output, re.M))
    return Counts(passed=total - failed - skipped, failed=failed, skipped=skipped)


def parse_bazel(output: str) -> Counts:
    """Counts test targets from Bazel's closing line.

    'Executed 3 out of 3 tests: 3 tests pass.' or
    'Executed 3 out of 3 tests: 2 tests pass and 1 fails locally.'
    A target that did not build is in the total but not among the passes.
    """
    m = re.search(r"^Executed \d+ out of (\d+) tests?: (.*)$", output, re.M)
    if not m:
        return Counts(failed=1)
    total = int(m.group(1))
    passes = re.search(r"(\d+) tests? pass", m.group(2))
    passed = int(passes.group(1)) if passes else 0
    return Counts(passed=passed, failed=total - passed)


def parse_pytest(output: str) -> Counts:
    """Counts from pytest's last line: '12 passed, 1 skipped in 3.2s'."""
    lines = [l for l in output.strip().splitlines() if l.strip()]
    tail = lines[-1] if lines else ""
    def grab(word: str) -> int:
        m = re.search(r"(\d+) " + word, tail)
        return int(m.group(1)) if m else 0
    return Counts(passed=grab("passed"), failed=grab("failed") + grab("error"),
                  skipped=grab("skipped"))
