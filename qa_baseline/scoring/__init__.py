"""Scoring: a submission -> its scores, or many -> the leaderboard; none of it imports the retrieval side.

validate.py: the plumbing of the tasks' strict submission validators (`FILE:LINE: what (fix: how)`);
metrics.py: every measure, declared once (MEASURES, TREC_EVAL); trec_eval.py: trec_eval for TREC run files;
significance.py: bootstrap intervals, the paired randomisation test, Holm's correction; leaderboard.py: many
submissions ranked; score.py: the `score` command (`python -m qa_baseline.score`)."""
