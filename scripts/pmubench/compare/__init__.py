"""The pure functions behind scripts/compare.py.

  thresholds  per-metric default thresholds, --threshold parsing
  stats       Mann-Whitney U, confidence interval of the change, geomean
  matching    pairs runs of two files by name; per-metric samples
  comparison  rows, verdicts, geomeans, notes, the exit code
  formatting  numbers, changes and intervals as text
  render_text, render_markdown, render_json  the three output formats
  merge       joins repetitions from several runs (ci_compare.sh --rounds,
              front scripts/merge.py)
"""
