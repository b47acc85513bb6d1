"""scripts/dev/check_docstring_paths.py: every repository path a Python
docstring or a C++ comment names exists (tests/python/test_docs_links.py
holds the docs pages to the same rule)."""

from __future__ import annotations

from dev_scripts import REPO, copy_of_tree, load_dev_script, run_dev_script

check = load_dev_script("check_docstring_paths")


def test_every_path_this_tree_names_exists():
    assert check.missing_named_paths(REPO) == []
    assert run_dev_script("check_docstring_paths").returncode == 0


def test_paths_in_text():
    text = ("See framework/perf/counting/mmap_reader.h, framework/runner/plan/plan.{h,cc}\n"
            "and scripts/dev/*.py, tests/.../x.py, //benches:all, /sys/bus/x, "
            "a/scripts/no.py, (docs/design.md).")
    assert check.paths_in(text) == [
        (0, "framework/perf/counting/mmap_reader.h"),
        (0, "framework/runner/plan/plan.h"), (0, "framework/runner/plan/plan.cc"),
        (1, "docs/design.md")]


def test_a_python_docstring_naming_a_moved_file_is_caught(tmp_path):
    root = copy_of_tree(tmp_path)
    (root / "scripts" / "dev" / "planted.py").write_text(
        '"""Reads scripts/dev/check_rooms.py and\nscripts/gone.py."""\n\n'
        "def f():\n    '''Writes framework/runner/plan/plan.{h,hh}.'''\n"
        "    x = 'scripts/not_a_docstring.py'\n")
    result = run_dev_script("check_docstring_paths", "--root", str(root))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "scripts/dev/planted.py:2: `scripts/gone.py` does not exist",
        "scripts/dev/planted.py:5: `framework/runner/plan/plan.hh` does not exist"]


def test_a_cxx_comment_naming_a_moved_file_is_caught(tmp_path):
    root = copy_of_tree(tmp_path)
    (root / "framework" / "perf" / "system" / "planted.h").write_text(
        "// The reader: framework/perf/counting/mmap_reader.h.\n"
        "/* The old one:\n   framework/perf/mmap_reader.h */\n"
        'const char* kPath = "framework/perf/also_gone.h";\n')
    assert check.missing_named_paths(root) == [
        "framework/perf/system/planted.h:3: `framework/perf/mmap_reader.h` does not exist"]
