"""Tests for scripts/pmubench/runs/filetext.py: benchjson.load reads a
regular file through a map of it and every other file the plain way, with
the same text, the same runs and the same errors as before."""

from __future__ import annotations

import json
import os
import subprocess
import threading

import pytest

from conftest import PYTHON, REPO_ROOT
from pmubench.runs import benchjson, filetext

RUN = {"name": "BM_A", "run_name": "BM_A", "run_type": "iteration", "repetitions": 1,
       "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 1.5,
       "cpu_time": 1.25, "time_unit": "ns", "instructions": 100.0, "label": "é"}
TEXT = json.dumps({"context": {}, "benchmarks": [RUN, dict(RUN, name="BM_B", run_name="BM_B")]},
                  indent=1, ensure_ascii=False)


def _runs(bench):
    return [(r.name, r.label, r.metrics) for r in bench.runs]


def test_a_regular_file_is_mapped_and_reads_as_the_plain_read(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(TEXT, encoding="utf-8")
    assert filetext.mapped_text(str(path)) == path.read_text(encoding="utf-8") == TEXT
    assert _runs(benchjson.load(str(path))) == _runs(
        benchjson.parse(benchjson.read_json(str(path)), str(path)))


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_carriage_returns_are_read_as_newlines_as_before(tmp_path, newline):
    path = tmp_path / "crlf.json"
    path.write_bytes(TEXT.replace("\n", newline).encode("utf-8"))
    assert filetext.mapped_text(str(path)) == TEXT.replace("\n", newline)
    assert _runs(benchjson.load(str(path))) == _runs(
        benchjson.load(_plain(tmp_path, TEXT)))
    # A JSON error names the line and column as the plain read's newlines
    # count them: between values, and a carriage return inside a string.
    broken = [TEXT[:-40], TEXT.replace('"label": "é"', '"label": "é\rx"', 1)]
    for text in broken:
        path.write_bytes(text.replace("\n", newline).encode("utf-8"))
        with pytest.raises(benchjson.BadInput) as mapped:
            benchjson.load(str(path))
        with pytest.raises(benchjson.BadInput) as plain:
            benchjson.read_json(str(path))
        assert str(mapped.value) == str(plain.value) and "line " in str(plain.value)


def _plain(tmp_path, text):
    path = tmp_path / "plain.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_empty_file_is_not_mapped_and_is_named_as_empty(tmp_path):
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert filetext.mapped_text(str(path)) is None
    with pytest.raises(benchjson.BadInput, match="is empty; was the benchmark run interrupted"):
        benchjson.load(str(path))


def test_bad_utf8_is_not_mapped_and_says_why_as_before(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(TEXT.encode("latin-1"))
    assert filetext.mapped_text(str(path)) is None
    with pytest.raises(benchjson.BadInput) as e:
        benchjson.load(str(path))
    assert str(e.value).startswith(f"{path}: cannot read: 'utf-8' codec can't decode")


def test_missing_files_and_directories_are_not_mapped(tmp_path):
    assert filetext.mapped_text(str(tmp_path / "absent.json")) is None
    assert filetext.mapped_text(str(tmp_path)) is None
    with pytest.raises(benchjson.BadInput, match="no such file"):
        benchjson.load(str(tmp_path / "absent.json"))
    with pytest.raises(benchjson.BadInput, match="is a directory"):
        benchjson.load(str(tmp_path))


def test_a_fifo_is_not_opened_by_the_map_and_reads_the_plain_way(tmp_path):
    fifo = str(tmp_path / "fifo.json")
    os.mkfifo(fifo)
    # Held open for reading and writing, the FIFO's data stays in it
    # unless something reads it: mapped_text must not.
    keep = os.open(fifo, os.O_RDWR)
    try:
        os.write(keep, b"{}")
        assert filetext.mapped_text(fifo) is None
        assert os.read(keep, 16) == b"{}"
    finally:
        os.close(keep)

    def write():
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(TEXT)
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert _runs(benchjson.load(fifo)) == _runs(benchjson.load(_plain(tmp_path, TEXT)))
    writer.join()


def test_dev_stdin_on_a_pipe_reads_the_plain_way():
    code = ("import sys; from pmubench.runs import benchjson; "
            "print([r.name for r in benchjson.load('/dev/stdin').runs])")
    out = subprocess.run([PYTHON, "-c", code], input=TEXT, capture_output=True, text=True,
                         check=True, cwd=REPO_ROOT, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "scripts")})
    assert out.stdout == "['BM_A', 'BM_B']\n"
