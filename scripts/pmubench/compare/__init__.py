"""The pure functions behind scripts/compare.py.

  thresholds  per-metric default thresholds, --threshold parsing
  stats       Mann-Whitney U, confidence interval of the change, geomean
              (one row, or many rows at once with numpy)
  matching    pairs runs of two files by name; per-metric samples
  comparison  rows, verdicts, geomeans, notes, the exit code
              (0 pass, 1 regression, 4 inconclusive)
  gates       what a comparison could catch: the inconclusive reason,
              blind benchmarks, refused --threshold rules, selectors
              that name no metric
  machines    the counting backend (callgrind: simulated counts) and the
              machine each file came from
  formatting  numbers, changes and intervals as text
  render_text, render_markdown, render_json  the three output formats
  merge       joins repetitions from several runs (ci_compare.sh --rounds,
              front scripts/merge.py)
"""
