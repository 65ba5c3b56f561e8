"""`python -m qa_baseline.eval`, the same as `qa-baseline eval`: qa_baseline/scoring/trec_eval.py."""
import sys

from .scoring.trec_eval import main

if __name__ == "__main__":
    sys.exit(main())
