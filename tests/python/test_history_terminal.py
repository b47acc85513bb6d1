"""Names with control characters print escaped in every line history.py
writes to a terminal (issue 38, item 11): one benchmark name forged a whole
"OK: no regression" line."""

from __future__ import annotations

import re

from pmubench.base.terminal import printable
from pmubench.history import ingest, store, synthetic
from test_history_sqlite import DAY, T0, _sha, history

FORGED = "BM_X\r\x1b[2K\nOK: no regression (head.json against main)\u202e"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _values(i: int) -> dict:
    return {FORGED: {"callgrind/instructions/": [1000.0 if i < 8 else 1100.0] * 3}}


def _series(tmp_path, db: str) -> None:
    engine = store.open_store(db, create=True)
    for i in range(14):
        path = synthetic.write(str(tmp_path / f"run{i}.json"),
                               synthetic.run(T0 + i * DAY, _values(i)))
        prepared = ingest.prepare(path)
        assert ingest.write(engine, prepared, _sha(i), "main", prepared.time, None)
    engine.dispose()


def _lines_are_clean(text: str) -> list[str]:
    assert not RAW.search(text), repr(text)
    return text.splitlines()


def test_detect_prints_a_forged_name_escaped_on_its_own_line(tmp_path):
    db = str(tmp_path / "h.db")
    _series(tmp_path, db)
    done = history("detect", "--db", db, separate=True)
    assert done.returncode == 0, done.stderr
    lines = _lines_are_clean(done.stdout)
    assert len(lines) == 2 and lines[0].startswith("1 change point ")
    assert "BM_X\\x0d\\x1b[2K\\x0aOK: no regression" in lines[1]


def test_judge_prints_a_forged_name_escaped(tmp_path):
    db = str(tmp_path / "h.db")
    _series(tmp_path, db)
    worse = {FORGED: {"callgrind/instructions/": [1300.0] * 3}}
    head = synthetic.write(str(tmp_path / "head.json"), synthetic.run(T0 + 30 * DAY, worse))
    done = history("judge", "--db", db, head, separate=True)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = _lines_are_clean(done.stdout)
    # the headline, the regressed row, one line for valgrind's times
    assert lines[0].startswith("REGRESSION") and len(lines) == 3
    assert lines[2].startswith("  unjudged")
    assert not any(line.startswith("OK") for line in lines)


def test_an_error_naming_a_forged_input_is_escaped(tmp_path):
    done = history("ingest", "--db", tmp_path / "h\x1b[31m.db", "--commit", "abc1234",
                   "--branch", "main", tmp_path / "no\rsuch.json", separate=True)
    assert done.returncode == 2
    _lines_are_clean(done.stderr)
    assert "no\\x0dsuch.json" in done.stderr


def test_printable_keeps_text_and_escapes_only_controls():
    assert printable("BM_Sort/1024 µs ünïcode") == "BM_Sort/1024 µs ünïcode"
    assert printable("a\tb\x7f\x85\ud800\u2066") == "a\\x09b\\x7f\\x85\\ud800\\u2066"
