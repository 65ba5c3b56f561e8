"""Scoring, a library: measures, validation, significance, trec_eval; it imports neither the retrieval side nor
reporting/ nor the commands.

validate.py: the plumbing of the tasks' strict submission validators (`FILE:LINE: what (fix: how)`);
metrics.py: every measure, declared once (MEASURES, TREC_EVAL); trec_eval.py: trec_eval for TREC run files;
significance.py: bootstrap intervals, the paired randomisation test, Holm's correction; tukey.py: randomised
Tukey HSD. The `score` and `eval` commands are qa_baseline/score.py and qa_baseline/eval.py."""
