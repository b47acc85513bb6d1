"""Developer helpers (not product tools): the test runner's parsers."""
