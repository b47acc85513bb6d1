"""pmubench.base.pipe_size: a large report's pipe is widened; anything
that is not a pipe is left alone."""

from __future__ import annotations

import fcntl
import io
import os
import subprocess
import sys

from pmubench.base import pipe_size

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts")


def _limit() -> int:
    with open("/proc/sys/fs/pipe-max-size", encoding="ascii") as f:
        return int(f.read())


def test_a_pipe_is_widened_up_to_the_limit():
    r, w = os.pipe()
    with os.fdopen(r, "rb") as reader, os.fdopen(w, "wb") as writer:
        size = min(pipe_size.WIDE, _limit())
        assert pipe_size.widen(writer, size)
        assert fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ) >= size


def test_a_file_a_stream_without_a_descriptor_and_a_refusal_are_left(tmp_path):
    with open(tmp_path / "out", "w", encoding="utf-8") as f:
        assert not pipe_size.widen(f)
    assert not pipe_size.widen(io.StringIO())
    r, w = os.pipe()
    with os.fdopen(r, "rb"), os.fdopen(w, "wb") as writer:
        before = fcntl.fcntl(writer.fileno(), fcntl.F_GETPIPE_SZ)
        # Over the limit an unprivileged process is refused (EPERM); as
        # root the kernel allows it, and says so.
        widened = pipe_size.widen(writer, _limit() * 2)
        after = fcntl.fcntl(writer.fileno(), fcntl.F_GETPIPE_SZ)
        assert widened == (after >= _limit() * 2)
        assert widened or after == before


def test_compare_widens_its_standard_output_pipe(tmp_path):
    """compare.py writing to a pipe leaves it WIDE (the reader's end says
    so once the writer has ended), and its output is whole."""
    run = {"name": "BM_X", "run_name": "BM_X", "run_type": "iteration",
           "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10,
           "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns", "instructions": 100.0}
    path = tmp_path / "a.json"
    path.write_text('{"context": {}, "benchmarks": [' + str(run).replace("'", '"') + "]}")
    r, w = os.pipe()
    proc = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "compare.py"), str(path),
                             str(path), "--format", "json"], stdout=w)
    os.close(w)
    with os.fdopen(r, "rb") as reader:
        out = reader.read()
        size = fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ)
    assert proc.wait() == 0
    assert out.rstrip().endswith(b"}")
    assert size >= min(pipe_size.WIDE, _limit())
