"""Google Benchmark JSON from ->Complexity() (BigO and RMS aggregates) is
valid input to compare.py and plot.py: the fits are checked and left out."""

from __future__ import annotations

import json
import shutil
import subprocess

import matplotlib.image
import pytest

from pmubench.runs import benchjson
from pmubench.report import draw as render
from pmubench.report import series


def test_fits_are_checked_and_left_out(fixture_path):
    bench = benchjson.load(str(fixture_path("complexity", "base.json")))
    assert bench.complexity_fits == 4        # BigO + RMS for each of 2 families
    assert not [r for r in bench.runs if r.aggregate_name in ("BigO", "RMS")]
    assert {r.run_name for r in bench.runs} >= {"BM_Sum/64", "BM_Sum/4096"}


def test_a_malformed_fit_is_bad_input(tmp_path, fixture_path):
    doc = json.loads(fixture_path("complexity", "base.json").read_text())
    fit = next(b for b in doc["benchmarks"] if b.get("aggregate_name") == "BigO")
    fit["cpu_coefficient"] = "fast"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(benchjson.BadInput, match="cpu_coefficient"):
        benchjson.load(str(path))


def test_compare_accepts_it_and_notes_the_fits(run_tool, fixture_path):
    base = fixture_path("complexity", "base.json")
    # The files count no instructions and have too few repetitions for the
    # test of times: inconclusive (exit 4) unless allowed; the fits are
    # what this checks.
    proc = run_tool("scripts/compare.py", base, fixture_path("complexity", "contender.json"),
                    "--format", "json", "--allow-inconclusive")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert {r["benchmark"] for r in report["rows"]} >= {"BM_Sum/64", "BM_SumRep/1024"}
    assert not [r for r in report["rows"] if r["benchmark"] in ("BM_Sum", "BM_SumRep")]
    assert any("complexity fit" in n and str(base) in n for n in report["notes"])


def test_plot_accepts_it(run_tool, fixture_path, tmp_path):
    proc = run_tool("reports/plot.py", fixture_path("complexity", "base.json"),
                    fixture_path("complexity", "contender.json"), "-o", tmp_path / "r")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r" / "index.html").exists()


def test_comparison_figure_draws_an_interval_beside_its_point(tmp_path):
    # With 3 vs 3 repetitions the change of the medians can lie outside the
    # Hodges-Lehmann interval; the plot drew it with errorbar, which refuses
    # negative lengths (the complexity fixtures hit this).
    path = str(tmp_path / "c.png")
    change = series.Change(key="BM_X/8", percent=12.0, low=2.0, high=9.0)
    render.comparison_figure(path, "real_time", "real_time",
                             [("contender", [change])], higher_is_better=False)
    assert matplotlib.image.imread(path).shape[0] > 100


def _fit_fields(doc):
    return sorted((b["aggregate_name"], sorted(b)) for b in doc["benchmarks"]
                  if b.get("aggregate_name") in ("BigO", "RMS"))


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_fixture_matches_what_google_benchmark_writes(tmp_path, fixture_path):
    binary = tmp_path / "complexity"
    build = subprocess.run(["g++", "-O2", str(fixture_path("complexity", "complexity.cc")),
                            "-o", str(binary), "-lbenchmark", "-lpthread"],
                           capture_output=True, text=True)
    if build.returncode != 0:
        pytest.skip(f"cannot build against Google Benchmark: {build.stderr[:200]}")
    out = tmp_path / "run.json"
    subprocess.run([str(binary), "--benchmark_min_time=0.001",
                    f"--benchmark_out={out}", "--benchmark_out_format=json"],
                   check=True, capture_output=True, timeout=120)
    fixture = json.loads(fixture_path("complexity", "base.json").read_text())
    assert _fit_fields(json.loads(out.read_text())) == _fit_fields(fixture)


def test_a_file_of_fits_alone_has_no_runs(tmp_path, fixture_path, run_tool):
    doc = json.loads(fixture_path("complexity", "base.json").read_text())
    doc["benchmarks"] = [b for b in doc["benchmarks"]
                         if b.get("aggregate_name") in ("BigO", "RMS")]
    path = tmp_path / "fits.json"
    path.write_text(json.dumps(doc))
    for tool in (("scripts/compare.py", path, path),
                 ("reports/plot.py", path, "-o", tmp_path / "r")):
        proc = run_tool(*tool)
        assert proc.returncode == 2, proc.stderr
        assert f"{path}: holds only complexity fits" in proc.stderr
