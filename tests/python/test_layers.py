"""The pmubench package's layers: imports run only down, in no circle
(scripts/dev/check_layers.py), and the exit codes are defined once."""

import re
import shutil
import subprocess

from conftest import REPO_ROOT
from dev.check_layers import (check, circles, import_graph, layer_offences,
                              ladder_offences, read_layers)

LAYERS = [("base", []), ("runs", ["base"]), ("verdicts", ["runs"])]


def test_this_package_imports_only_down_its_layers():
    assert check(REPO_ROOT) == []


def test_the_layers_are_read_from_the_package():
    layers = dict(read_layers(
        (REPO_ROOT / "scripts/pmubench/__init__.py").read_text()))
    assert layers["base"] == [] and layers["runs"] == ["base"]
    assert "history" in layers


def test_an_upward_import_is_named():
    files = {"runs/benchjson.py": "from pmubench.verdicts import stats\n",
             "verdicts/stats.py": "from pmubench.base import atomic\n",
             "base/atomic.py": ""}
    [offence] = layer_offences(files, LAYERS)
    assert offence == ("pmubench.runs.benchjson imports pmubench.verdicts.stats: "
                       "layer runs may import only base, runs")


def test_an_import_inside_a_function_counts():
    files = {"base/atomic.py": "def f():\n    import pmubench.runs.benchjson\n",
             "runs/benchjson.py": ""}
    [offence] = layer_offences(files, LAYERS)
    assert offence.startswith("pmubench.base.atomic imports pmubench.runs.benchjson")


def test_a_circle_is_named():
    files = {"verdicts/comparison.py": "from pmubench.verdicts import gates\n",
             "verdicts/gates.py":
                 "def f():\n    from pmubench.verdicts.comparison import Row\n",
             "verdicts/stats.py": ""}
    assert layer_offences(files, LAYERS) == []
    assert circles(import_graph(files)) == [
        "pmubench.verdicts.comparison -> pmubench.verdicts.gates -> "
        "pmubench.verdicts.comparison"]


def test_a_module_outside_a_layer_is_named():
    [offence] = layer_offences({"loose.py": "", "__init__.py": ""}, LAYERS)
    assert offence.startswith("scripts/pmubench/loose.py: not in a layer")


def test_a_layer_listed_before_what_it_imports_is_named():
    [offence] = ladder_offences([("runs", ["base"]), ("base", [])])
    assert offence.startswith("layer runs may import base, which is not a layer "
                              "listed before it")


def test_the_command_fails_on_a_planted_upward_import_and_circle(tmp_path):
    shutil.copytree(REPO_ROOT / "scripts" / "pmubench", tmp_path / "scripts" / "pmubench")
    tool = [
        "/usr/bin/python3", str(REPO_ROOT / "scripts/dev/check_layers.py"),
        "--root", str(tmp_path)]
    assert subprocess.run(tool, capture_output=True).returncode == 0
    benchjson = tmp_path / "scripts/pmubench/runs/benchjson.py"
    benchjson.write_text(benchjson.read_text()
                         + "\nfrom pmubench.verdicts import stats  # noqa\n")
    gates = tmp_path / "scripts/pmubench/verdicts/gates.py"
    gates.write_text(gates.read_text() + "\nfrom pmubench.verdicts import comparison  # noqa\n")
    proc = subprocess.run(tool, capture_output=True, text=True)
    assert proc.returncode == 1
    assert ("pmubench.runs.benchjson imports pmubench.verdicts.stats: layer runs "
            "may import only base, runs") in proc.stderr
    assert ("import circle: pmubench.verdicts.comparison -> "
            "pmubench.verdicts.gates -> pmubench.verdicts.comparison") in proc.stderr


EXIT_DEFINITION = re.compile(r"^\s*EXIT_\w+\s*=\s*\d", re.M)


def test_exit_codes_are_defined_once():
    sources = [p for p in (REPO_ROOT / "scripts").rglob("*.py")
               if "pmuvm" not in p.parts]
    sources += [REPO_ROOT / "reports/plot.py", REPO_ROOT / "scripts/convert",
                REPO_ROOT / "scripts/test"]
    defining = sorted(str(p.relative_to(REPO_ROOT)) for p in sources
                      if EXIT_DEFINITION.search(p.read_text()))
    assert defining == ["scripts/pmubench/base/exits.py"]
