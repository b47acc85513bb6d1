"""scripts/dev/check_leftovers.py: no backup or merge leftover (*.orig,
*.rej, *~, git mergetool's copies, conflict markers) in the repository."""

from __future__ import annotations

import subprocess

import pytest

from dev_scripts import REPO, copy_of_tree, load_dev_script, run_dev_script

check = load_dev_script("check_leftovers")


def test_this_tree_has_no_leftover():
    assert check.leftovers(REPO) == []
    assert run_dev_script("check_leftovers").returncode == 0


@pytest.mark.parametrize("name", ["docs/profiling.md.orig", "framework/perf/a.cc.rej",
                                  "scripts/compare.py~",
                                  "tests/python/conftest_BACKUP_123.py",
                                  "README.LOCAL.4242.md"])
def test_a_planted_backup_file_is_named(tmp_path, name):
    root = copy_of_tree(tmp_path)
    (root / name).write_text("old\n")
    offences = check.leftovers(root)
    if "_BACKUP_" in name:  # not a mergetool name: the pattern is .BACKUP.
        assert offences == []
        return
    assert offences == [f"{name}: a backup or merge leftover (git rm it)"]


def test_a_planted_conflict_marker_is_named_with_its_line(tmp_path):
    root = copy_of_tree(tmp_path)
    page = root / "docs" / "building.md"
    lines = page.read_text().split("\n")
    lines[2:2] = ["<<<<<<< HEAD", "ours", "=======", "theirs", ">>>>>>> branch"]
    page.write_text("\n".join(lines))
    result = run_dev_script("check_leftovers", "--root", str(root))
    assert result.returncode == 1
    assert result.stdout == "docs/building.md:3: a merge conflict marker (resolve the conflict)\n"


def test_in_a_git_checkout_a_committed_leftover_is_named(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "kept.md").write_text("# kept\n")
    (root / "kept.md.orig").write_text("# old\n")
    (root / "ignored.orig").write_text("# ignored\n")
    (root / ".gitignore").write_text("ignored.orig\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(git + ["add", "kept.md", "kept.md.orig", ".gitignore"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
    assert check.leftovers(root) == ["kept.md.orig: a backup or merge leftover (git rm it)"]
