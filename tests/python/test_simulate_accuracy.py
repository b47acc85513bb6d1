"""The x86-64 (and arm64) accuracy kernels of benches/accuracy.cc, counted by
the callgrind backend: each reads exactly its expected_instructions per
iteration. No machine here has an x86 PMU; this is their exact check.

CTest's simulate_accuracy runs this file with the suite binary's path in
PMUBENCH_BENCHES_ALL; without it (a Python-only run) it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

_BINARY = os.environ.get("PMUBENCH_BENCHES_ALL", "")

pytestmark = [
    pytest.mark.skipif(not _BINARY, reason="needs the C++ build's benches/all "
                                           "(CTest's simulate_accuracy sets its path)"),
    pytest.mark.skipif(shutil.which("valgrind") is None,
                       reason="needs valgrind (apt-get install valgrind)"),
]


def test_accuracy_kernels_read_their_expected_instructions(tmp_path):
    out = tmp_path / "accuracy.json"
    subprocess.run([_BINARY, "--pmubench_simulate", "--benchmark_filter=BM_Accuracy",
                    f"--benchmark_out={out}", "--benchmark_out_format=json"],
                   check=True, capture_output=True, timeout=300)
    runs = [b for b in json.loads(out.read_text())["benchmarks"]
            if b.get("run_type") == "iteration"]
    assert {b["name"] for b in runs} == {
        "BM_AccuracyEmptyLoop", "BM_AccuracyNops", "BM_AccuracyTakenJumps",
        "BM_AccuracyDependentAdds"}
    for b in runs:
        assert b["callgrind/instructions/"] == b["expected_instructions"], b["name"]


def test_a_simulated_profile_says_instructions_never_samples(tmp_path):
    # Issue 30, item 7: under callgrind each counted unit is an instruction.
    out = tmp_path / "profile.json"
    proc = subprocess.run(
        [_BINARY, "--pmubench_simulate", "--pmubench_profile=instructions",
         "--benchmark_filter=BM_AccuracyNops$", f"--benchmark_out={out}",
         "--benchmark_out_format=json"],
        check=True, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    console = proc.stdout + proc.stderr
    profile = [line for line in console.splitlines() if "profile" in line
               or "hottest line" in line]
    assert any("instructions of the measured segment, each counted" in line
               for line in profile), console
    hottest = [line for line in console.splitlines() if "(hottest line " in line]
    assert hottest, "the CMake recipe builds with -g1: profiles have source lines"
    for line in hottest:
        assert line.rstrip().endswith(("instructions)", "instruction)")), line
    assert not any("sample" in line for line in profile + hottest), console
    # --pmubench_simulate leaves no callgrind.out.* where it ran.
    assert not list(tmp_path.glob("callgrind.out*"))
