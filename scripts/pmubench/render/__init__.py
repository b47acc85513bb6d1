"""compare's output: compare_text, compare_markdown, compare_json (the
three --format choices) and formatting (numbers, changes and intervals as
text, shared with the report's tables)."""
