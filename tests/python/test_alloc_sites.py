"""Where a changed allocation count comes from, end to end (issue 41).

tests/runner/alloc_site_cases.cc built twice: a base, and a head whose
BM_Sites calls CopyOnce() each iteration (one malloc of 17 bytes at a new
call site). Each runs under --pmubench_simulate --pmubench_profile, and
compare names the new site; the base also runs natively with a sampling
profile, whose sites count the same (natively without the frame above a
standard-library caller: docs/allocations.md). CTest runs this file with the two
binaries' paths in PMUBENCH_ALLOC_SITES_BASE and PMUBENCH_ALLOC_SITES_HEAD;
without them (a Python-only run) it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from conftest import PYTHON, REPO_ROOT

_BASE = os.environ.get("PMUBENCH_ALLOC_SITES_BASE", "")
_HEAD = os.environ.get("PMUBENCH_ALLOC_SITES_HEAD", "")
SITES = "pmubench_profile_alloc_sites_per_iteration"

pytestmark = [
    pytest.mark.skipif(not (_BASE and _HEAD),
                       reason="needs the C++ build's allocation site cases "
                              "(CTest's alloc_sites sets their paths)"),
    pytest.mark.skipif(shutil.which("valgrind") is None,
                       reason="needs valgrind (apt-get install valgrind)"),
]


def _run(binary, out, *flags):
    subprocess.run([binary, *flags, f"--benchmark_out={out}",
                    "--benchmark_out_format=json"],
                   check=True, capture_output=True, timeout=600, cwd=out.parent)
    runs = json.loads(out.read_text())["benchmarks"]
    return {r["name"]: r for r in runs if r.get("run_type") == "iteration"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{"base": path, "head": path} of each binary's simulated JSON."""
    out = tmp_path_factory.mktemp("alloc_sites")
    files = {}
    for side, binary in (("base", _BASE), ("head", _HEAD)):
        files[side] = out / f"{side}.json"
        _run(binary, files[side], "--pmubench_simulate",
             "--pmubench_profile=instructions")
    return files


def _line_of(code):
    """The line of tests/runner/alloc_site_cases.cc that holds code."""
    source = (REPO_ROOT / "tests/runner/alloc_site_cases.cc").read_text()
    [line] = [n for n, text in enumerate(source.splitlines(), 1) if code in text]
    return line


def _by_function(sites):
    return {s["symbol"]: s for s in sites}


def test_each_site_is_counted_exactly_with_the_frame_above_a_std_one(runs):
    rows = json.loads(runs["base"].read_text())["benchmarks"]
    sites = _by_function([r for r in rows if r["name"] == "BM_Sites"][0][SITES])
    assert len(sites) == 3, sites
    make_one = sites["MakeOne()"]
    assert (make_one["allocs"], make_one["bytes"]) == (1, 4)
    assert make_one["file"].endswith("alloc_site_cases.cc") and "above" not in make_one
    # libstdc++'s growth inlined into Grow(): Grow()'s own line that
    # called the inlined push_back, not the header's (new_allocator.h).
    grow = sites["Grow()"]
    assert (grow["allocs"], grow["bytes"]) == (3, 28) and "above" not in grow
    assert grow["file"].endswith("alloc_site_cases.cc"), grow
    assert grow["line"] == _line_of("v.push_back(i);"), grow
    # Out of line in the standard library: the function above is named.
    strings = [s for s in sites.values() if "_M_realloc_insert" in s["symbol"]][0]
    assert strings["symbol"].startswith("std::vector")
    assert (strings["allocs"], strings["bytes"]) == (1, 32)
    assert strings["above"]["symbol"] == "GrowStrings()"
    assert strings["above"]["file"].endswith("alloc_site_cases.cc")
    assert strings["above"]["line"] == _line_of("v.push_back(kShort);")


def test_native_sites_equal_the_simulated_ones(runs, tmp_path):
    """Each case's profiling pass counts its own batch: no site carries
    over from the case profiled before it."""
    native = _run(_BASE, tmp_path / "native.json", "--counters=task-clock",
                  "--pmubench_profile=cpu-clock")
    simulated = {r["name"]: r for r in json.loads(runs["base"].read_text())["benchmarks"]
                 if r.get("run_type") == "iteration"}
    for name in ("BM_Sites", "BM_SitesSteady"):
        def counts(run):
            return sorted((s["symbol"], s["allocs"], s["bytes"]) for s in run[SITES])
        assert counts(native[name]) == counts(simulated[name]), name


def test_compare_names_the_new_call_site(repo_root, runs):
    proc = subprocess.run([PYTHON, str(repo_root / "scripts" / "compare.py"),
                           str(runs["base"]), str(runs["head"]), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    regressed = {(r["benchmark"], r["metric"]) for r in report["rows"]
                 if r["verdict"] == "regression"}
    assert ("BM_Sites", "allocs_per_iter") in regressed
    by_row = {(a["benchmark"], a["metric"]): a for a in report["alloc_sites"]}
    assert not any(b == "BM_SitesSteady" for b, _ in by_row)
    allocs = by_row[("BM_Sites", "allocs_per_iter")]
    assert allocs["row_delta"] == 1
    assert len(allocs["sites"]) == 1, allocs
    site = allocs["sites"][0]
    assert site["status"] == "added" and site["name"].endswith(" CopyOnce()")
    assert "alloc_site_cases.cc:" in site["name"]
    assert (site["delta"], site["bytes_delta"]) == (1, 17)
    text = subprocess.run([PYTHON, str(repo_root / "scripts" / "compare.py"),
                           str(runs["base"]), str(runs["head"])],
                          capture_output=True, text=True, timeout=120).stdout
    assert "BM_Sites allocs_per_iter: +1 per iteration (+17 bytes), at " in text
    assert "CopyOnce() (added)" in text


def test_the_same_file_against_itself_names_no_site(repo_root, runs):
    proc = subprocess.run([PYTHON, str(repo_root / "scripts" / "compare.py"),
                           str(runs["base"]), str(runs["base"]), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["alloc_sites"] == []


def test_a_profiled_row_counts_what_an_unprofiled_one_does(runs, tmp_path):
    """Sites are recorded in a segment the row's counts do not come from:
    callgrind counts a few tens of instructions of each recording, which
    were in every allocating row's count when sites were recorded in the
    row's own segments."""
    plain = _run(_BASE, tmp_path / "plain.json", "--pmubench_simulate")
    profiled = {r["name"]: r for r in json.loads(runs["base"].read_text())["benchmarks"]
                if r.get("run_type") == "iteration"}
    assert plain.keys() == profiled.keys()
    fields = ("callgrind/instructions/", "allocs_per_iter", "alloc_bytes_per_iter",
              "frees_per_iter", "max_bytes_used")
    assert plain["BM_Sites"]["allocs_per_iter"] > 0
    for name, row in plain.items():
        assert ({f: row[f] for f in fields}
                == {f: profiled[name][f] for f in fields}), name
