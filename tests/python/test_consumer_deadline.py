"""tests/consumers/deadline.py: the consumer builds' time limit, counted in
an unloaded machine's seconds so that it holds on a loaded machine and
still ends a hang."""

from __future__ import annotations

import importlib.util
import subprocess
import time

from conftest import REPO_ROOT

DEADLINE = REPO_ROOT / "tests" / "consumers" / "deadline.py"
_spec = importlib.util.spec_from_file_location("deadline", DEADLINE)
deadline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(deadline)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/usr/bin/python3", str(DEADLINE), *args],
                          capture_output=True, text=True, timeout=120)


def test_a_second_counts_whole_up_to_one_job_per_cpu():
    assert deadline.machine_seconds(10.0, 0.3, 2) == 10.0
    assert deadline.machine_seconds(10.0, 2.0, 2) == 10.0


def test_a_loaded_second_counts_the_share_of_the_machine_left():
    # Load 14 on 2 CPUs (the loaded CI host): a seventh of each second.
    assert deadline.machine_seconds(14.0, 14.0, 2) == 2.0


def test_under_load_the_limit_takes_longer_and_still_ends():
    proc = subprocess.Popen(["sleep", "60"])
    try:
        w = deadline.watch(proc, quiet_seconds=1.0, cpus=2,
                           load=lambda: 8.0, tick=0.05)
    finally:
        proc.kill()
        proc.wait()
    assert not w.ended
    assert w.peak == 8.0
    assert w.counted >= 1.0
    assert 3.5 <= w.wall < 10  # 1 s at a quarter of the machine: 4 s


def test_a_command_that_ends_in_time_keeps_its_exit_status():
    r = run("--quiet-seconds", "30", "--", "sh", "-c", "echo hi; exit 3")
    assert r.returncode == 3
    assert r.stdout == "hi\n"
    assert "took 0 s" in r.stderr
    assert "of the 30 s allowed" in r.stderr


def test_a_hang_is_stopped_with_its_process_group_and_said_so(tmp_path):
    pid_file = tmp_path / "pid"
    start = time.monotonic()
    r = run("--quiet-seconds", "1", "--", "sh", "-c",
            f"sleep 300 & echo $! > {pid_file}; wait")
    assert r.returncode == 124
    assert time.monotonic() - start < 60
    assert "did not end within 1 s of an unloaded machine's time" in r.stderr
    assert "a hang?" in r.stderr
    grandchild = int(pid_file.read_text())
    # The sleep, a grandchild, was stopped too (its group was killed): wait
    # for it to be gone or a zombie (ps's first state letter Z; a nice'd
    # test run adds N after it), not for a fixed time.
    assert _state_letter_soon(grandchild, ("", "Z")) in ("", "Z")


def _state_letter_soon(pid, wanted, limit_s=60.0):
    """ps's first state letter of `pid` ("" once it is gone), polled until
    it is one of `wanted` or `limit_s` passed; the last one seen."""
    end = time.monotonic() + limit_s
    while True:
        probe = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)],
                               capture_output=True, text=True)
        letter = probe.stdout.strip()[:1]
        if letter in wanted or time.monotonic() > end:
            return letter
        time.sleep(0.05)


def test_a_limit_that_is_not_positive_is_a_usage_error():
    r = run("--quiet-seconds", "0", "--", "true")
    assert r.returncode == 2
    assert "--quiet-seconds must be positive" in r.stderr


def test_a_command_that_cannot_start_is_a_usage_error(tmp_path):
    r = run("--quiet-seconds", "5", "--", str(tmp_path / "missing"))
    assert r.returncode == 2
    assert "cannot run" in r.stderr
