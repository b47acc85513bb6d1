"""Metric names as pmubench writes them carry the user's modifier and PMU
prefix ("IPC:u", "cpu/instructions/u", "msr/tsc/"); every classification
(direction, derived, threshold class and overrides, units) goes through
benchjson.base_name."""

from __future__ import annotations

import json

import pytest

from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.verdicts import thresholds as th
from pmubench.report import series


@pytest.mark.parametrize("metric, base", [
    ("instructions", "instructions"),
    ("instructions:u", "instructions"),
    ("instructions:uk", "instructions"),
    ("cycles:k", "cycles"),
    ("IPC:u", "IPC"),
    ("branch-miss-ratio:k", "branch-miss-ratio"),
    ("cpu/instructions/", "instructions"),
    ("cpu/instructions/u", "instructions"),
    ("cpu/instructions/:k", "instructions"),
    ("cpu_core/cycles/uk", "cycles"),
    ("armv8_pmuv3_0/inst_retired/", "inst_retired"),
    ("msr/tsc/", "tsc"),
    ("msr/tsc/:u", "tsc"),
    ("cpu/event=0xc0,umask=0/", "cpu/event=0xc0,umask=0/"),
    ("cpu/event=0xc0/u", "cpu/event=0xc0/"),
    ("real_time", "real_time"),
    ("expected_instructions", "expected_instructions"),
])
def test_base_name(metric, base):
    assert benchjson.base_name(metric) == base


@pytest.mark.parametrize("metric", ["IPC", "IPC:u", "IPC:k", "IPC:uk",
                                    "items_per_second", "pmu_running_fraction"])
def test_higher_is_better_whatever_the_modifier(metric):
    assert benchjson.is_higher_better(metric)


@pytest.mark.parametrize("metric", ["IPC:u", "branch-miss-ratio:u",
                                    "L1-dcache-load-miss-ratio:k"])
def test_derived_whatever_the_modifier(metric):
    assert benchjson.is_derived(metric)
    assert th.classify(metric).name == "derived"
    assert series.metric_kind(metric) == "derived"


def test_classes_and_units_see_through_prefixes():
    assert th.classify("cpu/instructions/u").name == "deterministic"
    assert th.classify("msr/tsc/:u").name == "time"
    assert series.metric_unit("IPC:u") == "instructions per cycle"
    assert series.metric_unit("cycles:u") == "cycles per iteration"
    assert series.metric_unit("msr/tsc/") == "TSC cycles per iteration"


def test_an_override_by_base_name_applies_and_an_exact_one_wins():
    rules = [th.parse_override("instructions=7"), th.parse_override("instructions:k=3")]
    assert th.resolve("instructions:u", rules).pct == 7
    assert th.resolve("instructions:k", rules).pct == 3
    assert th.resolve("cpu/instructions/u", [th.parse_override("instr*=4")]).pct == 4


def test_metrics_filter_by_base_name():
    assert comparison.selected("instructions:u", ["instructions"])
    assert not comparison.selected("cycles:u", ["instructions"])


def _file(path, ipc: float, reps: int = 6):
    runs = [{"name": "BM_X", "run_name": "BM_X", "run_type": "iteration",
             "repetitions": reps, "repetition_index": i, "threads": 1,
             "iterations": 1000, "real_time": 10.0 + 0.01 * i,
             "cpu_time": 10.0 + 0.01 * i, "time_unit": "ns",
             "IPC:u": ipc + 0.001 * i} for i in range(reps)]
    path.write_text(json.dumps({"context": {}, "benchmarks": runs}))
    return path


def test_ipc_u_halving_is_a_regression(tmp_path, run_tool):
    base = _file(tmp_path / "base.json", 2.0)
    contender = _file(tmp_path / "contender.json", 1.0)
    proc = run_tool("scripts/compare.py", base, contender, "--format", "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (row,) = [r for r in json.loads(proc.stdout)["rows"] if r["metric"] == "IPC:u"]
    assert row["verdict"] == "regression"
    assert row["metric_class"] == "derived" and row["higher_is_better"]
