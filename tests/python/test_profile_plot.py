"""pmubench.report.profile_plot: one bar chart per profiled case, alone
and in reports/plot.py's report."""

from __future__ import annotations

import json

import pytest

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


def test_cases_whose_names_slug_alike_get_a_png_each(tmp_path):
    prof = [{"symbol": "f()", "samples": 1, "share": 1.0}]
    runs = [{"name": n, "run_name": n, "pmubench_profile": prof}
            for n in ("BM_A/4", "BM_A_4")]
    out = tmp_path / "out"
    assert profile_plot.main([_file(tmp_path, runs), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["BM_A_4.2.png", "BM_A_4.png"]


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
    [case] = profile_plot.profiles(path)
    assert (case.run_name, case.functions, case.lines) == ("BM_A", prof, lines)
    assert case.samples == 1  # no pmubench_profile_samples: the functions' sum


@pytest.mark.parametrize("prof, lines, message", [
    ("none", [], "pmubench_profile must be a list"),
    ([{"symbol": "f", "samples": 1}], [], "with symbol, samples, share"),
    ([{"symbol": "f", "samples": "1", "share": 1.0}], [], "numbers for samples"),
    ([{"symbol": "f", "samples": 1, "share": 1.0}],
     [{"symbol": "f", "file": "a.cc", "samples": 1}], "pmubench_profile_lines"),
])
def test_malformed_profile_is_exit_2_naming_run_and_field(tmp_path, capsys, prof,
                                                          lines, message):
    path = _file(tmp_path, [{"name": "BM_A", "run_name": "BM_A",
                             "pmubench_profile": prof,
                             "pmubench_profile_lines": lines}])
    out = tmp_path / "o"
    assert profile_plot.main([path, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "'BM_A'" in err and message in err
    assert not out.exists()


def test_plot_report_has_a_bar_chart_per_profiled_case(run_tool, fixture_path,
                                                       tmp_path):
    data = json.loads(fixture_path("plot", "run_base.json").read_text())
    runs = data["benchmarks"]
    profiled = runs[0]["run_name"]
    for run in runs:  # every repetition carries the case's one profile
        if run["run_name"] == profiled:
            run["pmubench_profile"] = [
                {"symbol": "Hot()", "samples": 30, "share": 0.75},
                {"symbol": "Cold()", "samples": 10, "share": 0.25}]
            run["pmubench_profile_lines"] = [
                {"symbol": "Hot()", "file": "/src/hot.cc", "line": 12,
                 "samples": 30, "share": 0.75}]
            run["pmubench_profile_event"] = "cpu-clock@100000"
            run["pmubench_profile_samples"] = 40
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "report"
    proc = run_tool("reports/plot.py", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    charts = sorted(p.name for p in out.glob("profile.*.png"))
    assert charts == [f"profile.run.json.{profiled}.png"]
    assert (out / charts[0]).read_bytes()[:4] == b"\x89PNG"
    page = (out / "index.html").read_text()
    assert 'id="profiles"' in page and f'src="{charts[0]}"' in page
    assert "40 cpu-clock@100000 samples" in page


def test_plot_report_refuses_a_malformed_profile_and_writes_nothing(
        run_tool, fixture_path, tmp_path):
    data = json.loads(fixture_path("plot", "run_base.json").read_text())
    data["benchmarks"][0]["pmubench_profile"] = [{"symbol": "Hot()"}]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "report"
    proc = run_tool("reports/plot.py", path, "-o", out)
    assert proc.returncode == 2
    assert str(path) in proc.stderr and "pmubench_profile" in proc.stderr
    assert not out.exists()
