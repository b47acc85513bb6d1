"""The report behind reports/plot.py.

  series     pure: runs -> per-benchmark statistics, families, axes, units
  build      decides which plots a set of runs gets and describes them
  render     the only module that imports matplotlib; one PNG per call
  html_page  lays a build.Report out as index.html
  write      loads, renders and publishes a whole report directory
  progress   the progress line plot.py prints on stderr
  outdir     replaces the report directory whole
"""
