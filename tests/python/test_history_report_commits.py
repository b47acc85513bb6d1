"""The trend report's first screen and charts as a person reads them, on a
history whose commits are a real git repository's: the change points
grouped by commit (one row per commit and benchmark, its metrics
together), the charts' x axes naming commits by short SHA with the
subject on hover (read from the checkout, `report --repo`), and a spike
marked at its commit with the segment's mean drawn without it. The page
is opened in headless Chromium, which reports what it drew."""

from __future__ import annotations

import json
import os
import re
import subprocess

import numpy as np
import pytest

from pmubench.history import synthetic
from test_history_report import CHROMIUM, _browse
from test_history_sqlite import history

T0 = 1.7e9
COMMITS, STEP_AT, SPIKE_AT = 40, 20, 30
SUBJECTS = {STEP_AT: "Speed up <the> parser & co", SPIKE_AT: "Regress the inner loop"}

# Reports each chart's pieces as the browser laid them out.
PROBE = """<script>
window.addEventListener('load', () => {
  const mid = e => { const b = e.getBBox(); return b.x + b.width / 2; };
  const title = e => { const t = e.querySelector('title'); return t ? t.textContent : ''; };
  const charts = [...document.querySelectorAll('svg.chart')].map(s => ({
    label: s.getAttribute('aria-label'),
    ticks: [...s.querySelectorAll("g.tick text")].map(t => [t.firstChild.nodeValue, mid(t),
                                                             title(t), t.getBBox().width]),
    spikes: [...s.querySelectorAll('circle.spike')].map(c => [mid(c), title(c)]),
    steps: [...s.querySelectorAll('line.step')].map(l => [mid(l), title(l)]),
    means: [...s.querySelectorAll('line.mean')].map(title),
    bands: [...s.querySelectorAll('g.hover rect')].map(title)}));
  const pre = document.createElement('pre'); pre.id = '__probe';
  pre.textContent = JSON.stringify(charts);
  document.body.appendChild(pre);
});
</script>"""


def _git(repo: str, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost"}
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def _time(i: int) -> float:
    """BM_T's time at commit i: 10, +40% from STEP_AT, a one-commit spike
    of +6 at SPIKE_AT, and a small deterministic wobble."""
    level = 14.0 if i >= STEP_AT else 10.0
    return level + (i * 7 % 5) * 0.05 + (6.0 if i == SPIKE_AT else 0.0)


def _history(tmp_path) -> tuple[str, str, list[str]]:
    """(db, repo, commit SHAs): a git repository of COMMITS commits and a
    history with one run of each, BM_T's count stepping with its times."""
    repo = str(tmp_path / "repo")
    os.makedirs(repo)
    _git(repo, "init", "-q", "-b", "main")
    db, shas = str(tmp_path / "h.db"), []
    for i in range(COMMITS):
        _git(repo, "commit", "-q", "--allow-empty", "-m", SUBJECTS.get(i, f"Commit {i}"),
             "-m", "A body line that is not the subject.")
        shas.append(_git(repo, "rev-parse", "HEAD"))
        t = _time(i)
        values = {"BM_T": {"real_time": [t] * 3, "cpu_time": [t * 0.99] * 3,
                           "instructions": [1000.0 if i < STEP_AT else 1400.0] * 3}}
        path = synthetic.write(str(tmp_path / f"{i}.json"), synthetic.run(
            T0 + 3600 * i, values, backend="perf_event"))
        done = history("ingest", "--db", db, "--commit", shas[-1], "--branch", "main", path)
        assert done.returncode == 0, done.stderr
    return db, repo, shas


def _rows(page: str) -> list[str]:
    with open(page, encoding="utf-8") as f:
        return re.findall(r'<tr class="change">(.*?)</tr>', f.read(), re.S)


def test_first_screen_has_one_row_per_commit_and_benchmark(tmp_path):
    db, repo, shas = _history(tmp_path)
    outdir = str(tmp_path / "report")
    done = history("report", "--db", db, "-o", outdir, "--repo", repo)
    assert done.returncode == 0, done.stderr
    rows = _rows(os.path.join(outdir, "machine-1.html"))
    # The step: one row with its three metrics; the spike: one row with
    # both times (the count did not move there).
    assert len(rows) == 2, rows
    spike, step = rows  # newest first
    assert shas[STEP_AT][:12] in step and shas[SPIKE_AT][:12] in spike
    for metric in ("real_time", "cpu_time", "instructions"):
        assert step.count(f"<div>{metric}</div>") == 1, step
    assert "instructions" not in spike and spike.count("spike (returned)") == 2
    assert "1,000 → 1,400 (+400)" in step
    # the subject from the checkout, escaped; the body line is not shown
    assert "Speed up &lt;the&gt; parser &amp; co" in step
    assert "Regress the inner loop" in spike and "A body line" not in spike
    with open(os.path.join(outdir, "index.html"), encoding="utf-8") as f:
        assert f"Commit subjects: {COMMITS} of {COMMITS} commits" in f.read()


def test_outside_a_checkout_the_report_names_shas_only(tmp_path):
    db, _, shas = _history(tmp_path)
    outdir = str(tmp_path / "report")
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    done = history("report", "--db", db, "-o", outdir, cwd=str(elsewhere))
    assert done.returncode == 0, done.stderr
    step = _rows(os.path.join(outdir, "machine-1.html"))[1]
    assert shas[STEP_AT][:12] in step and "Speed up" not in step
    with open(os.path.join(outdir, "index.html"), encoding="utf-8") as f:
        assert "Commit subjects: not known" in f.read()
    # a --repo that is not a checkout is refused before anything is written
    bad = history("report", "--db", db, "-o", str(tmp_path / "r2"), "--repo", str(elsewhere))
    assert bad.returncode == 2 and "--repo" in bad.stderr and "not a git checkout" in bad.stderr
    assert not os.path.exists(tmp_path / "r2")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                             "(apt-get install chromium)")
