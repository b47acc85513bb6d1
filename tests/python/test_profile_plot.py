"""pmubench.report.profile_plot: one bar chart per profiled case."""

from __future__ import annotations

import json

from pmubench.report import profile_plot


def _file(tmp_path, runs):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"benchmarks": runs}))
    return str(path)


def test_one_png_per_profiled_case_first_repetition_only(tmp_path):
    prof = [{"symbol": "TouchPages(char*)", "samples": 256, "share": 1.0}]
    runs = [
        {"name": "BM_A/4", "run_name": "BM_A/4", "pmubench_profile": prof,
         "pmubench_profile_event": "page-faults@1"},
        {"name": "BM_A/4", "run_name": "BM_A/4", "pmubench_profile": prof},
        {"name": "BM_A/4_mean", "run_name": "BM_A/4"},
        {"name": "BM_B", "run_name": "BM_B"},  # not profiled
    ]
    out = tmp_path / "out"
    assert profile_plot.main([_file(tmp_path, runs), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["BM_A_4.png"]
    assert (out / "BM_A_4.png").read_bytes()[:4] == b"\x89PNG"


def test_file_without_profile_is_exit_2(tmp_path, capsys):
    path = _file(tmp_path, [{"name": "BM_B", "run_name": "BM_B"}])
    assert profile_plot.main([path, "-o", str(tmp_path / "o")]) == 2
    assert "--pmubench_profile" in capsys.readouterr().err
