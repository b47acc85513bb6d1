"""scripts/dev/check_format.py: every C++ file is formatted by the
repository's .clang-format (Google style, Debian's clang-format 14).

The tree test tolerates nothing: a file clang-format would change fails it
(`clang-format -i --style=file FILE` formats one)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from dev_scripts import REPO, copy_of_tree, load_dev_script, run_dev_script

check = load_dev_script("check_format")
CLANG_FORMAT = check.find_clang_format()
needs_clang_format = pytest.mark.skipif(
    CLANG_FORMAT is None, reason="no clang-format (scripts/setup installs it)")

FORMATTED = """\
#include "framework/perf/system/planted.h"

namespace pmubench {

int Planted(int a) { return a + 1; }

}  // namespace pmubench
"""
UNFORMATTED = FORMATTED.replace("int Planted(int a) { return a + 1; }",
                                "int  Planted( int a ){return a+1;}")


def test_clang_format_is_installed():
    # scripts/setup installs it; without it the format rule would hold by habit.
    assert CLANG_FORMAT is not None, "no clang-format: run scripts/setup"


def test_the_style_is_googles():
    text = (REPO / ".clang-format").read_text()
    assert "BasedOnStyle: Google" in text


@needs_clang_format
def test_every_cxx_file_of_this_tree_is_formatted():
    assert check.unformatted(REPO, CLANG_FORMAT) == []


@needs_clang_format
def test_a_planted_unformatted_file_is_named_and_a_formatted_one_is_not(tmp_path):
    root = copy_of_tree(tmp_path)
    folder = root / "framework" / "perf" / "system"
    (folder / "planted.cc").write_text(FORMATTED)
    (folder / "planted_too.cc").write_text(UNFORMATTED)
    named = check.unformatted(root, CLANG_FORMAT)
    assert "framework/perf/system/planted_too.cc:5: not formatted by .clang-format " \
        "(clang-format -i --style=file framework/perf/system/planted_too.cc)" in named
    assert not any(n.startswith("framework/perf/system/planted.cc:") for n in named)
    result = run_dev_script("check_format", "--root", str(root))
    assert result.returncode == 1
    assert "framework/perf/system/planted_too.cc:5:" in result.stdout


@needs_clang_format
def test_the_converter_inputs_keep_their_layout(tmp_path):
    # tests/convert/gbench/.clang-format: Google Benchmark sources as users
    # write them; scripts/convert's tests read their layout.
    root = copy_of_tree(tmp_path)
    (root / "tests" / "convert" / "gbench" / "planted.cc").write_text(UNFORMATTED)
    named = check.unformatted(root, CLANG_FORMAT)
    assert not any(n.startswith("tests/convert/gbench/") for n in named)


def test_without_clang_format_the_check_says_what_to_install(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}
    result = run_dev_script("check_format", env=env)
    assert result.returncode == 2
    assert "scripts/setup" in result.stderr


@needs_clang_format
def test_a_new_untracked_file_is_checked_too(tmp_path):
    # In a git checkout the check reads git's list, new files included.
    if shutil.which("git") is None:
        pytest.skip("no git")
    root = tmp_path / "repo"
    (root / "framework").mkdir(parents=True)
    (root / ".clang-format").write_text((REPO / ".clang-format").read_text())
    (root / "framework" / "new.cc").write_text(UNFORMATTED)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert [n.split(":")[0] for n in check.unformatted(root, CLANG_FORMAT)] == \
        ["framework/new.cc"]
