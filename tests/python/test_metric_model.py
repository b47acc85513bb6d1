"""The one metric model (pmubench.verdicts.metrics): what each metric field
is, and that no module of the verdict path (verdicts/, history/, compare.py,
history.py, ci_compare.sh) names a metric class or a default threshold of
its own."""

from __future__ import annotations

import ast
import json
import re
import subprocess

import pytest

from conftest import PYTHON, REPO_ROOT
from pmubench.runs import benchjson
from pmubench.verdicts import metrics, thresholds

SCRIPTS = REPO_ROOT / "scripts"
# Google Benchmark's own fields, which the readers name to parse a run.
GOOGLE_BENCHMARK_FIELDS = {"real_time", "cpu_time", "items_per_second", "bytes_per_second"}


@pytest.mark.parametrize("metric, backend, layout, kind, pct", [
    ("instructions:u", "native", False, metrics.EXACT, 1.0),
    ("L1-dcache-loads", "native", False, metrics.EXACT, 1.0),
    ("page-faults", "native", False, metrics.EXACT, 1.0),
    ("callgrind/instructions/", "callgrind", False, metrics.EXACT, 0.5),
    ("callgrind/LLC-load-misses/", "callgrind", False, metrics.EXACT, 5.0),
    ("allocs_per_iter", "native", False, metrics.EXACT, 0.0),
    ("max_bytes_used", "callgrind", False, metrics.EXACT, 0.0),
    ("instructions", "native", True, metrics.NOISY, 1.0),
    ("callgrind/instructions/", "callgrind", True, metrics.NOISY, 0.5),
    ("cycles", "native", False, metrics.NOISY, 5.0),
    ("task-clock", "native", False, metrics.TIME, 10.0),
    ("real_time", "native", False, metrics.TIME, 10.0),
    ("cpu_time", "callgrind", False, metrics.SIMULATOR_TIME, None),
    ("IPC:u", "native", False, metrics.DERIVED, 5.0),
    ("context-switches", "native", False, metrics.INFO, None),
])
def test_each_metric_has_one_kind_and_default(metric, backend, layout, kind, pct):
    model = metrics.describe(metric, backend, layout)
    assert (model.kind, model.default_pct) == (kind, pct)
    assert thresholds.resolve(metric, [], backend, layout).pct == pct
    assert thresholds.resolve(metric, [], backend, layout).deterministic == (kind == metrics.EXACT)
    assert model.words


def test_one_more_allocation_per_iteration_is_a_regression(tmp_path):
    runs = {}
    for side, allocs in (("base", 3.0), ("head", 4.0)):
        runs[side] = tmp_path / f"{side}.json"
        runs[side].write_text(json.dumps({"context": {}, "benchmarks": [
            {"name": "BM_Alloc", "run_type": "iteration", "iterations": 100,
             "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns",
             "allocs_per_iter": allocs, "alloc_bytes_per_iter": 64 * allocs,
             "frees_per_iter": allocs, "max_bytes_used": 4096.0}]}))
    done = subprocess.run([PYTHON, str(SCRIPTS / "compare.py"), str(runs["base"]),
                           str(runs["head"]), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = {r["metric"]: r["verdict"] for r in json.loads(done.stdout)["rows"]}
    assert verdicts["allocs_per_iter"] == verdicts["frees_per_iter"] == "regression"
    assert verdicts["max_bytes_used"] == "no significant change"


def test_the_layout_flag_is_read_as_true_or_a_count_and_refused_otherwise():
    run = {"name": "BM_X", "run_type": "iteration", "iterations": 1, "real_time": 1.0,
           "cpu_time": 1.0, "time_unit": "ns", "instructions": 5.0,
           metrics.LAYOUT_FLAG: True}
    parsed = benchjson.parse_run(run, "f.json", 0)
    assert metrics.LAYOUT_FLAG not in parsed.metrics
    assert metrics.is_layout_sensitive(parsed.raw)
    # --pmubench_layout_check writes a counter: how many threads saw it.
    counted = benchjson.parse_run({**run, metrics.LAYOUT_FLAG: 1.0}, "f.json", 0)
    assert metrics.LAYOUT_FLAG not in counted.metrics
    assert metrics.is_layout_sensitive(counted.raw)
    for unmarked in (False, 0, 0.0):
        assert not metrics.is_layout_sensitive({metrics.LAYOUT_FLAG: unmarked})
    for bad in ("yes", -1.0, float("nan")):
        with pytest.raises(benchjson.BadInput, match="pmubench_layout_sensitive"):
            benchjson.parse_run({**run, metrics.LAYOUT_FLAG: bad}, "f.json", 0)


def _verdict_path_modules():
    yield from sorted((SCRIPTS / "pmubench" / "verdicts").glob("*.py"))
    yield from sorted((SCRIPTS / "pmubench" / "history").glob("*.py"))
    yield SCRIPTS / "compare.py"
    yield SCRIPTS / "history.py"


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def model_offences(path, source: str) -> list[str]:
    """Where a module names a metric pattern of the model, compares with a
    class name, or sets a threshold percentage of its own."""
    patterns = {p for c in metrics.CLASSES for p in c.patterns} - GOOGLE_BENCHMARK_FIELDS
    patterns |= set(metrics.DECLARED_PATTERNS) - {"*"}
    classes = set(metrics.CLASS_BY_NAME)
    tree = ast.parse(source)
    docs = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docs and node.value in patterns - {"*"}):
            out.append(f"{path.name}:{node.lineno}: names metric {node.value!r}")
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = [s.value for s in sides if isinstance(s, ast.Constant) and s.value in classes]
            attrs = [s for s in sides if isinstance(s, ast.Attribute)
                     and s.attr in ("name", "metric_class")]
            if named and attrs:
                out.append(f"{path.name}:{node.lineno}: compares with class {named[0]!r}")
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, float):
            for target in node.targets:
                if isinstance(target, ast.Name) and re.search(r"PCT|THRESHOLD", target.id):
                    out.append(f"{path.name}:{node.lineno}: sets {target.id}")
    return sorted(out)


def test_no_module_of_the_verdict_path_names_a_class_or_threshold():
    offences = []
    for path in _verdict_path_modules():
        if path.name == "metrics.py":
            continue
        offences += model_offences(path, path.read_text(encoding="utf-8"))
    assert offences == []


def test_the_check_finds_a_copied_rule():
    copied = ('EXACT_PCT = 0.5\nEXACT = frozenset({"instructions", "branches"})\n'
              'def f(c):\n    return c.metric_class == "deterministic"\n')
    found = sorted(model_offences(SCRIPTS / "copy.py", copied))
    assert found == ["copy.py:1: sets EXACT_PCT", "copy.py:2: names metric 'branches'",
                     "copy.py:2: names metric 'instructions'",
                     "copy.py:4: compares with class 'deterministic'"]


def test_ci_compare_states_no_threshold_of_its_own():
    text = (SCRIPTS / "ci_compare.sh").read_text(encoding="utf-8")
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"--threshold[ =][\w/*:-]+=\d", code)
    assert "verdicts/metrics.py" in text


def test_the_words_say_why():
    assert "layout" in metrics.describe("callgrind/instructions/", "callgrind", True).words
    assert "bit-identical" in metrics.describe("callgrind/instructions/", "callgrind").words
    assert "never judged" in metrics.describe("real_time", "callgrind").words
