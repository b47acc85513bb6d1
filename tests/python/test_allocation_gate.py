"""compare.py gates heap allocations as exact counts (issue 41, item 3):
one allocation more per iteration is a regression, and a file against
itself passes; where the rows carry allocation sites (item 4), the new site
is named and sites whose lines only moved are not.

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


def _with_sites(run_file: dict, name: str, sites: list[dict]) -> dict:
    """`run_file` with `sites` as the allocation sites of each iteration run
    of benchmark `name` (as --pmubench_profile writes them)."""
    edited = json.loads(json.dumps(run_file))
    for run in edited["benchmarks"]:
        if run["run_name"] == name and run.get("run_type") == "iteration":
            run["pmubench_profile_alloc_sites_per_iteration"] = sites
    return edited


def _site(symbol, line, allocs, size, above=None):
    site = {"symbol": symbol, "file": "/src/cases.cc", "line": line,
            "allocs": allocs, "bytes": size}
    if above:
        site["above"] = {"symbol": above, "file": "/src/cases.cc", "line": 99}
    return site


def test_sites_that_only_moved_are_not_named_the_new_one_is(run_tool, tmp_path):
    """The head's sites sit 3 lines lower (code moved above them) and one is
    new: compare names only the new one."""
    name = "BM_AllocMakeUnique"
    base = _with_sites(json.loads(BASE.read_text()), name, [
        _site("Make()", 10, 1, 4),
        _site("std::vector<>::_M_realloc_insert<>()", 400, 3, 28, "Grow()")])
    head = _with_sites(one_more_allocation(base, name), name, [
        _site("Make()", 13, 1, 4),
        _site("std::vector<>::_M_realloc_insert<>()", 400, 3, 28, "Grow()"),
        _site("Copy()", 20, 1, 17)])
    paths = [tmp_path / "base.json", tmp_path / "head.json"]
    for path, content in zip(paths, (base, head)):
        path.write_text(json.dumps(content))
    done = run_tool("scripts/compare.py", *paths, "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    by_row = {(a["benchmark"], a["metric"]): a for a in report["alloc_sites"]}
    sites = by_row[(name, "allocs_per_iter")]["sites"]
    assert [(s["name"], s["status"], s["delta"]) for s in sites] == [
        ("src/cases.cc:20 Copy()", "added", 1.0)]
    assert sites[0]["bytes_delta"] == 17
    assert (name, "alloc_bytes_per_iter") not in by_row, "its sites are the count's"
    markdown = run_tool("scripts/compare.py", *paths, "--format", "markdown").stdout
    assert "| src/cases.cc:20 Copy() (added) | - | 1 | +1 | +17 |" in markdown


def test_a_side_without_sites_is_said(run_tool, tmp_path):
    name = "BM_AllocMakeUnique"
    base = json.loads(BASE.read_text())
    head = _with_sites(one_more_allocation(base, name), name, [_site("Copy()", 20, 1, 17)])
    path = tmp_path / "head.json"
    path.write_text(json.dumps(head))
    done = run_tool("scripts/compare.py", BASE, path, "--format", "json")
    notes = json.loads(done.stdout)["alloc_site_notes"]
    assert any(n.startswith(f"{name} allocs_per_iter: {BASE} has no allocation sites")
               for n in notes), notes
