"""End-to-end tests of scripts/compare.py: the real script in a subprocess of
/usr/bin/python3, on fixture files from the suite binary and edited copies
(tests/python/fixtures/compare/README.md says which is which)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

COMPARE = "scripts/compare.py"


@pytest.fixture
def fx(fixture_path):
    return lambda name: str(fixture_path("compare", name))


@pytest.fixture
def compare(run_tool):
    return lambda *args: run_tool(COMPARE, *args)


def _json_report(proc):
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


def test_instructions_regression_fails(compare, fx):
    proc = compare(fx("instr_base.json"), fx("instr_regression.json"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Result: FAIL" in proc.stdout
    report = _json_report(compare(fx("instr_base.json"), fx("instr_regression.json"),
                                  "--format", "json"))
    assert report["exit_code"] == 1 and report["result"] == "fail"
    regressions = [r for r in report["rows"] if r["verdict"] == "regression"]
    # Only instructions regressed (times carry noise under their threshold).
    assert {r["metric"] for r in regressions} == {"instructions"}
    assert len(regressions) == 2
    for r in regressions:
        assert r["change_pct"] == pytest.approx(5.0)
        assert r["mode"] == "u-test" and r["p_value"] < 0.05
        assert r["ci"]["low"] == pytest.approx(0.05) == r["ci"]["high"]
        assert r["threshold_pct"] == 1.0


def test_a_looser_threshold_lets_the_same_change_pass(compare, fx):
    proc = compare(fx("instr_base.json"), fx("instr_regression.json"),
                   "--threshold", "instructions=10")
    assert proc.returncode == 0, proc.stdout
    assert "instructions (lower is better; threshold 10% (--threshold instructions=10))" \
        in proc.stdout


def test_noise_in_time_alone_does_not_fail(compare, fx):
    proc = compare(fx("base.json"), fx("time_noise.json"), "--format", "json")
    assert proc.returncode == 0, proc.stdout
    report = _json_report(proc)
    assert report["counts"]["regression"] == 0
    times = [r for r in report["rows"] if r["metric"] in ("real_time", "cpu_time")]
    assert times and all(r["change"] != 0 for r in times)


def test_a_large_time_regression_fails(compare, fx):
    report = _json_report(compare(fx("base.json"), fx("time_regression.json"),
                                  "--format", "json"))
    assert report["exit_code"] == 1
    regressed = {(r["benchmark"], r["metric"]) for r in report["rows"]
                 if r["verdict"] == "regression"}
    # make_edited.py slowed the first benchmark by 50%; wall time on a
    # loaded machine may be too noisy for the test, CPU time is not.
    first = report["rows"][0]["benchmark"]
    assert (first, "cpu_time") in regressed
    assert {b for b, _ in regressed} == {first}
    # The same files gated without times pass.
    proc = compare(fx("base.json"), fx("time_regression.json"), "--threshold", "time=off")
    assert proc.returncode == 0, proc.stdout


def test_improvement_passes(compare, fx):
    proc = compare(fx("instr_base.json"), fx("instr_improvement.json"), "--format", "json")
    assert proc.returncode == 0
    report = _json_report(proc)
    improved = [r for r in report["rows"] if r["verdict"] == "improvement"
                and r["metric"] == "instructions"]
    assert len(improved) == 1 and improved[0]["change_pct"] == pytest.approx(-5.0)
    assert report["counts"]["regression"] == 0


def test_missing_and_extra_benchmarks_are_listed(compare, fx):
    proc = compare(fx("base.json"), fx("missing_extra.json"))
    assert proc.returncode == 0, proc.stdout
    assert re.search(r"^Only in baseline \(1\): \S+", proc.stdout, re.M)
    assert re.search(r"^Only in contender \(\d+\): BM_AddedInContender", proc.stdout, re.M)
    assert "Metric only in baseline: page-faults (1 benchmark" in proc.stdout
    report = _json_report(compare(fx("base.json"), fx("missing_extra.json"),
                                  "--format", "json"))
    assert len(report["only_in_baseline"]) == 1
    assert all(n.startswith("BM_AddedInContender") for n in report["only_in_contender"])
    assert list(report["metrics_only_in_baseline"]) == ["page-faults"]
    # --strict turns a benchmark missing from the contender into a failure.
    assert compare(fx("base.json"), fx("missing_extra.json"), "--strict").returncode == 1


def test_a_benchmark_failed_in_the_contender_is_listed(compare, fx):
    proc = compare(fx("base.json"), fx("failed_in_contender.json"))
    assert proc.returncode == 0, proc.stdout
    line = next(ln for ln in proc.stdout.splitlines()
                if ln.startswith("Failed in contender: "))
    assert line.endswith(": mmap of the working set failed")
    failed_name = line.split(": ")[1]
    assert not any(ln.startswith(failed_name + " ") for ln in proc.stdout.splitlines())
    assert compare(fx("base.json"), fx("failed_in_contender.json"), "--strict").returncode == 1


def test_aggregates_only_files_use_the_median_against_the_threshold(compare, fx):
    proc = compare(fx("aggregates_base.json"), fx("aggregates_regression.json"),
                   "--format", "json")
    report = _json_report(proc)
    assert all(r["mode"] == "threshold only" for r in report["rows"])
    assert all(r["baseline"]["source"] == "median aggregate" for r in report["rows"])
    assert all(r["p_value"] is None and r["ci"] is None for r in report["rows"])
    faults = [r for r in report["rows"]
              if r["metric"] == "page-faults" and r["verdict"] == "regression"]
    assert len(faults) == 1 and faults[0]["change_pct"] == pytest.approx(20.0)
    assert proc.returncode == 1
    # The same aggregates-only file against itself: nothing changes.
    same = compare(fx("aggregates_base.json"), fx("aggregates_base.json"))
    assert same.returncode == 0 and "(threshold only)" in same.stdout


def test_repetitions_against_aggregates_only(compare, fx):
    report = _json_report(compare(fx("base.json"), fx("aggregates_base.json"),
                                  "--format", "json"))
    assert report["rows"]
    assert {r["mode"] for r in report["rows"]} == {"threshold only"}
    assert {r["contender"]["source"] for r in report["rows"]} == {"median aggregate"}


def test_single_runs_compare_by_threshold(compare, fx):
    report = _json_report(compare(fx("single_base.json"), fx("single_base.json"),
                                  "--format", "json"))
    assert report["exit_code"] == 0
    assert {r["baseline"]["source"] for r in report["rows"]} == {"single run"}
    assert all(r["change"] == 0 for r in report["rows"])


def test_identical_files_pass_with_no_change(compare, fx):
    report = _json_report(compare(fx("base.json"), fx("base.json"), "--format", "json"))
    assert report["exit_code"] == 0
    assert report["counts"]["regression"] == report["counts"]["improvement"] == 0
    assert report["counts"]["no significant change"] > 0


@pytest.mark.parametrize("contender, problem", [
    ("empty.json", "is empty"),
    ("not_json.json", "not valid JSON"),
    ("not_gbench.json", "not Google Benchmark JSON"),
    ("no_benchmarks.json", "holds no benchmark runs"),
    ("nan.json", "is nan"),
    ("no_common.json", "no benchmark in common"),
])
def test_bad_contender_exits_2_naming_the_file(compare, fx, contender, problem):
    proc = compare(fx("base.json"), fx(contender))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert contender in proc.stderr and problem in proc.stderr


def test_missing_file_exits_2(compare, fx, tmp_path):
    missing = tmp_path / "nope.json"
    proc = compare(str(missing), fx("base.json"))
    assert proc.returncode == 2
    assert f"{missing}: no such file" in proc.stderr


def test_mismatched_units_name_both_files(compare, fx):
    proc = compare(fx("base.json"), fx("units_mismatch.json"))
    assert proc.returncode == 2
    assert "base.json" in proc.stderr and "units_mismatch.json" in proc.stderr
    assert "in ns in" in proc.stderr and "in us in" in proc.stderr


@pytest.mark.parametrize("args, problem", [
    ([], "the following arguments are required"),
    (["--threshold", "instructions"], "expected METRIC=PCT"),
    (["--threshold", "instructions=lots"], "is not a number"),
    (["--format", "html"], "invalid choice"),
    (["--alpha", "2"], "--alpha 2.0: must be between 0 and 1"),
])
def test_usage_errors_exit_2(compare, fx, args, problem):
    files = [] if not args else [fx("base.json"), fx("rerun.json")]
    proc = compare(*files, *args)
    assert proc.returncode == 2
    assert problem in proc.stderr


def test_metrics_filter_that_matches_nothing_exits_2(compare, fx):
    proc = compare(fx("base.json"), fx("rerun.json"), "--metrics", "no-such-metric")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--metrics no-such-metric: no metric of " in proc.stderr
    assert "base.json or " in proc.stderr and "rerun.json" in proc.stderr


def test_text_format_is_aligned_tables(compare, fx):
    proc = compare(fx("instr_base.json"), fx("instr_regression.json"))
    blocks = proc.stdout.split("\n\n")
    tables = [b.splitlines() for b in blocks if "\nBenchmark " in "\n" + b]
    assert len(tables) >= 3
    for lines in tables:
        header = lines[1]
        # The right-aligned Change column ends at the same offset on every
        # row, the geomean row included.
        change_end = header.index("Change") + len("Change")
        for line in lines[2:]:
            assert line[change_end - 1] != " ", (header, line)
            assert line[change_end:change_end + 1] in ("", " "), (header, line)
            assert re.fullmatch(r"[+-](\d+\.\d\d|\d+|inf)%|n/a",
                                line[:change_end].split()[-1]), line
    assert "\033[" not in proc.stdout   # no colour when not a terminal
    colored = compare(fx("instr_base.json"), fx("instr_regression.json"), "--color=always")
    assert "\033[31m" in colored.stdout


def test_markdown_format(compare, fx):
    proc = compare(fx("instr_base.json"), fx("instr_regression.json"), "--format", "markdown")
    assert proc.returncode == 1
    text = proc.stdout
    assert text.startswith("### pmubench comparison: :x: 2 regression(s)")
    assert "| Benchmark | Metric | Baseline | Contender | Change | CI | p | Verdict |" in text
    assert text.count("**regression**") >= 2
    assert "<details><summary>All " in text and "</details>" in text
    assert "| Metric | Geomean change | Benchmarks | Threshold |" in text
    # Every table row has as many cells as its header.
    for line in text.splitlines():
        if line.startswith("| `"):
            assert len(re.split(r"(?<!\\)\|", line)) == 10, line


def test_json_is_strict_json(compare, fx):
    proc = compare(fx("base.json"), fx("missing_extra.json"), "--format", "json")
    # No NaN/Infinity tokens: any JSON parser must read it.
    json.loads(proc.stdout, parse_constant=lambda c: pytest.fail(f"non-strict {c}"))
    report = json.loads(proc.stdout)
    assert report["schema"] == "pmubench-compare/1"
    row = report["rows"][0]
    for key in ("benchmark", "metric", "baseline", "contender", "change", "p_value",
                "ci", "mode", "threshold_pct", "verdict", "higher_is_better"):
        assert key in row


def test_output_file_is_written_whole(compare, fx, tmp_path):
    out = tmp_path / "report.md"
    out.write_text("old report")
    proc = compare(fx("instr_base.json"), fx("instr_regression.json"),
                   "--format", "markdown", "--output", str(out))
    assert proc.returncode == 1 and proc.stdout == ""
    stdout = compare(fx("instr_base.json"), fx("instr_regression.json"),
                     "--format", "markdown").stdout
    assert out.read_text() == stdout
    assert os.listdir(tmp_path) == ["report.md"]   # no temp file left behind
    bad = compare(fx("base.json"), fx("rerun.json"), "--output",
                  str(tmp_path / "no" / "dir" / "r.txt"))
    assert bad.returncode == 2 and "cannot write" in bad.stderr


def test_help_documents_defaults(compare):
    proc = compare("--help")
    assert proc.returncode == 0
    for text in ("deterministic", "1%", "10%", "not gated", "Mann-Whitney",
                 "threshold only", "exit status"):
        assert text in proc.stdout



def test_without_scipy_it_says_what_to_install(repo_root):
    # -S leaves out site-packages (numpy, scipy): what a bare interpreter sees.
    proc = subprocess.run(["/usr/bin/python3", "-S", str(repo_root / COMPARE), "a", "b"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "install python3-scipy" in proc.stderr and "Traceback" not in proc.stderr


def test_progress_shows_on_a_terminal_only(fx, repo_root):
    import pty
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            ["/usr/bin/python3", str(repo_root / COMPARE), fx("base.json"), fx("rerun.json")],
            stdout=subprocess.PIPE, stderr=slave, timeout=120)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:   # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0
    text = seen.decode()
    assert "compare.py: reading " in text and "compare.py: testing rows: " in text
    assert text.endswith("\r\033[K")       # the line is cleared at the end
    assert b"compare.py:" not in proc.stdout
    piped = subprocess.run(["/usr/bin/python3", str(repo_root / COMPARE),
                            fx("base.json"), fx("rerun.json")],
                           capture_output=True, text=True, timeout=120)
    assert piped.stderr == ""
