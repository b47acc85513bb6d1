"""Unit tests of scripts/pmubench/report/series.py (pure functions behind reports/plot.py)."""

import json
import os
import statistics

import pytest

from pmubench.runs import benchjson
from pmubench.report import series

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FIXTURES = os.path.join(ROOT, "tests", "python", "fixtures", "plot")
BASE = os.path.join(FIXTURES, "run_base.json")
AGGREGATES = os.path.join(FIXTURES, "run_aggregates_only.json")


def _instances(path):
    return series.instances_of(benchjson.load(path))


def test_instance_key_is_compare_match_key():
    inst = _inst("BM_X/8/repeats:5/threads:2", real_time=1.0)
    assert inst.key == "BM_X/8/threads:2"
    assert inst.short_name == "8/threads:2"


def test_instances_summarise_iteration_runs_as_in_the_file():
    with open(BASE, encoding="utf-8") as f:
        raw = json.load(f)["benchmarks"]
    by_name = {}
    for run in raw:
        if run["run_type"] == "iteration" and not run.get("error_occurred"):
            by_name.setdefault(run["run_name"], []).append(run)
    insts = {i.run_name: i for i in _instances(BASE)}
    assert set(by_name) <= set(insts)
    for name, runs in by_name.items():
        stat = insts[name].stats["real_time"]
        values = [r["real_time"] * benchjson.TIME_UNITS_NS[r["time_unit"]] for r in runs]
        assert stat.n == len(runs)
        assert stat.mean == pytest.approx(statistics.fmean(values))
        if len(values) > 1:
            assert stat.stddev == pytest.approx(statistics.stdev(values))


def test_failed_benchmark_has_error_and_no_stats():
    bench = benchjson.parse({"benchmarks": [
        {"name": "BM_Ok", "run_name": "BM_Ok", "run_type": "iteration",
         "time_unit": "ns", "real_time": 5.0, "cpu_time": 5.0, "iterations": 10},
        {"name": "BM_E", "run_name": "BM_E", "run_type": "iteration",
         "error_occurred": True, "error_message": "boom"}]}, "mixed.json")
    ok, failed = series.instances_of(bench)
    assert ok.stats["real_time"].mean == 5.0 and not ok.error
    assert failed.error == "boom" and not failed.stats
    series.require_measurements(bench, [ok, failed])  # one success is enough


def test_aggregates_only_file_uses_mean_and_stddev_in_ns():
    bench = benchjson.load(AGGREGATES)
    assert all(r.run_type == "aggregate" for r in bench.runs)
    mean_run = next(r for r in bench.runs if r.aggregate_name == "mean")
    sd_run = next(r for r in bench.runs if r.aggregate_name == "stddev"
                  and r.run_name == mean_run.run_name)
    median_run = next(r for r in bench.runs if r.aggregate_name == "median"
                      and r.run_name == mean_run.run_name)
    inst = next(i for i in series.instances_of(bench) if i.run_name == mean_run.run_name)
    assert mean_run.time_unit == "us"
    assert inst.stats["real_time"].median == pytest.approx(
        median_run.metrics["real_time"] * 1e3)
    assert inst.stats["real_time"].mean == pytest.approx(mean_run.metrics["real_time"] * 1e3)
    assert inst.stats["real_time"].stddev == pytest.approx(sd_run.metrics["real_time"] * 1e3)
    assert inst.stats["real_time"].n == mean_run.repetitions


def test_require_measurements_rejects_a_file_where_everything_failed():
    bench = benchjson.parse({"benchmarks": [{
        "name": "BM_E", "run_name": "BM_E", "run_type": "iteration",
        "error_occurred": True, "error_message": "boom"}]}, "all_failed.json")
    with pytest.raises(benchjson.BadInput, match="all_failed.json.*boom"):
        series.require_measurements(bench, series.instances_of(bench))


