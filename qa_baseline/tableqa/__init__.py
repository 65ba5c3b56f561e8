"""Table question answering over a dataset's tables (rules, no training data needed).

terms.py: words, stems and values of cells and questions; question.py: what a question asks (answer type,
target noun, numbers, operator cues); view.py: typed columns of a Table; linking.py: mentioned cells and
header scores; operators.py: what the operators share (direction, extremes, thresholds, most common value);
engine.py: the operators (difference, comparison, count, superlative, next / previous, lookup...), their
choice and the answer (`answer(question, tables)`)."""
from .engine import Answer, answer

__all__ = ["Answer", "answer"]
