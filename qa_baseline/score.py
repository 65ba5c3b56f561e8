"""`python -m qa_baseline.score`, the same as `qa-baseline score`: qa_baseline/scoring/score.py."""
import sys

from .scoring.score import main

if __name__ == "__main__":
    sys.exit(main())
