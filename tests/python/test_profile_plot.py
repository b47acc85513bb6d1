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


def test_bar_label_names_the_functions_hottest_line():
    funcs = [{"symbol": "Hot()", "samples": 9, "share": 0.9},
             {"symbol": "Cold()", "samples": 1, "share": 0.1},
             {"symbol": "x" * 80, "samples": 0, "share": 0.0}]
    lines = [  # most samples first, as the JSON lists them
        {"symbol": "Hot()", "file": "/src/hot.cc", "line": 12, "samples": 6},
        {"symbol": "Hot()", "file": "/src/hot.cc", "line": 13, "samples": 3},
    ]
    assert profile_plot.bar_labels(funcs, lines) == [
        "Hot()  (hot.cc:12)", "Cold()", "x" * 60]


def test_lines_reach_the_plot(tmp_path):
    prof = [{"symbol": "Hot()", "samples": 1, "share": 1.0}]
    lines = [{"symbol": "Hot()", "file": "/src/hot.cc", "line": 12,
              "samples": 1, "share": 1.0}]
    path = _file(tmp_path, [{"name": "BM_A", "run_name": "BM_A",
                             "pmubench_profile": prof,
                             "pmubench_profile_lines": lines}])
    [(name, _, funcs, got)] = profile_plot.profiles(path)
    assert (name, funcs, got) == ("BM_A", prof, lines)
