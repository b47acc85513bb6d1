"""The trend report (history.py report) and the report reports/plot.py
writes, opened in a real browser (Debian's chromium, headless): no console
or script errors, every image loads, every chart is drawn, every link
leads to a file and an anchor that exist. A screenshot of the trend page is
kept beside it (report/shot.png) for a person to look at."""

from __future__ import annotations

import html
import html.parser
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import PYTHON, REPO_ROOT
from pmubench.history import ingest, store, synthetic
from test_history_sqlite import DAY, T0, _sha, _values, history

CHROMIUM = shutil.which("chromium")

# Runs first in the page: records errors, makes lazy images eager (so the
# load event waits for them), then on load checks every image, counts drawn
# charts, and writes the findings into the DOM that --dump-dom prints.
PROBE = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || e.target.src)), true);
window.addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push(a.join(' ')); __consoleError(...a); };
document.addEventListener('DOMContentLoaded', () => {
  for (const im of document.images) im.loading = 'eager';  // the load event waits for them
});
window.addEventListener('load', () => {
  const images = [...document.images];
  const broken = images.filter(i => !(i.complete && i.naturalWidth > 0))
                       .map(i => i.getAttribute('src'));
  const charts = [...document.querySelectorAll('svg')];
  // a sparkline of a constant series is a flat line: width but no height
  const empty = charts.filter(s => { const b = s.getBBox();
    return s.classList.contains('spark') ? !(b.width > 0) : !(b.width > 0 && b.height > 0); });
  const pre = document.createElement('pre'); pre.id = '__probe';
  pre.textContent = JSON.stringify({errors: window.__errors, images: images.length,
                                    broken, svgs: charts.length, empty: empty.length});
  document.body.appendChild(pre);
});
</script>"""


def _browse(page: str, profile: str, probe: str = PROBE) -> dict:
    """The probe's findings for page (a copy of it with the probe first):
    a script that writes them as JSON into <pre id="__probe">."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    probed = os.path.join(os.path.dirname(page), "__probe_" + os.path.basename(page))
    with open(probed, "w", encoding="utf-8") as f:
        f.write(text.replace("<head>", "<head>" + probe, 1))
    try:
        done = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={profile}", "--virtual-time-budget=10000",
             "--run-all-compositor-stages-before-draw", "--dump-dom",
             "file://" + probed], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(probed)
    found = re.search(r'<pre id="__probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"the probe did not run in {page}: {done.stdout[-1500:]}"
    return json.loads(html.unescape(found.group(1)))


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "href" and tag == "a":
                self.hrefs.append(value)
            if name == "id":
                self.ids.add(value)


def _links(page: str) -> _Links:
    parser = _Links()
    with open(page, encoding="utf-8") as f:
        parser.feed(f.read())
    return parser


def _check_links(outdir: str) -> int:
    """Every link of every page leads to a page and an anchor that exist."""
    checked = 0
    for name in os.listdir(outdir):
        if not name.endswith(".html"):
            continue
        for href in _links(os.path.join(outdir, name)).hrefs:
            assert "://" not in href, f"{name}: external link {href}"
            target, _, anchor = href.partition("#")
            path = os.path.join(outdir, target or name)
            assert os.path.exists(path), f"{name}: broken link {href}"
            if anchor:
                assert anchor in _links(path).ids, f"{name}: no anchor for {href}"
            checked += 1
    return checked


def _history_db(tmp_path) -> str:
    db = str(tmp_path / "h.db")
    engine = store.open_store(db, create=True)
    rng = np.random.default_rng(1)
    for i in range(40):
        values = _values(i, step_at=25)
        values["BM_C"] = {"callgrind/instructions/": [2000.0 if i < 30 else 1900.0] * 3,
                          "real_time": list(50 + rng.normal(0, 1, 3) + (5 if i >= 12 else 0))}
        for cpus in (2, 4):  # two machine identities
            path = synthetic.write(str(tmp_path / f"r{i}-{cpus}.json"),
                                   synthetic.run(T0 + i * DAY, values, cpus=cpus))
            prepared = ingest.prepare(path)
            ingest.write(engine, prepared, _sha(i), "main", prepared.time, None)
    engine.dispose()
    return db


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                             "(apt-get install chromium)")
def test_trend_report_in_a_browser(tmp_path):
    db = _history_db(tmp_path)
    points = json.loads(history("detect", "--db", db, "--format", "json").stdout)
    machine = points["change_points"][0]["machine"]
    assert history("ack", "--db", db, "--machine", machine, "--benchmark", "BM_A",
                   "--metric", "callgrind/instructions/", "--commit", _sha(25),
                   "--note", "expected").returncode == 0
    outdir = str(tmp_path / "report")
    done = history("report", "--db", db, "-o", outdir)
    assert done.returncode == 0, done.stderr
    pages = sorted(n for n in os.listdir(outdir) if n.endswith(".html"))
    assert pages == ["index.html", "machine-1.html", "machine-2.html"]
    assert _check_links(outdir) > 20
    seen = {}
    for page in pages:
        found = seen[page] = _browse(os.path.join(outdir, page), str(tmp_path / "profile"))
        assert found["errors"] == [] and found["broken"] == [], (page, found)
        assert found["empty"] == 0, (page, found)
    # 2 changed series charted (the real_time steps are valgrind's: never
    # judged, so no change point), 9 sparklines in the overview
    assert seen["machine-1.html"]["svgs"] == 2 + 9
    with open(os.path.join(outdir, "machine-1.html"), encoding="utf-8") as f:
        text = f.read()
    assert "Acknowledged (1)" in text and "Open change points, newest first (1)" in text
    assert "2,000 → 1,900 (-100)" in text
    assert text.count("valgrind&#x27;s time, not the code&#x27;s: never judged") == 6
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,2400",
                    f"--screenshot={outdir}/shot.png", "file://" + outdir + "/machine-1.html"],
                   capture_output=True, timeout=120)
    assert os.path.getsize(os.path.join(outdir, "shot.png")) > 10000


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                             "(apt-get install chromium)")
def test_plot_report_in_a_browser(tmp_path):
    outdir = str(tmp_path / "plots")
    done = subprocess.run([PYTHON, str(REPO_ROOT / "reports" / "plot.py"),
                           str(REPO_ROOT / "tests/python/fixtures/plot/run_base.json"),
                           "-o", outdir], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = _browse(os.path.join(outdir, "index.html"), str(tmp_path / "profile"))
    assert found["errors"] == [] and found["broken"] == [], found
    assert found["images"] >= 4
    _check_links(outdir)
