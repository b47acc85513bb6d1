"""One launch rule for every entry point (pmubench.base.launch.ensure) and
one behaviour under a `python3` without numpy (issue 23, item 9; issue 32,
item 1): reports/plot.py, scripts/merge.py, scripts/compare.py and
`python3 -m pmubench.report.profile_plot`, run by a user whose
`python3` on PATH is a pyenv interpreter (here: a venv made from one,
--without-pip, so it has nothing but the standard library), do what they do
under Debian's /usr/bin/python3; where that cannot help, each says what to
install and exits 2 before writing anything, never a traceback."""

from __future__ import annotations

import ast
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES_DIR, REPO_ROOT

DEBIAN = "/usr/bin/python3"
SCRIPTS = REPO_ROOT / "scripts"


def _lacks_numpy(python: str) -> bool:
    probe = subprocess.run([python, "-c", "import numpy"], capture_output=True,
                           env=_clean_env())
    return probe.returncode != 0


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PMUBENCH_REEXEC", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(extra)
    return env


@pytest.fixture(scope="module", params=["pyenv", "debian-venv"])
def fake_python(request, tmp_path_factory) -> Path:
    """A bin directory whose python3 cannot import numpy: a venv of a pyenv
    interpreter (not Debian's), and a venv of Debian's own python3 (the
    same binary as /usr/bin/python3, without its packages)."""
    if not os.path.exists(DEBIAN):
        pytest.skip("needs Debian's /usr/bin/python3 to re-run under")
    if request.param == "pyenv":
        bases = sorted(glob.glob("/root/.pyenv/versions/3.*/bin/python3"))
    else:
        bases = [DEBIAN]
    for base in bases:
        venv = tmp_path_factory.mktemp("venv") / "py"
        made = subprocess.run([base, "-m", "venv", "--without-pip", str(venv)],
                              capture_output=True, env=_clean_env())
        python = venv / "bin" / "python3"
        if made.returncode == 0 and python.exists() and _lacks_numpy(str(python)):
            return venv / "bin"
    pytest.skip(f"no {request.param} interpreter to make a numpy-less venv from")


