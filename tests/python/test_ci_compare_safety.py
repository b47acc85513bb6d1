"""scripts/ci_compare.sh on a shared machine, and on every way out.

Each test runs the real script on a throwaway git repository whose
"benchmark" is a small Python script (no C++ build): its instructions
counter is the number in count.txt, 1000 at the base commit and 1100 at the
head, so a run that gets through exits 1 (a regression). Covered:

  --out       a fresh private directory by default; an existing one that
              another user owns or others can write is refused (exit 2); a
              symbolic link planted in it is replaced, never written through
  worktrees   a directory under OUT/worktrees that is not a worktree of the
              repository is refused: git never runs in the user's checkout
  reports     compare.md/compare-full.md/compare.json that could not be
              written fail the run (exit 3) unless compare.py's own status
              is 1, 2 or 4
  leftovers   the per-round files go on every way out, SIGTERM/SIGINT too
  CMake       --cmake-arg reaches the configure step; a missing package is
              explained with the variable to set
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from conftest import FAKE_BENCH, REPO_ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SCRIPT = REPO_ROOT / "scripts" / "ci_compare.sh"

_BENCH = FAKE_BENCH


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], check=True, capture_output=True, text=True).stdout


def _project(tmp_path, files=None, name="project"):
    """A repository of two commits, count.txt 1000 then 1100, plus files
    ({path: text}; an executable one if the text starts with #!)."""
    repo = tmp_path / name
    repo.mkdir()
    (repo / "bench.py").write_text(_BENCH)
    for path, text in (files or {}).items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        if text.startswith("#!"):
            os.chmod(repo / path, 0o755)
    _git(repo, "init", "-q")
    for count in (1000, 1100):
        (repo / "count.txt").write_text(f"{count}\n")
        _git(repo, "add", ".")
        _git(repo, "commit", "-qm", f"count {count}")
    return repo


RUN = ["--base", "HEAD~1", "--reps", "3", "--build-cmd", "true",
       "--run-cmd", "/usr/bin/python3 bench.py"]


def _recipe(repo, *args, script=SCRIPT, env=None, umask=None):
    return subprocess.run(
        ["bash", str(script), *map(str, args)], cwd=repo, capture_output=True, text=True,
        timeout=300, env={**os.environ, **(env or {})},
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def _head_state(repo):
    """(symbolic ref or None, commit, status) of the user's checkout."""
    ref = subprocess.run(["git", "-C", str(repo), "symbolic-ref", "-q", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or None
    return (ref, _git(repo, "rev-parse", "HEAD").strip(),
            _git(repo, "status", "--porcelain"))


def _worktrees(repo):
    """How many linked worktrees the repository has (besides its own)."""
    listed = _git(repo, "worktree", "list", "--porcelain").splitlines()
    return sum(line.startswith("worktree ") for line in listed) - 1


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _round_files(out):
    return sorted(n for n in os.listdir(out) if n.startswith((".base.", ".head.")))


# --- item 1: the output directory ------------------------------------------------


def test_the_default_out_is_a_new_private_directory_each_run(tmp_path, fake_compare):
    repo = _project(tmp_path)
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    # What another local user could prepare under the old, predictable name.
    planted = tmpdir / "pmubench-compare-project"
    planted.mkdir()
    os.chmod(planted, 0o777)
    victim = tmp_path / "precious.txt"
    victim.write_text("precious\n")
    os.symlink(victim, planted / "base-build.log")
    outs = []
    for _ in range(2):
        proc = _recipe(repo, *RUN, script=fake_compare,
                       env={"TMPDIR": str(tmpdir), "FAKE_STATUS": "1"})
        assert proc.returncode == 1, proc.stdout + proc.stderr
        made = sorted(set(tmpdir.iterdir()) - {planted} - set(outs))
        assert len(made) == 1, made
        (out,) = made
        outs.append(out)
        assert out.name.startswith("pmubench-compare-project.")
        assert _mode(out) == 0o700
        assert str(out) in proc.stderr  # says where it is
        assert sorted(os.listdir(out)) == [
            "base-build.log", "base-run.log", "base.json", "compare-full.md", "compare.json",
            "compare.md", "head-build.log", "head-run.log", "head.json"]
    assert victim.read_text() == "precious\n"
    assert sorted(os.listdir(planted)) == ["base-build.log"]


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o757], ids=["777", "770", "757"])
def test_an_out_others_can_write_is_refused_before_any_work(tmp_path, mode):
    repo = _project(tmp_path)
    out = tmp_path / "shared"
    out.mkdir()
    os.chmod(out, mode)
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--out '{out}'" in proc.stderr
    assert "writable by" in proc.stderr and "chmod go-w" in proc.stderr
    assert os.listdir(out) == []
    assert _worktrees(repo) == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make another user's directory")
def test_an_out_of_another_user_is_refused(tmp_path):
    repo = _project(tmp_path)
    out = tmp_path / "theirs"
    out.mkdir()
    os.chmod(out, 0o755)
    os.chown(out, pwd.getpwnam("nobody").pw_uid, -1)
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--out '{out}'" in proc.stderr and "belongs to uid 65534" in proc.stderr
    assert os.listdir(out) == []
    assert _worktrees(repo) == 0


def test_an_out_in_a_directory_anyone_can_rename_in_is_refused(tmp_path):
    repo = _project(tmp_path)
    parent = tmp_path / "open"
    parent.mkdir()
    os.chmod(parent, 0o777)  # no sticky bit: anyone can rename --out away
    proc = _recipe(repo, *RUN, "--out", parent / "cmp")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "sticky" in proc.stderr
    assert os.listdir(parent) == []


def test_a_missing_out_is_made_private_whatever_the_umask(tmp_path, fake_compare):
    repo = _project(tmp_path)
    out = tmp_path / "new"
    proc = _recipe(repo, *RUN, "--out", out, umask=0, script=fake_compare)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _mode(out) == 0o700
    # Its parent must exist: a typo is not a tree of new directories.
    proc = _recipe(repo, *RUN, "--out", tmp_path / "no" / "such" / "dir")
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and "--out" in proc.stderr
    assert not (tmp_path / "no").exists()


def test_an_out_that_is_a_file_is_refused(tmp_path):
    repo = _project(tmp_path)
    (tmp_path / "file").write_text("x")
    proc = _recipe(repo, *RUN, "--out", tmp_path / "file")
    assert proc.returncode == 2
    assert "not a directory" in proc.stderr
    assert (tmp_path / "file").read_text() == "x"


def test_symlinks_planted_in_out_are_replaced_not_followed(tmp_path):
    repo = _project(tmp_path)
    out = tmp_path / "out"
    out.mkdir(mode=0o700)
    victims = {}
    for name in ("base-build.log", "head-run.log", ".base.1.json", ".head.2.json",
                 "base.json", "compare.md", "compare-full.md", "compare.json"):
        victim = tmp_path / f"victim-{name.strip('.')}"
        victim.write_text("precious\n")
        os.symlink(victim, out / name)
        victims[name] = victim
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for name, victim in victims.items():
        assert victim.read_text() == "precious\n", name
    for name in ("base-build.log", "head-run.log", "base.json", "compare.md",
                 "compare-full.md", "compare.json"):
        assert not os.path.islink(out / name) and (out / name).is_file(), name
    assert _round_files(out) == []


def test_an_output_name_taken_by_a_directory_is_refused(tmp_path):
    repo = _project(tmp_path)
    out = tmp_path / "out"
    out.mkdir(mode=0o700)
    (out / "compare.md").mkdir()
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{out}/compare.md" in proc.stderr
    assert sorted(os.listdir(out)) == ["compare.md"]


def test_an_out_refused_inside_the_work_tree_is_not_left_behind(tmp_path):
    repo = _project(tmp_path)
    proc = _recipe(repo, *RUN, "--out", "cmp")
    assert proc.returncode == 2
    assert "git does not ignore it" in proc.stderr
    assert not (repo / "cmp").exists()
    assert _git(repo, "status", "--porcelain") == ""


# --- item 2: never git in the user's checkout ------------------------------------


@pytest.mark.parametrize("side", ["base", "head"])
@pytest.mark.parametrize("where", ["ignored-in-checkout", "outside"])
def test_a_plain_directory_where_a_worktree_goes_is_refused(tmp_path, side, where):
    # With --out inside the checkout (allowed where git ignores it), git run
    # in a plain directory there walks up to the user's own repository: the
    # old script checked the base commit out there, HEAD detached.
    repo = _project(tmp_path, {".gitignore": "cmp/\n"})
    out = repo / "cmp" if where == "ignored-in-checkout" else tmp_path / "out"
    tree = out / "worktrees" / side
    tree.mkdir(parents=True)
    os.chmod(out, 0o700)
    (tree / "notes.txt").write_text("mine\n")
    before = _head_state(repo)
    assert before[0] is not None  # on a branch
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(tree) in proc.stderr and "not a git worktree of" in proc.stderr
    assert _head_state(repo) == before
    assert sorted(os.listdir(tree)) == ["notes.txt"]
    assert _worktrees(repo) == 0


def test_a_worktree_of_another_repository_is_refused(tmp_path):
    repo = _project(tmp_path)
    other = _project(tmp_path, name="other")
    out = tmp_path / "out"
    (out / "worktrees").mkdir(parents=True)
    os.chmod(out, 0o700)
    _git(other, "worktree", "add", "--detach", str(out / "worktrees" / "head"), "HEAD")
    before, other_before = _head_state(repo), _head_state(other)
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "not a git worktree of" in proc.stderr
    assert _head_state(repo) == before and _head_state(other) == other_before
    assert _git(out / "worktrees" / "head", "rev-parse", "HEAD") == _git(other, "rev-parse", "HEAD")


def test_a_symlinked_worktrees_directory_is_refused(tmp_path):
    repo = _project(tmp_path)
    out = tmp_path / "out"
    out.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, out / "worktrees")
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{out}/worktrees" in proc.stderr
    assert os.listdir(elsewhere) == []


def test_worktrees_kept_by_an_earlier_run_are_used_again(tmp_path):
    repo = _project(tmp_path)
    out = tmp_path / "out"
    proc = _recipe(repo, *RUN, "--out", out, "--keep")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _worktrees(repo) == 2
    proc = _recipe(repo, *RUN, "--out", out)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BM_Fake instructions 1,000 -> 1,100 (+100, +10.00%)" in proc.stdout
    assert _worktrees(repo) == 0 and not (out / "worktrees").exists()


# --- item 3: reports that were not written, and the per-round files --------------

# Stands in for compare.py: exits $FAKE_STATUS, and fails to write the
# --format's named in $FAKE_CANNOT_WRITE (as compare.py does on a full disk).
_FAKE_COMPARE = """\
import os, sys
args = sys.argv[1:]
fmt = args[args.index("--format") + 1] if "--format" in args else "text"
out = args[args.index("--output") + 1] if "--output" in args else None
status = int(os.environ.get("FAKE_STATUS", "0"))
if out and fmt in os.environ.get("FAKE_CANNOT_WRITE", "").split(","):
    print(f"compare.py: error: cannot write {out}: No space left on device", file=sys.stderr)
    sys.exit(2)
if out:
    with open(out, "w") as f:
        f.write(fmt + " report\\n")
    if "--full-output" in args:
        with open(args[args.index("--full-output") + 1], "w") as f:
            f.write("full report\\n")
else:
    print("Result: from the fake compare.py")
sys.exit(status)
"""


@pytest.fixture
def fake_compare(tmp_path, repo_root):
    tool = tmp_path / "tool"
    shutil.copytree(repo_root / "scripts", tool,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tool / "compare.py").write_text(_FAKE_COMPARE)
    return tool / "ci_compare.sh"


@pytest.mark.parametrize("status, cannot_write, want", [
    (0, "markdown", 3),        # PASS, but no compare.md: a failure
    (0, "json", 3),
    (1, "markdown,json", 1),   # compare.py's own failures pass through
    (2, "json", 2),
    (4, "markdown", 4),        # 4: inconclusive, gated nothing
    (4, "", 4),
])
def test_a_report_that_was_not_written_fails_the_run(tmp_path, fake_compare, status,
                                                     cannot_write, want):
    repo = _project(tmp_path)
    out = tmp_path / "out"
    proc = _recipe(repo, *RUN, "--out", out, script=fake_compare,
                   env={"FAKE_STATUS": str(status), "FAKE_CANNOT_WRITE": cannot_write})
    assert proc.returncode == want, proc.stdout + proc.stderr
    assert "Result: from the fake compare.py" in proc.stdout
    names = [("markdown", "compare.md"), ("markdown", "compare-full.md"),
             ("json", "compare.json")]
    for fmt, name in names:
        missing = fmt in cannot_write.split(",")
        assert (out / name).exists() != missing
        if missing:
            assert f"{out}/{name} was not written" in proc.stderr
    (reports,) = [line for line in proc.stderr.splitlines() if line.startswith("reports:")]
    for fmt, name in names:
        assert (f"{out}/{name}" in reports) == (fmt not in cannot_write.split(","))
    assert _round_files(out) == []


def test_a_failed_run_leaves_no_per_round_files(tmp_path):
    # The head's second run fails: the rounds before it wrote their files.
    repo = _project(tmp_path, {"run.sh": """\
if grep -q 1100 count.txt && [ -e ran ]; then exit 1; fi
touch ran
exec /usr/bin/python3 bench.py "$@"
"""})
    out = tmp_path / "out"
    proc = _recipe(repo, "--base", "HEAD~1", "--reps", "3", "--build-cmd", "true",
                   "--run-cmd", "bash run.sh", "--out", out)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "the head run failed" in proc.stderr
    assert _round_files(out) == []
    assert sorted(os.listdir(out)) == ["base-build.log", "base-run.log",
                                       "head-build.log", "head-run.log"]
    assert _worktrees(repo) == 0


_SLOW_HEAD = """\
/usr/bin/python3 bench.py "$@"
if grep -q 1100 count.txt; then
  echo $$ > "$READY.tmp" && mv "$READY.tmp" "$READY"
  exec sleep 120
fi
"""


def _gone(pid, within=10.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[-1].startswith("Z"):
                    return True  # exited, not yet reaped by its parent
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.05)
    return False


def _stop_signals_by_default() -> None:
    """In the child: the stop signals as a terminal's shell gives them. A
    test runner started in the background by a non-interactive shell
    ignores SIGINT, its children inherit that, and bash cannot trap a
    signal ignored on entry: the script then ran on after SIGINT (the one
    failure of this test in the full test command)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_stopped_run_cleans_up_and_exits_128_plus_the_signal(tmp_path, sig):
    repo = _project(tmp_path, {"run.sh": _SLOW_HEAD})
    out = tmp_path / "out"
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        ["bash", str(SCRIPT), "--base", "HEAD~1", "--reps", "3", "--build-cmd", "true",
         "--run-cmd", "bash run.sh", "--out", str(out)],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "READY": str(ready)}, start_new_session=True,
        preexec_fn=_stop_signals_by_default)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        sleeper = int(ready.read_text())
        assert _round_files(out) == [".base.1.json", ".head.1.json"]
        # The signal goes to the script alone (kill PID), not to its children:
        # it must stop the running one itself, not wait for it to finish.
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + sig, err
        assert f"stopped by {sig.name}" in err
        assert _gone(sleeper)
        assert _round_files(out) == []
        assert not (out / "worktrees").exists() and _worktrees(repo) == 0
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


# Stands in for merge.py: starts its atomic write (atomic.py's temp file
# beside OUT) and is stopped there.
_SLOW_MERGE = """\
import os, sys, time
out = sys.argv[1]
with open(os.path.join(os.path.dirname(out), ".pmubench-abc123.tmp"), "w") as f:
    f.write("half")
with open(os.environ["READY"], "w") as f:
    f.write(str(os.getpid()))
time.sleep(120)
"""


def test_a_write_cut_short_by_a_stop_leaves_no_temp_file(tmp_path, repo_root):
    tool = tmp_path / "tool"
    shutil.copytree(repo_root / "scripts", tool, ignore=shutil.ignore_patterns("__pycache__"))
    (tool / "merge.py").write_text(_SLOW_MERGE)
    repo = _project(tmp_path)
    out, ready = tmp_path / "out", tmp_path / "ready"
    proc = subprocess.Popen(["bash", str(tool / "ci_compare.sh"), *RUN, "--out", str(out)],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "READY": str(ready)}, start_new_session=True,
                            preexec_fn=_stop_signals_by_default)
    try:
        deadline = time.monotonic() + 120
        while not (ready.exists() and ready.read_text()):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert (out / ".pmubench-abc123.tmp").exists()
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, err
        assert sorted(os.listdir(out)) == ["base-build.log", "base-run.log",
                                           "head-build.log", "head-run.log"]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


# --- usage ------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["--out"], "--out needs a directory"),
    (["--cmake-arg"], "--cmake-arg needs"),
    (["--reps", ""], "--reps needs"),
    (["--min-time", "abc"], "--min-time 'abc'"),
    (["--cmake-arg", "-DX=1", "--build-cmd", "true", "--run-cmd", "true"], "--cmake-arg"),
    (["--cmake-arg", "-DX=1", "--bazel-target", "//a:b"], "--cmake-arg"),
])
def test_bad_usage_is_exit_2_before_any_work(tmp_path, args, message):
    repo = _project(tmp_path)
    proc = _recipe(repo, "--base", "HEAD~1", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert _worktrees(repo) == 0


# --- item 6 (issue 23): CMake arguments -------------------------------------------

_CMAKE_NEEDS_OPTIONS = """\
cmake_minimum_required(VERSION 3.18)
project(fake LANGUAGES NONE)
if(NOT NEEDED)
  message(FATAL_ERROR "configure with -DNEEDED=ON")
endif()
if(NOT CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
  message(FATAL_ERROR "want CMAKE_BUILD_TYPE RelWithDebInfo, got '${CMAKE_BUILD_TYPE}'")
endif()
add_custom_target(benches_all
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/benches
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/bench_main.py
          ${CMAKE_BINARY_DIR}/benches/all)
"""

_CMAKE_NEEDS_PACKAGE = """\
cmake_minimum_required(VERSION 3.18)
project(fake LANGUAGES NONE)
find_package(%s REQUIRED)
"""

needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")


@needs_cmake
def test_cmake_args_reach_configure_after_the_default_build_type(tmp_path):
    repo = _project(tmp_path, {"CMakeLists.txt": _CMAKE_NEEDS_OPTIONS,
                               "bench_main.py": "#!/usr/bin/python3\n" + _BENCH})
    cmake = ["--base", "HEAD~1", "--reps", "3", "--cmake-target", "benches_all"]
    proc = _recipe(repo, *cmake, "--cmake-arg", "-DNEEDED=ON", "--out", tmp_path / "out1")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "cmake configure of base failed" in proc.stderr
    assert "got 'Release'" in (tmp_path / "out1" / "base-build.log").read_text()
    proc = _recipe(repo, *cmake, "--cmake-arg", "-DNEEDED=ON",
                   "--cmake-arg", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "--out", tmp_path / "out2")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BM_Fake instructions 1,000 -> 1,100 (+100, +10.00%)" in proc.stdout


@needs_cmake
@pytest.mark.parametrize("package", [
    "NoSuchPkg CONFIG",
    # Module mode, and a name long enough that cmake wraps it onto a line of its own.
    "AVeryLongPackageNameThatWrapsTheLineSurely",
])
def test_a_package_cmake_cannot_find_is_explained(tmp_path, package):
    repo = _project(tmp_path, {"CMakeLists.txt": _CMAKE_NEEDS_PACKAGE % package})
    name = package.split()[0]
    proc = _recipe(repo, "--base", "HEAD~1", "--cmake-target", "benches_all",
                   "--out", tmp_path / "out")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "cmake configure of base failed" in proc.stderr
    assert f'cmake cannot find package "{name}"' in proc.stderr
    assert "--cmake-arg -DCMAKE_PREFIX_PATH=" in proc.stderr
    assert f"--cmake-arg -D{name}_DIR=" in proc.stderr
    assert proc.stderr.count("cannot find package") == 1


def test_the_stop_test_holds_when_its_runner_ignores_sigint(repo_root):
    """The test above, run by a pytest that ignores SIGINT (started with &
    by a non-interactive shell, as a full test command in the background
    is): it failed so, ci_compare.sh still running 30 s after SIGINT."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{__file__}::test_a_stopped_run_cleans_up_and_exits_128_plus_the_signal[INT]"],
        cwd=repo_root, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout
