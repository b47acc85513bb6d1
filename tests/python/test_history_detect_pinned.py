"""detect's answer on a generated history, pinned: every change point
(commit, before, after, p-value, kind) of a first detection and of the
detection after one more run, as the detector found them before its speed
work (fixtures/history/detect_pinned.json, written by this file's
_detect_both on the code of commit 546f93d). A faster load or detector that
moves one point, or one digit of a p-value, fails here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import REPO_ROOT
from pmubench.history import detect, ingest, output, series, store, synthetic

PINNED = REPO_ROOT / "tests" / "python" / "fixtures" / "history" / "detect_pinned.json"
T0 = 1.7e9
COMMITS = 160


def _values(i: int, rng) -> dict:
    """Commit i: per benchmark an exact count (a step at 60 and 120 in one of
    three), a noisy time (a step at 80 in one of four, a spike at 100 in one
    of five) and a time of noise only."""
    out = {}
    for b in range(12):
        count = 5000.0 + b + (7 * (i >= 60) + 3 * (i >= 120)) * (b % 3 == 0)
        level = 100.0 + b + 15 * (i >= 80) * (b % 4 == 0) + 30 * (i == 100) * (b % 5 == 0)
        out[f"BM_{b}"] = {"instructions": [count] * 3,
                          "real_time": list(level + rng.normal(0, 1, 3)),
                          "cpu_time": list(100.0 + b + rng.normal(0, 1, 3))}
    return out


def _ingest(engine, template: ingest.Prepared, run: int, commit: int, rng) -> None:
    """Run `run` (its file's hash) at commit `commit`, two hours a commit."""
    values = _values(commit, rng)
    template.values = {(b, m): v for b, metrics in values.items() for m, v in metrics.items()}
    template.content_hash = f"{run:064x}"
    when = T0 + commit * 7200 + (3600 if run != commit else 0)
    ingest.write(engine, template, f"{commit:040x}", "main", when, None)


def _detect(engine) -> dict:
    refreshed = detect.refresh(engine, "main", detect.Params())
    return json.loads(output.detect_json("main", refreshed, refreshed.changes(), {}))


def _detect_both(tmp_path) -> tuple[dict, dict]:
    """The first detection over COMMITS commits (every 9th with a second run
    an hour later), then the one after run COMMITS + 1."""
    path = synthetic.write(str(tmp_path / "run.json"),
                           synthetic.run(T0, _values(0, np.random.default_rng(0)), "perf_event"))
    template = ingest.prepare(path)
    engine = store.open_store(str(tmp_path / "h.db"), create=True)
    rng = np.random.default_rng(11)
    for i in range(COMMITS):
        _ingest(engine, template, i, i, rng)
        if i % 9 == 4:
            _ingest(engine, template, 1000 + i, i, rng)
    first = _detect(engine)
    _ingest(engine, template, COMMITS, COMMITS, rng)
    after = _detect(engine)
    engine.dispose()
    return first, after


@pytest.mark.parametrize("whole_table", [False, True])
def test_detect_finds_what_it_found_before(tmp_path, monkeypatch, whole_table):
    """Either way of loading the samples (each series through its index, or
    the whole table in one pass, as for many series) finds the same."""
    if whole_table:
        monkeypatch.setattr(series, "WHOLE_TABLE_SERIES", 0)
    first, after = _detect_both(tmp_path)
    pinned = json.loads(PINNED.read_text())
    assert first == pinned["first"]
    assert after == pinned["after_one_run"]
    assert after["appended"] == 36 and after["recomputed"] == 0
