"""The results history: every run of main kept in a database, change
points found per series, a pull request judged against main's history,
and a trend report. scripts/history.py is the command line; docs/history.md
the user's page."""
