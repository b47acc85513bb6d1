"""Helpers for the tests of scripts/dev's checks: load a check by its path
(wherever the Python package lives, the checks stay scripts of their own)
and copy the repository's files into a temporary tree to plant a violation
in."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess
import sys
from types import ModuleType

REPO = pathlib.Path(__file__).resolve().parents[2]
DEV = REPO / "scripts" / "dev"


def load_dev_script(name: str) -> ModuleType:
    """scripts/dev/<name>.py as a module (loaded once)."""
    key = f"pmubench_dev_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, DEV / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def copy_of_tree(dest: pathlib.Path) -> pathlib.Path:
    """The repository's own files (not build output, not .git) copied under
    dest/tree; returns that root."""
    repo_files = load_dev_script("repo_files").repo_files
    root = dest / "tree"
    for rel in repo_files(REPO, links=True):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, root / rel, follow_symlinks=False)
    return root


def run_dev_script(name: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs scripts/dev/<name>.py under Debian's python3 as a user does."""
    python = "/usr/bin/python3" if pathlib.Path("/usr/bin/python3").exists() else sys.executable
    return subprocess.run([python, str(DEV / f"{name}.py"), *args],
                          capture_output=True, text=True, timeout=300, env=env)
