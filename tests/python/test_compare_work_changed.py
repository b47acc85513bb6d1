"""Say when the work itself changed (issue 30, item 6): a case whose label
(SetLabel) or items/bytes processed per iteration differ between base and
head says so on its rows in text, markdown and JSON ("work_changed"), and
a note says its counts may differ because the input did."""

from __future__ import annotations

import json

import pytest

from pmubench.render import compare_json, compare_markdown, compare_text
from pmubench.runs import benchjson
from pmubench.verdicts import comparison as cmp
from pmubench.verdicts import work


def _run(name: str, label: str = "", items: float | None = None,
         bytes_: float | None = None, cpu_ns: float = 100.0, count: float = 1000.0,
         rep: int = 0) -> dict:
    run = {"name": name, "run_name": name, "run_type": "iteration",
           "repetitions": 3, "repetition_index": rep, "threads": 1,
           "iterations": 50, "time_unit": "ns", "real_time": cpu_ns * 1.01,
           "cpu_time": cpu_ns, "callgrind/instructions/": count}
    if label:
        run["label"] = label
    # Google Benchmark's rates: per iteration amount / CPU seconds per iteration.
    if items is not None:
        run["items_per_second"] = items / (cpu_ns * 1e-9)
    if bytes_ is not None:
        run["bytes_per_second"] = bytes_ / (cpu_ns * 1e-9)
    return run


def _load(tmp_path, name: str, runs: list[dict]) -> benchjson.BenchFile:
    path = tmp_path / name
    path.write_text(json.dumps({"context": {
        "pmubench_backend": "callgrind", "pmubench_valgrind": "valgrind-3.19.0",
        "pmubench_cache_geometry": "none"}, "benchmarks": runs}))
    return benchjson.load(str(path))


def _sides(tmp_path):
    base, head = [], []
    for rep in range(3):
        # Label "74.00%" -> "73.00%", the same bytes, times another load.
        base.append(_run("BM_Compress", "74.00%", bytes_=65536, cpu_ns=900 + rep, rep=rep))
        head.append(_run("BM_Compress", "73.00%", bytes_=65536, cpu_ns=1400 + rep,
                         count=1010, rep=rep))
        # Twice the items per iteration.
        base.append(_run("BM_Sort/1000", items=1000, cpu_ns=50 + rep, rep=rep))
        head.append(_run("BM_Sort/1000", items=2000, cpu_ns=95 + rep, count=2100, rep=rep))
        # The same work, other times: nothing to say.
        base.append(_run("BM_Same", "fast", items=16, bytes_=128, cpu_ns=10 + rep, rep=rep))
        head.append(_run("BM_Same", "fast", items=16, bytes_=128, cpu_ns=31 + 3 * rep,
                         rep=rep))
    return _load(tmp_path, "base.json", base), _load(tmp_path, "head.json", head)


def test_a_changed_label_or_amount_is_said_on_every_format(tmp_path):
    c = cmp.compare(*_sides(tmp_path))
    by_bench = {r.benchmark: r.work for r in c.rows}
    assert by_bench["BM_Same"] is None
    assert by_bench["BM_Compress"].label == ("74.00%", "73.00%")
    assert by_bench["BM_Compress"].bytes_per_iteration is None
    sort = by_bench["BM_Sort/1000"]
    assert sort.label is None and sort.items_per_iteration[0] == \
        pytest.approx(1000) and sort.items_per_iteration[1] == \
        pytest.approx(2000)

    report = json.loads(compare_json.render(c, cmp.exit_code(c)))
    for row in report["rows"]:
        if row["benchmark"] == "BM_Same":
            assert row["work_changed"] is None
        elif row["benchmark"] == "BM_Compress":
            assert row["work_changed"] == {"label": {"baseline": "74.00%",
                                                     "contender": "73.00%"}}
        else:
            assert set(row["work_changed"]) == {"items_per_iteration"}
        assert "verdict" in row and "changed_beyond_threshold" in row

    text = compare_text.render(c)
    counted = [line for line in text.splitlines() if line.startswith("BM_Compress ")]
    assert counted and all('work changed: label "74.00%" -> "73.00%"' in line
                           for line in counted)
    assert all("work changed" not in line for line in text.splitlines()
               if line.startswith("BM_Same "))
    assert "items per iteration 1000 -> 2000" in text
    assert "Note: work changed in 2 benchmark(s)" in text
    assert "may differ because the input did" in text

    markdown = compare_markdown.render(c)
    rows = [line for line in markdown.splitlines() if line.startswith("| `BM_Compress`")]
    assert rows and all('work changed: label "74.00%" -> "73.00%"' in line for line in rows)
    assert "- Note: work changed in 2 benchmark(s)" in markdown


def test_times_alone_never_read_as_changed_work(fixture_path):
    # time_noise.json: every time of base.json scaled and the rates divided
    # by the same factor (items per iteration unchanged); rerun.json: the
    # real suite run again.
    base = benchjson.load(str(fixture_path("compare", "base.json")))
    for other in ("time_noise.json", "rerun.json"):
        c = cmp.compare(base, benchjson.load(str(fixture_path("compare", other))))
        assert any("items_per_second" == r.metric for r in c.rows)
        assert all(r.work is None for r in c.rows), other
        assert not any("work changed" in n for n in c.notes)


def test_items_per_iteration_is_the_rate_times_the_time_it_was_taken_over():
    # ->UseRealTime(): Google Benchmark divides by real time, and says so
    # in the name.
    run = benchjson.Run("BM_X/real_time", "BM_X/real_time", "iteration", "", 0, 1, 1,
                        10, "us", {"real_time": 2.0, "cpu_time": 1.0,
                                   "items_per_second": 5e6})
    assert work.per_iteration([run], "items_per_second") == 10.0
    run.run_name = "BM_X"
    assert work.per_iteration([run], "items_per_second") == 5.0
    assert work.per_iteration([run], "bytes_per_second") is None
