"""compare.py gates heap allocations as exact counts (issue 41, item 3):
one allocation more per iteration is a regression, and a file against
itself passes.

The base file is a real run of runner_alloc_cases (tests/runner/alloc_cases.cc,
tests/python/fixtures/allocations/README.md says how it was made); the head
is that file with one allocation (17 bytes) and one free more per iteration
in BM_AllocMakeUnique, as a change that adds a std::string of 16 characters
would read."""

from __future__ import annotations

import json

from conftest import REPO_ROOT

BASE = REPO_ROOT / "tests/python/fixtures/allocations/base.json"


def one_more_allocation(run_file: dict, name: str) -> dict:
    """`run_file` with one allocation of 17 bytes and its free added per
    iteration to every run of benchmark `name` and to its mean and median
    (its stddev and cv stay as they are: the count is the same in each)."""
    edited = json.loads(json.dumps(run_file))
    for run in edited["benchmarks"]:
        shifted = run.get("aggregate_name", "mean") in ("mean", "median")
        if run["run_name"] == name and shifted:
            run["allocs_per_iter"] += 1
            run["alloc_bytes_per_iter"] += 17
            run["frees_per_iter"] += 1
    return edited


def test_the_edit_adds_exactly_one_allocation_to_one_benchmark():
    base = json.loads(BASE.read_text())
    head = one_more_allocation(base, "BM_AllocMakeUnique")
    changed = [(b["name"], h["allocs_per_iter"] - b["allocs_per_iter"])
               for b, h in zip(base["benchmarks"], head["benchmarks"])
               if h != b]
    assert sorted(changed) == [("BM_AllocMakeUnique", 1)] * 3 + [
        ("BM_AllocMakeUnique_mean", 1), ("BM_AllocMakeUnique_median", 1)]


def test_one_more_allocation_per_iteration_fails_the_comparison(
        run_tool, tmp_path):
    head = tmp_path / "head.json"
    head.write_text(json.dumps(
        one_more_allocation(json.loads(BASE.read_text()),
                            "BM_AllocMakeUnique")))
    done = run_tool("scripts/compare.py", BASE, head)
    assert done.returncode == 1, done.stdout + done.stderr
    regressed = [line for line in done.stdout.splitlines()
                 if "BM_AllocMakeUnique" in line and "regress" in line.lower()]
    assert regressed, done.stdout
    assert "allocs_per_iter" in done.stdout


def test_the_same_file_against_itself_passes(run_tool):
    done = run_tool("scripts/compare.py", BASE, BASE)
    assert done.returncode == 0, done.stdout + done.stderr