def run(bin_dir: Path | None, args: list, cwd: Path = REPO_ROOT, **env):
    """`python3 ARGS` as a user types it: python3 found on PATH, the fake
    one first (bin_dir), or Debian's when bin_dir is None."""
    path = os.environ.get("PATH", "")
    python = "python3" if bin_dir else DEBIAN
    return subprocess.run(
        [python, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300,
        env=_clean_env(PATH=f"{bin_dir}:{path}" if bin_dir else path, **env))


def _profile_json(tmp_path: Path) -> Path:
    prof = [{"symbol": "TouchPages(char*)", "samples": 3, "share": 0.75},
            {"symbol": "main", "samples": 1, "share": 0.25}]
    path = tmp_path / "profiled.json"
    path.write_text(json.dumps({"benchmarks": [
        {"name": "BM_A/4", "run_name": "BM_A/4", "run_type": "iteration",
         "real_time": 1.0, "cpu_time": 1.0, "iterations": 1, "time_unit": "ns",
         "pmubench_profile": prof, "pmubench_profile_event": "page-faults@1"}]}))
    return path


def _entry_points(tmp_path: Path) -> dict:
    """name -> (argv after python3, cwd, the path it writes or None)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    plot_out = tmp_path / "report"
    merged = tmp_path / "merged.json"
    profile_out = tmp_path / "profiles"
    compare = FIXTURES_DIR / "compare"
    return {
        "plot.py": (["reports/plot.py", FIXTURES_DIR / "plot" / "run_aggregates_only.json",
                     "-o", plot_out], REPO_ROOT, plot_out),
        "merge.py": (["scripts/merge.py", merged, compare / "base.json",
                      compare / "rerun.json"], REPO_ROOT, merged),
        "compare.py": (["scripts/compare.py", compare / "instr_base.json",
                        compare / "instr_regression.json"], REPO_ROOT, None),
        "-m pmubench.report.profile_plot": (
            ["-m", "pmubench.report.profile_plot", _profile_json(tmp_path), "-o", profile_out],
            SCRIPTS, profile_out),
    }


def _written(path):
    if path is None:
        return None
    if path.is_dir():
        return sorted(p.name for p in path.iterdir())
    return path.read_text()


@pytest.mark.parametrize("name", ["plot.py", "merge.py", "compare.py",
                                  "-m pmubench.report.profile_plot"])
def test_an_entry_point_under_a_python3_without_numpy_does_what_debians_does(
        fake_python, tmp_path, name):
    args, cwd, out = _entry_points(tmp_path / "fake")[name]
    fake = run(fake_python, args, cwd)
    assert "Traceback" not in fake.stderr, fake.stderr
    fake_written = _written(out)
    args, cwd, out = _entry_points(tmp_path / "debian")[name]
    debian = run(None, args, cwd)
    assert fake.returncode == debian.returncode, (fake.stderr, debian.stderr)
    assert fake.stdout.replace("/fake/", "/debian/") == debian.stdout
    assert fake_written == _written(out)
    if name == "compare.py":
        assert debian.returncode == 1 and "REGRESSION" in debian.stdout.upper()
    else:
        assert debian.returncode == 0, debian.stderr


@pytest.mark.parametrize("name", ["plot.py", "compare.py",
                                  "-m pmubench.report.profile_plot"])
def test_without_a_python_that_has_numpy_it_says_what_to_install_and_writes_nothing(
        fake_python, tmp_path, name):
    # PMUBENCH_REEXEC: as in the run under /usr/bin/python3 after the
    # re-exec, which must not re-exec again; here nothing has numpy.
    args, cwd, out = _entry_points(tmp_path)[name]
    result = run(fake_python, args, cwd, PMUBENCH_REEXEC="1")
    assert result.returncode == 2, result.stderr
    tool = name.rsplit(".", 1)[-1] if name.startswith("-m") else name
    assert result.stderr.startswith(f"{tool}: error: ")
    assert "numpy" in result.stderr and "apt-get install" in result.stderr
    assert DEBIAN in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""
    assert out is None or not out.exists()


def test_merge_needs_only_the_standard_library(fake_python, tmp_path):
    args, cwd, out = _entry_points(tmp_path)["merge.py"]
    result = run(fake_python, args, cwd, PMUBENCH_REEXEC="1")
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["benchmarks"]


def _top_level_imports(tree: ast.Module):
    """(line, module) of each import at module level or in a top-level
    `if __name__ == "__main__":` block, and the lines calling ensure()."""
    imports, ensures = [], []
    for node in tree.body:
        body = [node]
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            body = node.body
        for stmt in body:
            if isinstance(stmt, ast.Import):
                imports += [(stmt.lineno, a.name) for a in stmt.names]
            elif isinstance(stmt, ast.ImportFrom) and stmt.module:
                imports.append((stmt.lineno, stmt.module))
            elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                  and ast.unparse(stmt.value.func) == "launch.ensure"):
                ensures.append(stmt.lineno)
    return imports, ensures


ENTRY_POINTS = ("reports/plot.py", "scripts/compare.py", "scripts/history.py", "scripts/merge.py",
                "scripts/convert", "scripts/pmu-vm", "scripts/test")


def _entry_point_files() -> list[Path]:
    """The command lines, and every pmubench module that can be run with
    -m (it has an `if __name__ == "__main__":` block)."""
    files = [REPO_ROOT / name for name in ENTRY_POINTS]
    for path in sorted((SCRIPTS / "pmubench").rglob("*.py")):
        if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8"):
            files.append(path)
    return files


STDLIB = set(sys.stdlib_module_names) | {"__future__"}


@pytest.mark.parametrize("path", _entry_point_files(),
                         ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_entry_point_calls_ensure_before_importing_more_than_the_stdlib(path):
    """Each starts the same way; a module added later for `python3 -m` gets
    the same rule, or this fails."""
    imports, ensures = _top_level_imports(ast.parse(path.read_text(encoding="utf-8")))
    assert ensures, f"{path} does not call launch.ensure()"
    first = ensures[0]
    for line, module in imports:
        top = module.split(".")[0]
        if top in STDLIB or module in ("pmubench.base", "pmubench.base.launch"):
            continue
        assert line > first, f"{path}:{line}: imports {module} before launch.ensure()"
