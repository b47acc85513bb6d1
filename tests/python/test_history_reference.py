"""The change-point detector (pmubench.history.edivisive) pinned on
reference series generated for pmubench with planted steps
(fixtures/history/reference_series.json: each series says how it was
made): in faithful mode (E-divisive as published, the mode Apache Otava
follows) and in the default, corrected mode, the change points found are
the planted steps, at their index, with their segment means (the default
also reports the planted one-commit outlier as a spike, and the step's
mean before it without that outlier); on flat noise the faithful mode
finds the spurious point the correction removes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import REPO_ROOT
from pmubench.history import edivisive

FIXTURE = REPO_ROOT / "tests/python/fixtures/history/reference_series.json"
SERIES = json.loads(FIXTURE.read_text(encoding="utf-8"))["series"]


@pytest.mark.parametrize("mode", ["faithful", "default"])
@pytest.mark.parametrize("series", SERIES, ids=[s["name"] for s in SERIES])
def test_reference_series_change_points(series, mode):
    found, _ = edivisive.detect(np.array(series["values"]), window=30, max_pvalue=0.001,
                                faithful=mode == "faithful")
    got = [(c.index, c.kind, round(c.mean_before, 3), round(c.mean_after, 3)) for c in found]
    expected = [(e["index"], e.get("kind", "step"), e["mean_before"], e["mean_after"])
                for e in series["expected"][mode]]
    assert got == expected
    assert all(c.p_value < 0.001 for c in found)


def test_the_references_hold_the_planted_steps():
    planted = {"two_steps": [40, 70], "heavy_tails": [50], "outlier_then_step": [35],
               "flat_noise": []}
    for series in SERIES:
        assert [e["index"] for e in series["expected"]["default"]
                if e.get("kind", "step") == "step"] == planted[series["name"]]
    flat = next(s for s in SERIES if s["name"] == "flat_noise")
    assert [e["index"] for e in flat["expected"]["faithful"]] == [56]
