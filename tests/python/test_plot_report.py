"""End-to-end tests of reports/plot.py on fixture JSONs (see README in fixtures)."""

import html
import html.parser
import json
import os
import re
import struct
import subprocess
import sys

import matplotlib.image
import pytest

from pmubench.runs import benchjson
from pmubench.verdicts import comparison
from pmubench.report import build as report
from pmubench.report import draw, model, plan_comparison
from pmubench.report import outdir as outdir_mod
from pmubench.report import series
from pmubench.report import write as report_write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOT = os.path.join(ROOT, "reports", "plot.py")
FIXTURES = os.path.join(ROOT, "tests", "python", "fixtures", "plot")
BASE = os.path.join(FIXTURES, "run_base.json")
CONTENDER = os.path.join(FIXTURES, "run_contender.json")
AGGREGATES = os.path.join(FIXTURES, "run_aggregates_only.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run_plot(*args):
    return subprocess.run([sys.executable, PLOT, *args], capture_output=True,
                          text=True, timeout=300, check=False)


def png_size(path):
    """(width, height) from the IHDR chunk; asserts the PNG signature."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_SIGNATURE, f"{path}: not a PNG"
    assert head[12:16] == b"IHDR", f"{path}: first chunk is not IHDR"
    return struct.unpack(">II", head[16:24])


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.external = [], []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value and "://" in value:
                self.external.append(value)
            if tag == "img" and name == "src":
                self.images.append(value)


def page_refs(outdir):
    parser = _Refs()
    with open(os.path.join(outdir, "index.html"), encoding="utf-8") as f:
        parser.feed(f.read())
    return parser


def check_report_dir(outdir):
    """Every PNG is valid, sized for a screen, not blank, and on the page."""
    pngs = sorted(f for f in os.listdir(outdir) if f.endswith(".png"))
    assert pngs
    for name in pngs:
        path = os.path.join(outdir, name)
        width, height = png_size(path)
        assert 600 <= width <= 1600 and 150 <= height <= 3000, (name, width, height)
        pixels = matplotlib.image.imread(path)
        assert pixels.shape[:2] == (height, width)
        assert pixels[..., :3].std() > 0.02, f"{name} looks blank"
    refs = page_refs(outdir)
    assert sorted(refs.images) == pngs  # each PNG shown once, nothing missing
    assert refs.external == []          # self-contained: no network
    return pngs


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("pair") / "report")
    result = run_plot(BASE, CONTENDER, "-o", out)
    assert result.returncode == 0, result.stderr
    return out


def expected_plots(path, paired=()):
    """The PNGs one file's sections should get, computed from the data:
    a scaling figure per family that sweeps an argument (but the families
    in `paired`, drawn in the comparison section), one bar chart per
    section of its families that sweep nothing, one spread figure per
    section with repetitions."""
    bench = benchjson.load(path)
    stem = model.slug(os.path.splitext(os.path.basename(path))[0])
    expected = set()
    for section in series.group_sections(series.instances_of(bench), bench.context):
        group = model.slug(section.source) if section.source else "no-source-file"
        points = []
        for family, members in section.families.items():
            measured = [m for m in members if m.stats]
            if not measured:
                continue
            if series.choose_x_axis(measured) is None:
                points += measured
            elif family not in paired and _drawn(measured):
                expected.add(f"{stem}.{family}.scaling.png")
        drawn = _drawn(points)
        if series.fully_counted(points) and "pmu_running_fraction" in drawn:
            drawn.remove("pmu_running_fraction")
        if drawn:
            expected.add(f"{stem}.{group}.bars.png")
        if any(len(s.values) > 1 for m in section.members for s in m.stats.values()):
            expected.add(f"{stem}.{group}.spread.png")
    return expected


def _drawn(measured):
    """Metrics that get a panel: not one value across 2 or more benchmarks,
    nor zero in a group of one."""
    drawn = []
    for m in series.ordered_metrics(measured):
        means = {i.stats[m].mean for i in measured if m in i.stats}
        if not (len(means) == 1 and (len(measured) > 1 or 0.0 in means)):
            drawn.append(m)
    return drawn


def _paired():
    return set(plan_comparison.paired_families(series.instances_of(benchjson.load(BASE)),
                                      series.instances_of(benchjson.load(CONTENDER))))


def test_every_file_gets_its_section_plots(pair):
    pngs = set(check_report_dir(pair))
    base = expected_plots(BASE)
    contender = expected_plots(CONTENDER, _paired())
    own = {p for p in pngs if not p.startswith("compare.")}
    assert own == base | contender
    # The fixture has sections of each shape; make sure the test sees them.
    assert any(p.endswith(".scaling.png") for p in base)
    assert any(p.endswith(".bars.png") for p in base)
    assert any(p.endswith(".spread.png") for p in base)


def test_page_shows_context_captions_and_values(pair):
    with open(os.path.join(pair, "index.html"), encoding="utf-8") as f:
        page = f.read()
    bench = benchjson.load(BASE)
    for key in ("host_name", "pmubench_pmus", "pmubench_notice"):
        assert html.escape(str(bench.context[key])) in page
    events = bench.context["pmubench_events"].split("; ")
    assert len(events) > 1 and all("read=read" in e for e in events)  # read method
    for event in events:
        assert html.escape(event) in page
    assert page.count("<figcaption>") == page.count("<img ")
    # Every benchmark's mean real_time (in ns) appears in the value tables.
    for inst in series.instances_of(bench):
        assert series.format_value(inst.stats["real_time"].mean) in page


def load_base():
    """A fresh parsed copy of run_base.json, to edit."""
    with open(BASE, encoding="utf-8") as f:
        return json.load(f)


def render_edited(tmp_path_factory, stem, data):
    """Writes `data` as STEM.json, renders it and returns the report dir."""
    tmp = tmp_path_factory.mktemp(stem)
    path = write(tmp / f"{stem}.json", json.dumps(data))
    out = str(tmp / "report")
    result = run_plot(path, "-o", out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    """An edited copy of run_base.json: BM_PointerChase only, its argument
    renamed as ->ArgName("bytes") writes it, plus one SkipWithError run."""
    data = load_base()
    chase = [b for b in data["benchmarks"] if b["name"].startswith("BM_PointerChase/")]
    for b in chase:
        for key in ("name", "run_name"):
            b[key] = b[key].replace("BM_PointerChase/", "BM_PointerChase/bytes:")
    chase.append({"name": "BM_PointerChase/bytes:1", "family_index": 0,
                  "per_family_instance_index": 99, "run_name": "BM_PointerChase/bytes:1",
                  "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
                  "threads": 1, "iterations": 0, "real_time": 0, "cpu_time": 0,
                  "time_unit": "ns", "error_occurred": True,
                  "error_message": "ring of 1 byte <can't> hold a node"})
    data["benchmarks"] = chase
    return render_edited(tmp_path_factory, "named_bytes", data)


def test_bytes_argument_gets_cache_markers_and_failures_are_listed(edited):
    pngs = check_report_dir(edited)
    assert "named_bytes.BM_PointerChase.scaling.png" in pngs
    with open(os.path.join(edited, "index.html"), encoding="utf-8") as f:
        page = f.read()
    assert html.escape("dashed lines: cache sizes from the run's context") in page
    assert html.escape("failed: ring of 1 byte <can't> hold a node") in page
    assert "<can't>" not in page  # escaped, not markup


@pytest.fixture(scope="module")
def grouped(tmp_path_factory):
    """An edited copy of run_base.json whose context maps families to the
    source files that registered them, as the runner's pmubench_case_files
    does. BM_SyscallGetpid is left out, as a plain
    BENCHMARK case would be; BM_Gone (not in the file) must change nothing."""
    data = load_base()
    data["context"]["pmubench_case_files"] = (
        "BM_BranchSorted=branch_prediction;BM_BranchShuffled=branch_prediction;"
        "BM_FlatHashMapLookup=mixed;BM_FirstTouch=mixed;BM_FalseSharing=mixed;"
        "BM_PointerChase=memory_hierarchy;BM_Gone=gone")
    return render_edited(tmp_path_factory, "grouped", data)


def _section_html(page, heading):
    part = page[page.index(f">{heading}</h3>"):]
    return part[:part.index("<h3") if "<h3" in part else len(part)]


def test_one_section_per_source_file_sweeps_keep_their_scaling(grouped):
    pngs = set(check_report_dir(grouped))
    # Families that sweep nothing share one bar chart per source file; each
    # family that sweeps an argument keeps its own scaling figure; a source
    # file gets one spread figure. BM_Gone (not in the file) changes nothing.
    assert pngs == {
        "grouped.branch_prediction.bars.png", "grouped.branch_prediction.spread.png",
        "grouped.BM_FlatHashMapLookup.scaling.png", "grouped.BM_FirstTouch.scaling.png",
        "grouped.BM_FalseSharing.scaling.png", "grouped.mixed.spread.png",
        "grouped.BM_PointerChase.scaling.png", "grouped.memory_hierarchy.spread.png",
        "grouped.no-source-file.bars.png", "grouped.no-source-file.spread.png"}

    with open(os.path.join(grouped, "index.html"), encoding="utf-8") as f:
        page = f.read()
    headings = re.findall(r'<h3 id="[^"]*">([^<]*)</h3>', page)
    # In the order each source file's first family appears in the run.
    assert headings == ["branch_prediction (2 families)", "mixed (3 families)",
                        "no source file (1 family)", "memory_hierarchy (1 family)"]
    # One value table per section, holding that source file's benchmarks.
    mixed = _section_html(page, "mixed (3 families)")
    assert "<td>BM_FirstTouch/256</td>" in mixed and "<td>BM_FlatHashMapLookup/16</td>" in mixed
    assert "BM_BranchSorted" not in mixed
    branch = _section_html(page, "branch_prediction (2 families)")
    assert 'src="grouped.branch_prediction.bars.png"' in branch
    assert "BM_BranchSorted, BM_BranchShuffled" in branch  # the caption names them


def test_a_bar_chart_puts_one_metric_on_an_axis(monkeypatch, tmp_path):
    """The families without a sweep share a figure, never an axis of two
    metrics: each panel is one metric, every bar of it that metric."""
    calls = []
    real = draw.bars_figure

    def spy(path, title, members, metrics):
        calls.append((members, list(metrics)))
        real(path, title, members, metrics)

    monkeypatch.setattr(draw, "bars_figure", spy)
    data = load_base()
    data["context"]["pmubench_case_files"] = "BM_BranchSorted=b;BM_BranchShuffled=b;BM_SyscallGetpid=b"
    path = write(tmp_path / "one.json", json.dumps(data))
    report_write.write_report([path], str(tmp_path / "report"))
    assert len(calls) == 1
    members, metrics = calls[0]
    assert {m.family for m in members} == {"BM_BranchSorted", "BM_BranchShuffled",
                                           "BM_SyscallGetpid"}
    assert len(metrics) == len(set(metrics)) > 1
    assert "real_time" in metrics and "items_per_second" in metrics


def test_the_contenders_sweeps_are_drawn_once_beside_the_baseline(pair):
    pngs = set(check_report_dir(pair))
    paired = _paired()
    assert paired
    for family in paired:
        assert f"compare.run_contender.json.{family}.scaling.png" in pngs
        assert f"run_contender.{family}.scaling.png" not in pngs
        assert f"run_base.{family}.scaling.png" in pngs
    with open(os.path.join(pair, "index.html"), encoding="utf-8") as f:
        page = f.read()
    run = page[page.index('<h2 id="run_contender.json">'):]
    assert "in the comparison section, drawn dashed beside run_base.json&#x27;s lines" in run


def test_nineteen_one_point_families_get_one_bar_chart_and_one_spread_a_file(tmp_path):
    """issue 23, item 6: 19 families of one benchmark each (a Google
    Benchmark user's file, no pmubench_case_files) gave 10 single-bar
    charts and 10 spread plots a file; now one of each."""
    runs = []
    for n in range(19):
        for rep in range(3):
            runs.append({"name": f"BM_F{n}", "run_name": f"BM_F{n}", "run_type": "iteration",
                         "repetitions": 3, "repetition_index": rep, "threads": 1,
                         "iterations": 100, "real_time": 10.0 * (n + 1) + rep,
                         "cpu_time": 10.0 * (n + 1) + rep, "time_unit": "ns",
                         "items_per_second": 1e8 / (n + 1) + rep})
    files = []
    for stem in ("mine", "theirs"):
        files.append(write(tmp_path / f"{stem}.json",
                           json.dumps({"context": {"pmubench_case_files": "none"},
                                       "benchmarks": runs})))
    out = str(tmp_path / "report")
    result = run_plot(*files, "-o", out)
    assert result.returncode == 0, result.stderr
    pngs = set(check_report_dir(out))
    assert {p for p in pngs if not p.startswith("compare.")} == {
        "mine.no-source-file.bars.png", "mine.no-source-file.spread.png",
        "theirs.no-source-file.bars.png", "theirs.no-source-file.spread.png"}
    assert {p for p in pngs if p.startswith("compare.")} == {
        "compare.real_time.png", "compare.cpu_time.png", "compare.items_per_second.png"}
    page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    assert page.count(">no source file (19 families)</h3>") == 2


def test_two_files_add_one_comparison_plot_per_shared_metric(pair):
    pngs = check_report_dir(pair)
    c = comparison.compare(benchjson.load(BASE), benchjson.load(CONTENDER))
    shared = [m for m in c.metrics if series.changes(c, m)]
    assert {f"compare.{model.slug(m)}.png" for m in shared} == {
        p for p in pngs if p.startswith("compare.") and not p.endswith(".scaling.png")}
    assert "compare.real_time.png" in pngs


def test_aggregates_only_file_renders(tmp_path):
    out = str(tmp_path / "agg")
    result = run_plot(AGGREGATES, "-o", out)
    assert result.returncode == 0, result.stderr
    pngs = check_report_dir(out)
    assert expected_plots(AGGREGATES) == set(pngs)  # one file: no comparison
    assert any(p.endswith(".scaling.png") for p in pngs)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)


@pytest.mark.parametrize("content,message", [
    (None, "no such file"),
    ("", "is empty"),
    ("{\"benchmarks\": [", "not valid JSON"),
    ("{\"foo\": 1}", "not Google Benchmark JSON"),
    ("{\"benchmarks\": []}", "holds no benchmark runs"),
    ("{\"benchmarks\": [{\"name\": \"BM_E\", \"run_type\": \"iteration\", "
     "\"error_occurred\": true, \"error_message\": \"boom\"}]}", "every run failed"),
])
def test_bad_input_exits_2_naming_the_file_and_writes_nothing(tmp_path, content, message):
    bad = str(tmp_path / "bad.json")
    if content is not None:
        write(bad, content)
    out = tmp_path / "out"
    result = run_plot(BASE, bad, "-o", str(out))
    assert result.returncode == 2
    assert "bad.json" in result.stderr and message in result.stderr
    assert not out.exists()
    assert os.listdir(tmp_path) == (["bad.json"] if content is not None else [])


def test_usage_errors_exit_2(tmp_path):
    assert run_plot(BASE).returncode == 2                   # no -o
    assert run_plot("-o", str(tmp_path / "o")).returncode == 2  # no file


def test_refuses_to_replace_a_directory_that_is_not_a_report(tmp_path):
    precious = tmp_path / "home"
    precious.mkdir()
    write(precious / "notes.txt", "keep me")
    result = run_plot(BASE, "-o", str(precious))
    assert result.returncode == 2 and "not an earlier pmubench report" in result.stderr
    assert os.listdir(precious) == ["notes.txt"]
    afile = write(tmp_path / "file", "x")
    assert run_plot(BASE, "-o", afile).returncode == 2


def test_rerun_replaces_earlier_report_without_stale_files(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    with open(AGGREGATES, encoding="utf-8") as f:
        other = write(inputs / "other.json", f.read())
    out = tmp_path / "report"
    first = run_plot(other, AGGREGATES, "-o", str(out))
    assert first.returncode == 0, first.stderr
    assert any(p.startswith("compare.") for p in os.listdir(out))
    assert any(p.startswith("other.") for p in os.listdir(out))
    second = run_plot(AGGREGATES, "-o", str(out))
    assert second.returncode == 0, second.stderr
    pngs = check_report_dir(str(out))
    assert not [p for p in pngs if p.startswith("compare.") or p.startswith("other.")]
    assert expected_plots(AGGREGATES) <= set(pngs)
    assert sorted(os.listdir(tmp_path)) == ["in", "report"]  # no staging left


def test_failure_while_rendering_keeps_the_earlier_report(tmp_path, monkeypatch):
    out = tmp_path / "report"
    report_write.write_report([AGGREGATES], str(out))
    before = sorted(os.listdir(out))

    def explode(benches, staging, progress=None, names=None, folded=None):
        with open(os.path.join(staging, "half.png"), "wb") as f:
            f.write(PNG_SIGNATURE)
        raise RuntimeError("disk full")

    monkeypatch.setattr(report, "build_report", explode)
    with pytest.raises(RuntimeError):
        report_write.write_report([AGGREGATES], str(out))
    assert sorted(os.listdir(out)) == before
    assert sorted(os.listdir(tmp_path)) == ["report"]
    assert os.path.exists(os.path.join(out, outdir_mod.MARKER))


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_publish_replaces_whole_directory(tmp_path, monkeypatch, exchange):
    out = tmp_path / "report"
    out.mkdir()
    write(out / outdir_mod.MARKER, "")
    write(out / "stale.png", "old")
    staging = outdir_mod.stage(str(out))
    write(os.path.join(staging, "new.png"), "new")
    if not exchange:
        monkeypatch.setattr(outdir_mod, "_exchange", lambda a, b: False)
    outdir_mod.publish(staging, str(out))
    assert sorted(os.listdir(out)) == sorted([outdir_mod.MARKER, "new.png"])
    assert os.listdir(tmp_path) == ["report"]


MANY_RUNS = os.path.join(FIXTURES, "many_runs.py")


def test_a_long_sweep_is_split_into_screen_sized_figures(tmp_path):
    # 120 benchmarks of one family (1,080 runs): one figure per kind drew a
    # row per benchmark, 3,300 px high per panel row, and an artist per
    # benchmark (quadratic autoscaling); now parts of model.MAX_ROWS rows.
    path = str(tmp_path / "sweep.json")
    subprocess.run([sys.executable, MANY_RUNS, "1080", path, "sweep"], check=True)
    out = str(tmp_path / "report")
    result = run_plot(path, "-o", out)
    assert result.returncode == 0, result.stderr
    pngs = check_report_dir(out)
    spread = [p for p in pngs if ".spread" in p]
    assert len(spread) == 3, pngs   # 120 benchmarks: 1-40, 41-80, 81-120
    page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    assert "benchmarks 81-120 of 120" in page
    # Not a terminal: the progress is plain lines on stderr.
    assert result.stderr.startswith("plot.py: 0 s: loading " + path)


def test_many_lines_are_split_across_scaling_figures(tmp_path):
    runs = [{"name": f"BM_L/{size}/{k}", "run_name": f"BM_L/{size}/{k}",
             "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
             "threads": 1, "iterations": 10, "real_time": size * (k + 1.0),
             "cpu_time": size * (k + 1.0), "time_unit": "ns"}
            # x: the argument with the most values (20 sizes); a line per k.
            for k in range(model.MAX_LINES + 1) for size in range(64, 64 * 21, 64)]
    path = write(tmp_path / "lines.json", json.dumps({"context": {}, "benchmarks": runs}))
    out = str(tmp_path / "report")
    result = run_plot(path, "-o", out)
    assert result.returncode == 0, result.stderr
    scaling = sorted(p for p in check_report_dir(out) if ".scaling" in p)
    assert len(scaling) == 2, scaling
    page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    assert f"lines 13-13 of {model.MAX_LINES + 1}" in page


def test_parts():
    assert model.parts([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert model.parts([], 2) == [[]]


def test_constant_panels_are_dropped_and_named_in_the_caption(tmp_path_factory):
    """A counter with one value in every benchmark of a family gets no panel
    in its scaling figure; the figure's caption says so, with the value."""
    data = load_base()
    for run in data["benchmarks"]:
        if run["name"].startswith("BM_PointerChase/"):
            run["flat_counter"] = 7.0
    out = render_edited(tmp_path_factory, "flat", data)
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        page = f.read()
    figure = page[page.index('src="flat.BM_PointerChase.scaling.png"'):]
    caption = figure[:figure.index("</figure>")]
    assert "Not drawn, the same for every benchmark (see the table): " in caption
    assert "flat_counter = 7" in caption
    section = _section_html(page, "no source file (7 families)")
    assert "<th>flat_counter" in section  # still in the value table


def test_the_comparison_section_shows_compare_py_verdicts(pair):
    """The HTML carries compare.py's own result line and its table of
    regressions and improvements, with the one confidence label."""
    c = comparison.compare(benchjson.load(BASE), benchjson.load(CONTENDER))
    with open(os.path.join(pair, "index.html"), encoding="utf-8") as f:
        page = f.read()
    from pmubench.render import compare_text as render_text
    assert html.escape(render_text.result_line(c)) in page
    changed = [r for r in c.rows if r.verdict in (comparison.REGRESSION,
                                                  comparison.IMPROVEMENT)]
    assert changed, "the fixture pair should have verdicts to show"
    for r in changed:
        assert f"<td>{html.escape(r.benchmark)}</td><td>{html.escape(r.metric)}</td>" in page
    assert "<th>95% CI</th>" in page
    assert "97%" not in page


def test_base_and_contender_share_a_scaling_plot_per_family(pair):
    """Each family that sweeps an argument in both files gets one scaling
    figure with both files' lines, listed in the comparison section."""
    pngs = set(check_report_dir(pair))
    base = series.instances_of(benchjson.load(BASE))
    swept = [family for family, members in series.group_families(base).items()
             if series.choose_x_axis([m for m in members if m.stats])]
    assert swept, "the fixture should have a family with a sweep"
    contender = model.slug(os.path.basename(CONTENDER))
    for family in swept:
        assert f"compare.{contender}.{family}.scaling.png" in pngs, family
    with open(os.path.join(pair, "index.html"), encoding="utf-8") as f:
        page = f.read()
    comparison_part = page[page.index('id="comparison"'):page.index("<h2", page.index('id="comparison"'))]
    assert f"{os.path.basename(BASE)} solid, {os.path.basename(CONTENDER)} dashed" in comparison_part
