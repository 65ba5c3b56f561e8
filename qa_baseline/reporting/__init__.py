"""Reporting: run rows -> the overview paper's tables and figure.

rows.py: the run row (row.json) that `run` writes and `report` reads; render.py: tables as Markdown, LaTeX,
CSV or JSON; plot.py: the figure; report.py: the `report` command (`python -m qa_baseline.report`)."""
