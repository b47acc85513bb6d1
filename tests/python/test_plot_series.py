"""Unit tests of scripts/pmubench/report/series.py (pure functions behind reports/plot.py)."""

import json
import os
import statistics

import pytest

from pmubench import benchjson
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


def test_case_files_parses_the_runner_key_and_ignores_junk():
    context = {"pmubench_case_files":
               "BM_A=branch;BM_B=branch;bad;=x;BM_C=;BM_D=ilp;BM_A=other"}
    assert series.case_files(context) == {"BM_A": "branch", "BM_B": "branch",
                                          "BM_D": "ilp"}
    assert series.case_files({"pmubench_case_files": "none"}) == {}
    assert series.case_files({}) == {}


def test_group_sections_by_source_file_in_file_order():
    insts = [_inst("BM_A/1", real_time=1.0), _inst("BM_Plain", real_time=1.0),
             _inst("BM_D", real_time=1.0), _inst("BM_B/n:2", real_time=1.0),
             _inst("BM_A/2", real_time=1.0)]
    context = {"pmubench_case_files": "BM_A=branch;BM_B=branch;BM_D=ilp"}
    sections = series.group_sections(insts, context)
    assert [(s.name, s.families, s.grouped) for s in sections] == [
        ("branch", ["BM_A", "BM_B"], True), ("BM_Plain", ["BM_Plain"], False),
        ("ilp", ["BM_D"], True)]
    assert [i.run_name for i in sections[0].members] == ["BM_A/1", "BM_A/2", "BM_B/n:2"]
    # Without the key (older files): one section per family, as before.
    assert [(s.name, s.grouped) for s in series.group_sections(insts, {})] == [
        ("BM_A", False), ("BM_Plain", False), ("BM_D", False), ("BM_B", False)]


def test_family_axes_merge_families_sweeping_the_same_argument():
    members = ([_inst(f"BM_Dep/{n}", real_time=1.0) for n in (1, 8)]
               + [_inst(f"BM_Ind/{n}", real_time=1.0) for n in (1, 8, 64)]
               + [_inst("BM_Free", real_time=1.0)]
               + [_inst(f"BM_T/threads:{t}", t, real_time=1.0) for t in (1, 2)])
    axes = series.family_axes(members)
    assert [(a.name, sorted({i.family for i in m})) for a, m in axes] == [
        ("argument 1", ["BM_Dep", "BM_Ind"]), ("threads", ["BM_T"])]
    lines = series.line_groups(axes[0][1], axes[0][0], with_family=True)
    assert sorted(lines) == ["BM_Dep", "BM_Ind"]
    sweep = [_inst(f"BM_T/n:{n}/sorted:{s}", real_time=1.0)
             for n in (1, 2) for s in (0, 1)]
    assert sorted(series.line_groups(sweep, series.choose_x_axis(sweep), True)) == [
        "BM_T/sorted:0", "BM_T/sorted:1"]


@pytest.mark.parametrize("name,expected", [
    ("bytes", True), ("working_set_bytes", True), ("Bytes", True),
    ("", False), ("n", False), ("pages", False)])
def test_is_bytes_argument(name, expected):
    assert series.is_bytes_argument(name) is expected


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


def test_change_is_compare_py_median_change_and_interval():
    from pmubench.compare import stats as pm_stats
    base_values = [100.0, 102.0, 98.0, 101.0, 99.0]
    other_values = [110.0, 111.0, 109.0, 112.0, 108.0]
    base = series.Stat(statistics.fmean(base_values), statistics.stdev(base_values), 5,
                       tuple(base_values))
    other = series.Stat(statistics.fmean(other_values), statistics.stdev(other_values), 5,
                        tuple(other_values))
    c = series.change("BM", base, other)
    assert c.percent == pytest.approx(10.0)  # medians 100 -> 110
    interval = pm_stats.ratio_interval(base_values, other_values, 0.05)
    assert (c.low, c.high, c.level) == pytest.approx(
        (interval.low * 100, interval.high * 100, interval.level))
    assert 0 < c.low < 10.0 < c.high
    same = series.change("BM", base, base)
    assert same.low < 0 < same.high


def test_change_without_repetitions_or_with_zero_baseline():
    c = series.change("BM", series.Stat(10.0, 0.0, 1), series.Stat(5.0, 0.0, 1))
    assert c.percent == pytest.approx(-50.0) and c.low is None and c.high is None
    zero = series.Stat(0.0, 0.0, 3, (0.0, 0.0, 0.0))
    assert series.change("BM", zero, series.Stat(5.0, 1.0, 3, (4.0, 5.0, 6.0))) is None


def test_aggregates_only_stat_uses_the_median_aggregate():
    stat = series.Stat(10.0, 1.0, 5, median_aggregate=9.0)
    assert stat.median == 9.0
    assert series.Stat(10.0, 1.0, 5).median == 10.0


def test_changes_match_benchmarks_across_repeat_counts():
    base = [_inst("BM_A/1/repeats:3", real_time=10.0), _inst("BM_B", real_time=4.0)]
    other = [_inst("BM_A/1/repeats:5", real_time=12.0)]
    chs = series.changes(base, other, "real_time")
    assert [(c.key, round(c.percent, 6)) for c in chs] == [("BM_A/1", 20.0)]


def test_metric_kind_and_unit():
    assert series.metric_kind("cpu_time") == "time"
    assert series.metric_kind("IPC") == "derived"
    assert series.metric_kind("L1-dcache-load-miss-ratio") == "derived"
    assert series.metric_kind("msr/tsc/") == "counter"
    assert series.metric_unit("task-clock") == "ns per iteration"
    assert series.metric_unit("page-faults") == "events per iteration"
    assert series.metric_unit("IPC") == "instructions per cycle"
    assert series.metric_unit("msr/tsc/") == "TSC ticks per iteration"
    assert series.metric_unit("cycles:u") == "cycles per iteration"
