"""The report behind reports/plot.py (the report layer; reports/README.md
maps it).

  series           pure: runs -> per-benchmark statistics, families, axes,
                   units
  model            the report: files, sections, figures with their
                   Drawing, tables; PNG names
  plan             which figures a file's sections get (a sweep figure per
                   family that sweeps an argument, bars, spread) and what
                   each shows
  plan_comparison  the comparison section: changes against the baseline,
                   paired sweeps, compare's verdicts
  sizes            how many rows a figure holds (planning and drawing)
  draw             the only module that imports matplotlib; one PNG per call
                   (sweep_figure, bars_figure, spread_figure,
                   comparison_figure, profile_figure)
  build            plans, then draws, section by section
  profile_plot     one bar chart per profiled case (python3 -m)
  flame_plot       an SVG flame graph of folded stacks
  html_page        lays a model.Report out as index.html
  write            loads, builds and publishes a whole report directory
  progress         the progress line plot.py prints on stderr
  outdir           replaces the report directory whole
"""