def _inst(name, threads=1, label="", **means):
    stats = {m: series.Stat(v, 0.0, 1) for m, v in means.items()}
    return series.Instance(name, benchjson.family_of(name), benchjson.args_of(name),
                           threads, label=label, stats=stats)


def test_choose_x_axis_picks_the_argument_with_most_values():
    members = [_inst(f"BM_T/n:{n}/sorted:{s}", real_time=1.0)
               for n in (256, 4096, 65536) for s in (0, 1)]
    axis = series.choose_x_axis(members)
    assert (axis.position, axis.name, axis.is_bytes) == (0, "n", False)
    assert axis.line_key(members[1]) == "sorted:1"


def test_choose_x_axis_threads_and_bytes_and_none():
    threads = [_inst("BM_S/threads:1", 1, real_time=1.0),
               _inst("BM_S/threads:2", 2, real_time=2.0)]
    axis = series.choose_x_axis(threads)
    assert axis.name == "threads" and axis.value(threads[1]) == 2.0
    sized = [_inst(f"BM_C/bytes:{b}", real_time=1.0) for b in (4096, 65536)]
    assert series.choose_x_axis(sized).is_bytes
    unnamed = [_inst(f"BM_C/{b}", real_time=1.0) for b in (4096, 65536)]
    assert not series.choose_x_axis(unnamed).is_bytes
    assert series.choose_x_axis([_inst("BM_G", real_time=1.0)]) is None
    words = [_inst("BM_W/abc", real_time=1.0), _inst("BM_W/def", real_time=1.0)]
    assert series.choose_x_axis(words) is None


def test_line_groups_append_a_label_that_tells_lines_apart():
    members = [_inst(f"BM_T/n:{n}/sorted:{s}", label="sorted" if s else "shuffled",
                     real_time=1.0) for n in (1, 2) for s in (0, 1)]
    lines = series.line_groups(members, series.choose_x_axis(members))
    assert sorted(lines) == ["sorted:0 [shuffled]", "sorted:1 [sorted]"]
    assert all(len(group) == 2 for group in lines.values())


def test_one_section_per_source_file_in_file_order():
    insts = [_inst("BM_A/1", real_time=1.0), _inst("BM_Plain", real_time=1.0),
             _inst("BM_D", real_time=1.0), _inst("BM_B/n:2", real_time=1.0),
             _inst("BM_A/2", real_time=1.0), _inst("BM_Other", real_time=1.0)]
    context = {"pmubench_case_files": "BM_A=branch;BM_B=branch;BM_D=ilp"}
    sections = series.group_sections(insts, context)
    # A section per source file where its first family appears; the
    # families the key does not name share one section.
    assert [(s.source, list(s.families)) for s in sections] == [
        ("branch", ["BM_A", "BM_B"]), ("", ["BM_Plain", "BM_Other"]), ("ilp", ["BM_D"])]
    assert [s.title for s in sections] == [
        "branch (2 families)", "no source file (2 families)", "ilp (1 family)"]
    assert [i.run_name for i in sections[0].members] == ["BM_A/1", "BM_A/2", "BM_B/n:2"]
    # Without the key (older files, plain Google Benchmark): one section.
    [only] = series.group_sections(insts, {})
    assert only.title == "no source file (5 families)"
    assert list(only.families) == ["BM_A", "BM_Plain", "BM_D", "BM_B", "BM_Other"]


def test_spans_decades_and_format_bytes():
    assert series.spans_decades([4096, 256 << 20])
    assert not series.spans_decades([1, 2, 50])
    assert not series.spans_decades([0, 1000])
    assert series.format_bytes(4096) == "4 KiB"
    assert series.format_bytes(110100480) == "105 MiB"
    assert series.format_bytes(1536) == "1.5 KiB"
    assert series.format_bytes(100) == "100 B"