def test_charts_name_commits_and_draw_the_spike_apart(tmp_path):
    db, repo, shas = _history(tmp_path)
    outdir = str(tmp_path / "report")
    assert history("report", "--db", db, "-o", outdir, "--repo", repo).returncode == 0
    charts = {c["label"]: c for c in _browse(os.path.join(outdir, "machine-1.html"),
                                             str(tmp_path / "profile"), PROBE)}
    chart = charts["BM_T real_time"]
    ticks = {t[0]: t for t in chart["ticks"]}
    # the step's and the spike's commits are named on the axis, drawn, at
    # the x of their marks, the subject on hover
    step_x, step_title = chart["steps"][0]
    assert len(chart["steps"]) == 1 and shas[STEP_AT][:12] in step_title
    tick = ticks[shas[STEP_AT][:7]]
    assert tick[3] > 0 and abs(tick[1] - step_x) < 1 and "Speed up <the> parser" in tick[2]
    assert len(chart["spikes"]) == 1
    spike_x, spike_title = chart["spikes"][0]
    assert spike_title == f"spike: {shas[SPIKE_AT][:12]} Regress the inner loop"
    assert abs(ticks[shas[SPIKE_AT][:7]][1] - spike_x) < 1
    assert len(ticks) >= 5 and shas[0][:7] in ticks and shas[-1][:7] in ticks
    # every commit can be hovered (40 commits: a band each), with its subject
    assert len(chart["bands"]) == COMMITS
    assert chart["bands"][SPIKE_AT] == f"{shas[SPIKE_AT][:12]} Regress the inner loop"
    # the second level's mean leaves the spike out
    medians = [_time(i) for i in range(COMMITS)]
    without = np.mean([m for i, m in enumerate(medians[STEP_AT:], STEP_AT) if i != SPIKE_AT])
    with_spike = np.mean(medians[STEP_AT:])
    assert chart["means"][1] == (f"mean {without:.4g}, {shas[STEP_AT][:7]} to "
                                 f"{shas[-1][:7]}"), chart["means"]
    assert f"{without:.4g}" != f"{with_spike:.4g}"
    print(json.dumps({k: v for k, v in chart.items() if k != "bands"}, indent=1))
