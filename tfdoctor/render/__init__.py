"""Ways to show a report: text for a terminal, markdown for a bug report, JSON for scripts."""
