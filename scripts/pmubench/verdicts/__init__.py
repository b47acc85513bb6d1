"""Statistics and verdicts, the pure functions behind scripts/compare.py.

  thresholds  per-metric default thresholds, --threshold parsing
  stats       Mann-Whitney U, confidence interval of the change, geomean
              (one row, or many rows at once with numpy)
  rows        a row of a comparison: its sides, mode and verdict
  work        whether a case's work changed between the files: its
              label, items or bytes per iteration
  gates       what a comparison could catch: the inconclusive reason,
              blind benchmarks, refused --threshold rules, selectors
              that name no metric
  comparison  rows, verdicts, geomeans, notes, the exit code
              (0 pass, 1 regression, 4 inconclusive)
"""