def test_cache_markers_skip_instruction_caches():
    ctx = {"caches": [
        {"type": "Data", "level": 1, "size": 49152, "num_sharing": 1},
        {"type": "Instruction", "level": 1, "size": 32768, "num_sharing": 1},
        {"type": "Unified", "level": 2, "size": 2097152, "num_sharing": 1}]}
    assert series.cache_markers(ctx) == [(49152.0, "L1d 48 KiB"), (2097152.0, "L2 2 MiB")]
    assert series.cache_markers({}) == []


def test_time_scale_and_si_scale():
    assert series.time_scale([150.0, 200.0]) == ("ns", 1.0)
    assert series.time_scale([2500.0, 45000.0, 90000.0]) == ("us", 1e3)
    assert series.si_scale([1.5e9, 1.4e9]) == ("G", 1e9)
    assert series.si_scale([0.5]) == ("", 1.0)


def test_changes_are_compare_py_rows_with_their_verdicts():
    from pmubench.verdicts import comparison

    def bench(path, values, instructions):
        runs = [{"name": name, "run_name": name, "run_type": "iteration",
                 "repetitions": len(vals), "repetition_index": i, "threads": 1,
                 "iterations": 10, "real_time": v, "cpu_time": v, "time_unit": "ns",
                 "instructions": instructions[name]}
                for name, vals in values.items() for i, v in enumerate(vals)]
        return benchjson.parse({"context": {}, "benchmarks": runs}, path)

    base = bench("b", {"BM_A/repeats:3": [100, 102, 98, 101, 99], "BM_Z": [5] * 5},
                 {"BM_A/repeats:3": 1000.0, "BM_Z": 0.0})
    head = bench("h", {"BM_A/repeats:5": [110, 111, 109, 112, 108], "BM_Z": [6] * 5},
                 {"BM_A/repeats:5": 1200.0, "BM_Z": 5.0})
    c = comparison.compare(base, head)
    by_key = {ch.key: ch for ch in series.changes(c, "instructions")}
    # Matched across repeat counts; BM_Z's change from 0 is infinite: no point.
    assert list(by_key) == ["BM_A"]
    row = next(r for r in c.rows if r.metric == "instructions")
    assert by_key["BM_A"].percent == pytest.approx(20.0)
    assert by_key["BM_A"].verdict == row.verdict == comparison.REGRESSION
    time = {ch.key: ch for ch in series.changes(c, "real_time")}["BM_A"]
    time_row = next(r for r in c.rows if r.metric == "real_time" and r.benchmark == "BM_A")
    assert (time.low, time.high, time.level) == pytest.approx(
        (time_row.interval.low * 100, time_row.interval.high * 100,
         time_row.interval.level))
    assert time.verdict == time_row.verdict


def test_aggregates_only_stat_uses_the_median_aggregate():
    stat = series.Stat(10.0, 1.0, 5, median_aggregate=9.0)
    assert stat.median == 9.0
    assert series.Stat(10.0, 1.0, 5).median == 10.0


def test_metric_kind_and_unit():
    assert series.metric_kind("cpu_time") == "time"
    assert series.metric_kind("IPC") == "derived"
    assert series.metric_kind("L1-dcache-load-miss-ratio") == "derived"
    assert series.metric_kind("msr/tsc/") == "counter"
    assert series.metric_unit("task-clock") == "ns per iteration"
    assert series.metric_unit("page-faults") == "events per iteration"
    assert series.metric_unit("IPC") == "instructions per cycle"
    assert series.metric_unit("msr/tsc/") == "TSC cycles per iteration"
    assert series.metric_unit("cycles:u") == "cycles per iteration"
    assert series.metric_kind("allocs_per_iter") == "counter"
    assert series.metric_unit("allocs_per_iter") == "allocations per iteration"
    assert series.metric_unit("max_bytes_used") == "peak live heap bytes"


@pytest.mark.parametrize("name,expected", [
    ("bytes", True), ("working_set_bytes", True), ("Bytes", True),
    ("", False), ("n", False), ("pages", False)])
def test_is_bytes_argument(name, expected):
    assert series.is_bytes_argument(name) is expected
