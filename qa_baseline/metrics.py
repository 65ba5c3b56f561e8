"""Metrics, each declared once as a per-question function; a system's score is the mean of its per-question
values over all questions of the test set (as in ir_measures). Task modules (qa_baseline/tasks) turn one
question's prediction into the arguments below and collect the values with `summarise`.

Ranked lists are given as `rels`: 1 or 0 for each returned item, best first (see `rank_by_score`)."""
import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """A measure's name (as rows, `score` and the report print it), what it is, and whether papers give it in
    per cent (accuracy, EM) or as a fraction (MRR, MAP, F1)."""
    name: str
    definition: str
    percent: bool = False


MEASURES = {m.name: m for m in (
    Measure("accuracy", "share of questions whose chosen option is the gold one (IJCNLP-2017 T5)", True),
    Measure("MRR", "mean of 1/rank of the first correct item, 0 without one"),
    Measure("MRR_supported", "MRR counting an answer only with a gold supporting document (the QAC-2 rule)"),
    Measure("MAP", "mean NLPCC AveP: sum of precision at each correct item / min(m, n)"),
    Measure("ACC@1", "share of questions whose top-ranked item is correct (NLPCC DBQA)"),
    *(Measure(f"accuracy@{k}", f"share of questions with a correct answer among the first {k}") for k in range(1, 6)),
    Measure("has_answer_accuracy", "share of questions whose Has-Answer equals whether a gold answer exists"),
    Measure("precision", "answer-set precision, averaged over questions (NLPCC KBQA)"),
    Measure("recall", "answer-set recall, averaged over questions (NLPCC KBQA)"),
    Measure("F1", "answer-set F1, averaged over questions (NLPCC KBQA)"),
    Measure("AFM", "average F-measure of answer lists with the no-answer rule (NTCIR QAC-1 tasks 2, 3)"),
    Measure("EM", "share of exact matches after normalisation (NTCIR Data Search)", True),
    Measure("token_F1", "token-set F1, best over the acceptable answers, averaged (NTCIR Data Search)"),
)}
_QUALIFIED = re.compile(r"(.+)\[[^\]]*\]")  # accuracy[en], accuracy[gaokao-history]: a measure over a part


def measure(name):
    """The Measure of a metric name (also of NAME[part]); KeyError for undeclared names."""
    m = _QUALIFIED.fullmatch(name)
    return MEASURES[m.group(1) if m else name]


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def summarise(per_question):
    """{"metrics": metric -> mean, "per_question": metric -> values in question order}; every name is a
    declared measure (MEASURES)."""
    for name in per_question:
        measure(name)
    return {"metrics": {name: mean(values) for name, values in per_question.items()}, "per_question": per_question}


# --- one label per question ---------------------------------------------------------------------------------

def correct(pred, gold):
    return float(pred == gold)


# --- ranked lists -------------------------------------------------------------------------------------------

def rank_by_score(scores):
    """Positions of SCORES, highest score first; equal scores keep their input order (a stable sort)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def reciprocal_rank(rels):
    """1/rank of the first relevant item, 0 when there is none (MRR is its mean)."""
    return next((1.0 / k for k, rel in enumerate(rels, 1) if rel), 0.0)


def average_precision(rels, m):
    """NLPCC DBQA AveP(C, A) = sum_k P(k) rel(k) / min(m, n); m = correct items in all, n = len(rels);
    0 when min(m, n) is 0. (trec_eval's AP divides by m: they differ when fewer than m items are ranked.)"""
    denominator = min(m, len(rels))
    if not denominator:
        return 0.0
    found, total = 0, 0.0
    for k, rel in enumerate(rels, 1):
        if rel:
            found += 1
            total += found / k
    return total / denominator


def hit_at(rels, n):
    """Accuracy@N: 1 when a relevant item is among the first N (ACC@1 is hit_at(rels, 1))."""
    return float(any(rels[:n]))


# --- answer sets --------------------------------------------------------------------------------------------

def prf(n_pred, n_gold, n_correct):
    """(precision, recall, F1) from counts; all 0 when nothing is correct (so for an empty answer set too)."""
    if not n_correct:
        return 0.0, 0.0, 0.0
    p, r = n_correct / n_pred, n_correct / n_gold
    return p, r, 2 * p * r / (p + r)


def set_prf(pred, gold):
    """Precision, recall and F1 of the set PRED against the set GOLD."""
    pred, gold = set(pred), set(gold)
    return prf(len(pred), len(gold), len(pred & gold))


def qac_f(n_pred, n_gold, n_correct):
    """NTCIR QAC F-measure with the no-answer rule: a question without gold answer scores 1 for an empty
    answer list and 0 for any answer."""
    if not n_gold:
        return float(not n_pred)
    return prf(n_pred, n_gold, n_correct)[2]


# --- answer strings -----------------------------------------------------------------------------------------

def normalize(text):
    """Answer string for matching: Unicode NFKC, case-folded, inner whitespace runs as one space, leading and
    trailing whitespace and punctuation (Unicode categories P*: .,;:!?'"()[]-%#&*/@ 。、「」...) removed.
    Symbols ($, +, =) and inner punctuation are kept."""
    text = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(text)
    while start < end and _strippable(text[start]):
        start += 1
    while end > start and _strippable(text[end - 1]):
        end -= 1
    return text[start:end]


def _strippable(char):
    return char.isspace() or unicodedata.category(char).startswith("P")


def match_answers(answers, gold):
    """rels of a ranked answer list against GOLD, a list of gold answers each given as a list of accepted
    spellings: an answer is correct when it normalises to a spelling of a gold answer that no earlier answer
    matched (so a repeated answer counts once). None stands for an answer that must not match."""
    spellings = [{normalize(s) for s in accepted} for accepted in gold]
    matched, rels = set(), []
    for answer in answers:
        key = None if answer is None else normalize(answer)
        hit = next((j for j, s in enumerate(spellings) if j not in matched and key in s), None)
        if hit is not None:
            matched.add(hit)
        rels.append(int(hit is not None))
    return rels


def tokens(text):
    """Token set: whitespace-separated tokens, each normalised; tokens that were only punctuation dropped."""
    return {t for t in (normalize(w) for w in text.split()) if t}


def exact_match(pred, golds):
    """1 when PRED normalises to one of the acceptable gold answers GOLDS."""
    return float(normalize(pred) in {normalize(g) for g in golds})


def token_f1(pred, golds):
    """Best F1 over GOLDS of token sets: P = |X & Y| / |X|, R = |X & Y| / |Y| (X predicted, Y gold tokens)."""
    return max(set_prf(tokens(pred), tokens(g))[2] for g in golds)
