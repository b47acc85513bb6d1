"""pmubench's Python tools in one package, in layers: each folder is a
layer and imports only from itself and the layers below it (LAYERS;
scripts/dev/check_layers.py checks that, and that no modules import each
other in a circle).

  base/      what every tool starts with: launch (the one launch rule:
             the right interpreter, or what to install), exits (the exit
             codes), atomic (a file written whole or not at all),
             stop_signals, front (the one wrapper of every verdict entry
             point: stop signals, crashes, exit codes)
  runs/      reading runs: benchjson (Google Benchmark JSON as pmubench
             writes it), matching (pairs two files' runs), merge (joins
             rounds), machines (backend and machine of a file), folded
             (folded call stacks)
  verdicts/  statistics and verdicts: stats, thresholds, rows, work,
             gates, comparison (compare's verdicts and exit code)
  render/    compare's output: compare_text, compare_markdown,
             compare_json, formatting
  report/    the HTML report behind reports/plot.py: what each figure
             shows is planned apart from the matplotlib drawing
  convert/   Google Benchmark source to pmubench (scripts/convert)
  history/   the results history behind scripts/history.py (docs/history.md)

The entry points sit above every layer, beside the package:
scripts/compare.py, scripts/merge.py, scripts/history.py, scripts/convert,
scripts/pmu-vm, scripts/test, reports/plot.py (reports/pmubench links
here), and `python3 -m pmubench.report.profile_plot`. Each starts with
pmubench.base.launch.ensure(); compare.py, merge.py and history.py run
their main through pmubench.base.front.run().

Standard library only, no syntax newer than Python 3.6: launch imports it.
"""

# Each layer with the layers right below it (each reaches theirs in turn),
# listed bottom up.
LAYERS = (
    ("base", ()),
    ("runs", ("base",)),
    ("verdicts", ("runs",)),
    ("render", ("verdicts",)),
    ("report", ("render",)),
    ("convert", ("base",)),
    ("history", ("report",)),
)
