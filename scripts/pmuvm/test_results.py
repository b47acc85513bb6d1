"""Counts of `scripts/pmu-vm test`: the closing lines of each GoogleTest
binary run in the guest, and the accuracy kernels' JSON checks (PMU and
callgrind counts).

The guest's test script frames each binary's output with
    @@pmu-vm-test:begin <name>
    ... GoogleTest's output ...
    @@pmu-vm-test:end <name> <exit status>
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from dev.test_summary import Counts  # scripts/dev/test_summary.py

BEGIN = "@@pmu-vm-test:begin"
END = "@@pmu-vm-test:end"

_RAN = re.compile(r"^\[==========\] \d+ tests? from \d+ test suites? ran\.", re.M)
_PASSED = re.compile(r"^\[  PASSED  \] (\d+) tests?\.", re.M)
_SKIPPED = re.compile(r"^\[  SKIPPED \] (\d+) tests?, listed below:", re.M)
_FAILED = re.compile(r"^\[  FAILED  \] (\d+) tests?, listed below:", re.M)


def parse_gtest(output: str, exit_status: int | None) -> Counts:
    """Counts from one GoogleTest binary's closing lines.

    A binary that never printed its closing '[==========] ... ran.' line
    (it crashed or hung) counts one failure on top of what it printed; so
    does a nonzero exit status with no failed test (a crash at exit).
    """
    def grab(pattern: re.Pattern) -> int:
        m = pattern.search(output)
        return int(m.group(1)) if m else 0
    counts = Counts(passed=grab(_PASSED), failed=grab(_FAILED),
                    skipped=grab(_SKIPPED))
    if not _RAN.search(output):
        counts.failed += 1
    elif exit_status not in (0, None) and counts.failed == 0:
        counts.failed += 1
    return counts


@dataclass
class Section:
    name: str
    output: str
    exit_status: int | None   # None: the section never ended


def split_sections(stdout: str) -> list[Section]:
    """The framed sections of the test script's stdout, in order."""
    sections: list[Section] = []
    name, lines = None, []
    for line in stdout.splitlines():
        if line.startswith(BEGIN + " "):
            if name is not None:
                sections.append(Section(name, "\n".join(lines), None))
            name, lines = line[len(BEGIN) + 1:].strip(), []
        elif line.startswith(END + " ") and name is not None:
            status = line.rsplit(" ", 1)[-1]
            sections.append(Section(name, "\n".join(lines),
                                    int(status) if status.isdigit() else None))
            name, lines = None, []
        elif name is not None:
            lines.append(line)
    if name is not None:
        sections.append(Section(name, "\n".join(lines), None))
    return sections


@dataclass
class AccuracyCheck:
    counts: Counts = field(default_factory=Counts)
    lines: list[str] = field(default_factory=list)


# Instructions per batch a case's loop entry may differ from the runner's
# calibration loop by (a register move, an alignment nop: the compiler's
# layout of the case's own function). 3 since the heap-allocation tally's
# start and stop sit at the loop's ends (framework/runner/alloc): measured
# in the PMU VM, 2 / 1 / 1 / 3 per batch for the four accuracy kernels (0 to
# 1 before); the per-iteration counts stay exact to 0.00003.
LOOP_ENTRY_SLACK = 3


def check_accuracy(report: dict, counter: str = "instructions",
                   slack: int = LOOP_ENTRY_SLACK,
                   expected_key: str | None = None) -> AccuracyCheck:
    """One pass or failure per benchmark with an expected_<counter> counter
    (or `expected_key`, e.g. expected_instructions for the simulated
    callgrind/instructions/): the batch's count (per-iteration value times
    iterations) must equal the expected count up to `slack` per batch."""
    check = AccuracyCheck()
    expected_key = expected_key or f"expected_{counter}"
    for bench in report.get("benchmarks", []):
        expected = bench.get(expected_key)
        if expected is None or bench.get("run_type") == "aggregate":
            continue
        got = bench.get(counter)
        iterations = bench.get("iterations", 0)
        residue = (None if got is None else
                   round((float(got) - float(expected)) * iterations))
        ok = residue is not None and iterations > 0 and abs(residue) <= slack
        check.counts.add(Counts(passed=1) if ok else Counts(failed=1))
        check.lines.append(f"{'ok  ' if ok else 'FAIL'} {bench['name']}: "
                           f"{counter} {got} per iteration, expected {expected} "
                           f"({residue} per batch of {iterations})")
    if not check.lines:
        check.counts.failed += 1
        check.lines.append(f"FAIL no benchmark reports {expected_key}")
    return check


def load_report(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


_SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$", re.M)


def parse_summary(output: str) -> Counts:
    """The counts of `scripts/pmu-vm test`'s last summary line; one failure
    when there is none (the rig broke before counting)."""
    found = _SUMMARY.findall(output)
    if not found:
        return Counts(failed=1)
    passed, failed, skipped = map(int, found[-1])
    return Counts(passed=passed, failed=failed, skipped=skipped)
