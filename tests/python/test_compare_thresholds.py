"""Tests for scripts/pmubench/verdicts/thresholds.py."""

from __future__ import annotations

import pytest

from pmubench.verdicts import thresholds as th


@pytest.mark.parametrize("metric, cls", [
    ("instructions", "deterministic"), ("instructions:u", "deterministic"),
    ("cpu/instructions/", "deterministic"), ("branches", "deterministic"),
    ("page-faults", "deterministic"), ("INST_RETIRED:ANY_P", "deterministic"),
    ("inst_retired:any_p", "deterministic"),
    ("expected_instructions", "deterministic"),
    ("cycles", "cycles"), ("stalled-cycles-frontend", "cycles"),
    ("L1-dcache-load-misses", "cache"), ("LLC-load-misses", "cache"),
    ("cache-misses", "cache"), ("cpu/event=0xd1,umask=0x20/", "cache"),
    ("my_user_counter", "cache"),
    ("IPC", "derived"), ("branch-miss-ratio", "derived"),
    ("real_time", "time"), ("cpu_time", "time"), ("task-clock", "time"),
    ("msr/tsc/", "time"), ("items_per_second", "time"), ("ref-cycles", "time"),
    ("tsc_ticks_per_snapshot", "time"), ("read_ns", "time"),
    ("context-switches", "info"), ("cpu-migrations", "info"),
    ("pmu_running_fraction", "info"),
])
def test_classify(metric, cls):
    assert th.classify(metric).name == cls


def test_defaults_are_tight_for_deterministic_and_loose_for_time():
    assert th.resolve("instructions", []).pct == 1.0
    assert th.resolve("L1-dcache-load-misses", []).pct == 5.0
    assert th.resolve("real_time", []).pct == 10.0
    assert th.resolve("context-switches", []).pct is None
    assert th.resolve("instructions", []).floor == 0.01
    assert th.resolve("real_time", []).floor == 0.0


def test_parse_override():
    assert th.parse_override("instructions=0.5") == th.Override("instructions", 0.5)
    assert th.parse_override("time=5%") == th.Override("time", 5.0)
    assert th.parse_override("context-switches=off") == th.Override("context-switches", None)
    # A metric name may itself hold '=' (sysfs syntax): split at the last one.
    assert th.parse_override("cpu/event=0xc0/=2") == th.Override("cpu/event=0xc0/", 2.0)


@pytest.mark.parametrize("text, problem", [
    ("instructions", "expected METRIC=PCT"),
    ("=5", "expected METRIC=PCT"),
    ("instructions=abc", "is not a number"),
    ("instructions=-1", ">= 0"),
    ("instructions=nan", "finite"),
])
def test_parse_override_rejects(text, problem):
    with pytest.raises(th.ThresholdError, match=problem):
        th.parse_override(text)


def test_resolve_precedence():
    overrides = [th.parse_override(t) for t in (
        "instructions=3", "bran*=7", "time=4", "default=9", "instructions=2")]
    # Exact beats pattern; the later exact one wins.
    got = th.resolve("instructions", overrides)
    assert got.pct == 2.0 and got.source == "instructions=2"
    # "time" is the time class: wall, CPU, task-clock, TSC and rates.
    for metric in ("real_time", "cpu_time", "task-clock", "msr/tsc/", "items_per_second"):
        assert th.resolve(metric, overrides).pct == 4.0
    assert th.resolve("cycles", overrides).pct == 9.0
    # A pattern beats "default".
    assert th.resolve("branches", overrides).pct == 7.0
    # "default" does not switch on an info metric; a name does.
    assert th.resolve("context-switches", overrides).pct is None
    assert th.resolve("context-switches",
                      [th.parse_override("context-switches=50")]).pct == 50.0
    assert th.resolve("instructions", [th.parse_override("instructions=off")]).pct is None


def test_help_table_lists_every_class():
    table = th.defaults_table()
    for cls in th.CLASSES:
        assert cls.name in table
    assert "instructions" in table and "not gated" in table
