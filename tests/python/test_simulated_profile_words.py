"""A profile callgrind counted says instructions, never samples, in the
report (issue 30, item 7); a sampled one still says samples."""

from __future__ import annotations

from pmubench.report import profile_plot


def _case(event: str) -> profile_plot.CaseProfile:
    return profile_plot.CaseProfile("BM_X", event, 8153,
                                    [{"symbol": "f()", "samples": 8153, "share": 1.0}], [])


def test_a_counted_profile_says_instructions():
    counted = _case("callgrind/instructions/")
    assert profile_plot.is_counted(counted)
    assert profile_plot.axis_label(counted) == "% of the instructions of the measured segment"
    text = profile_plot.caption(counted)
    assert text.startswith("Share of the 8153 instructions of the measured segment")
    assert "sample" not in text and "sample" not in profile_plot.axis_label(counted)


def test_a_sampled_profile_says_samples():
    sampled = _case("cpu-clock@100000")
    assert not profile_plot.is_counted(sampled)
    assert profile_plot.axis_label(sampled) == "% of cpu-clock@100000 samples"
    assert "8153 cpu-clock@100000 samples of one extra batch" in profile_plot.caption(sampled)
