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
