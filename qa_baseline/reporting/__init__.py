"""Reporting: run rows -> the overview paper's tables and figure; submissions -> the leaderboard.

rows.py: the run row (row.json) that `run` writes and `report` reads; render.py: tables as Markdown, LaTeX,
CSV or JSON; plot.py: the figure; report.py: the tables and figure panels of the `report` command
(qa_baseline/report.py); leaderboard.py: many submissions ranked (`score --submissions`); site.py: the
results page."""
