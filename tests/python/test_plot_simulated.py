"""A report of the callgrind backend's files says its counts are simulated
(issue 21: a simulated count is never mistaken for a hardware one)."""

from __future__ import annotations

import re
import subprocess

from conftest import PYTHON, REPO_ROOT
from pmubench.report import series


def test_simulated_metrics_are_labelled_so():
    assert series.metric_unit("callgrind/instructions/") == \
        "simulated events per iteration"
    assert series.metric_unit("instructions") == "events per iteration"
    assert series.backend_note({"pmubench_backend": "perf_event"}) is None
    assert series.backend_note({}) is None
    note = series.backend_note({"pmubench_backend": "callgrind",
                                "pmubench_valgrind": "valgrind-3.19.0",
                                "pmubench_cache_geometry": "I1=32768,8,64"})
    assert "valgrind-3.19.0" in note and "I1=32768,8,64" in note


def test_the_page_says_simulated_for_each_file_and_the_comparison(
        tmp_path, fixture_path):
    out = tmp_path / "report"
    proc = subprocess.run(
        [PYTHON, str(REPO_ROOT / "reports" / "plot.py"),
         str(fixture_path("compare", "callgrind_base.json")),
         str(fixture_path("compare", "callgrind_regression.json")), "-o", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count("Simulated counts: every callgrind/ metric") == 2
    # compare.py's own description of the backend, in the comparison.
    assert re.search(r'class="warning">WARNING: [^<]*callgrind', page)
    # The gate on simulated instruction counts, as compare.py says it
    # (issue 30, item 4).
    assert "Simulated instruction-class counts fail beyond 0.5% (the default)" in page
    # The table headers carry the unit.
    assert "simulated events per iteration" in page


def test_a_hardware_run_says_nothing_of_simulation(tmp_path, fixture_path):
    out = tmp_path / "report"
    proc = subprocess.run(
        [PYTHON, str(REPO_ROOT / "reports" / "plot.py"),
         str(fixture_path("compare", "instr_base.json")), "-o", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "imulated" not in (out / "index.html").read_text(encoding="utf-8")
