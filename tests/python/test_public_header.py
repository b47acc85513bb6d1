"""<pmubench/pmubench.h>: what a case file pulls in, and what is installed.

A case file should see registration, State and Google Benchmark, not the
machinery behind them: neither <linux/perf_event.h>, nor Abseil, nor
framework/perf. And `cmake --install` should install exactly the runner
headers it includes (cmake/install.cmake's PMUBENCH_PUBLIC_HEADERS), so an
installed pmubench builds a case file and carries no internals.
"""

import functools
import re
import shutil
import subprocess

import pytest

from conftest import REPO_ROOT

GXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(GXX is None, reason="needs g++ to list what "
                                "the header includes (apt-get install g++)")


@functools.cache
def included_by(header):
    """Every file `header` includes, directly or not (g++ -M), once per
    header for the whole module."""
    done = subprocess.run(
        [GXX, "-std=c++20", "-M", "-I", "include", "-I", ".", header],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    return frozenset(done.stdout.replace("\\\n", " ").split()[1:])


def test_a_case_file_does_not_pull_in_perf_event_abseil_or_the_perf_layer():
    files = included_by("include/pmubench/pmubench.h")
    assert "framework/runner/measure/state.h" in files  # the listing works
    leaks = sorted(f for f in files
                   if f.endswith("linux/perf_event.h") or "/absl/" in f
                   or f.startswith("absl/") or f.startswith("framework/perf/"))
    assert leaks == []


def test_install_lists_exactly_the_runner_headers_the_public_header_includes():
    text = (REPO_ROOT / "cmake/install.cmake").read_text()
    listed = re.search(r"set\(PMUBENCH_PUBLIC_HEADERS\s+(.*?)\)", text,
                       re.S).group(1).split()
    included = {f for f in included_by("include/pmubench/pmubench.h")
                if f.startswith("framework/runner/")}
    assert set(listed) == included | {"framework/pmubench.h"}


def test_the_old_include_still_reaches_the_same_header():
    assert "include/pmubench/pmubench.h" in included_by("framework/pmubench.h")
