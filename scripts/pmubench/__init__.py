"""pmubench's Python tools: the JSON model, compare and report.

  benchjson  loads and validates Google Benchmark JSON as pmubench writes it
  atomic     writes a file whole or not at all
  compare/   the pure functions behind scripts/compare.py (and scripts/merge.py)
  report/    the pure planning and the matplotlib drawing behind reports/plot.py

The command lines are thin fronts beside it: scripts/compare.py and
scripts/merge.py import it directly (their directory is sys.path[0]),
reports/plot.py through the symbolic link reports/pmubench, and pytest
through `pythonpath = scripts` in pytest.ini. No code edits sys.path.
"""
