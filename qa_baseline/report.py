"""`python -m qa_baseline.report`, the same as `qa-baseline report`: qa_baseline/reporting/report.py."""
import sys

from .reporting.report import main

if __name__ == "__main__":
    sys.exit(main())
