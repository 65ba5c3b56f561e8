"""The QAC pipelines (NTCIR-3 QAC-1 tasks 1-3) over any corpus and retriever: retrieve the top `--passages`
passages, extract and rank short-answer candidates (qa_baseline/answers), then
- qac-1: the best 5 answers, each with its support document (the passage it is best supported by);
- qac-2: one answer list: every candidate whose score is within the fitted ratio of the best (at most
  `--max-list`), empty when the has-answer model says the collection has no answer;
- qac-3: as qac-2, question by question in series order: a follow-up's retrieval query adds the series' first
  and previous questions, and its candidate extraction also matches their words and drops strings that are
  in them or in their best answers (the rule's top candidate), so a pronoun or an elided topic still finds
  its passages.
The answer model is the rule unless `--train FILE` (a QAC TSV with answers) or `--folds K` (cross-fitting
on --data's own answers) fits the learned scorer (kept where it beats the rule on held-out folds), the
has-answer threshold and the list ratio (both for the mean F-measure)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...answers.features import Candidate
from ...answers.passages import Passage
from ...answers.scorers import Gold as Answers, RuleScorer, ranked
from ...answers.stage import Extracted, ExtractionStage, answer
from ...core.errors import UserError
from ...corpus.segment import document_id
from ..base import Components, Prediction
from .formats import TASK1_MAX, Gold, Question, answer_nothing, read_gold, read_questions

if TYPE_CHECKING:
    from . import QACSettings


def _contexts(questions: Sequence[Question], stage: ExtractionStage, desc: str = "questions") -> Extracted:
    """The passages and candidates of each question, in waves of series position so that each follow-up sees
    the best answers of its earlier questions (its query and context: the module docstring)."""
    by_qid = {q.qid: q for q in questions}
    best: dict[str, str] = {}
    waves: defaultdict[int, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        waves[len(q.prev)].append(i)
    n = len(questions)
    passages: list[list[Passage]] = [[] for _ in range(n)]
    cands: list[list[Candidate]] = [[] for _ in range(n)]
    queries, contexts = [""] * n, [""] * n
    rule = RuleScorer()
    for position in sorted(waves):
        idx = waves[position]
        for i in idx:
            q = questions[i]
            earlier = list(dict.fromkeys([*q.prev[:1], *q.prev[-1:]]))  # the series' first and previous
            queries[i] = " ".join([q.question, *(by_qid[p].question for p in earlier)])
            contexts[i] = " ".join([*(by_qid[p].question for p in earlier), *(best[p] for p in q.prev if best.get(p))])
        got_p, got_c = stage.run([questions[i].question for i in idx], [queries[i] for i in idx],
                                 [contexts[i] for i in idx],
                                 desc=f"{desc} (series position {position + 1})" if len(waves) > 1 else desc)
        for i, ps, cs in zip(idx, got_p, got_c):
            passages[i], cands[i] = ps, cs
            top = ranked(cs, rule)
            best[questions[i].qid] = top[0][0].text if top else ""
    return Extracted([q.question for q in questions], queries, passages, cands)


def predict(items: Mapping[str, Question], components: Components, settings: QACSettings,
            folds_gold: Mapping[str, Gold] | None = None, task: int = 1) -> Prediction:
    """FOLDS_GOLD: --data's gold (read_gold), given with --folds only, to cross-fit the answer model on."""
    questions = list(items.values())
    lists = task != 1
    max_list = TASK1_MAX if task == 1 else settings.max_list
    if max_list < 1:
        raise UserError(f"--max-list must be at least 1, not {max_list}")
    if settings.folds and not folds_gold:
        raise UserError(f"{components.data}: --folds needs gold answers (answers_json, has_answer) in the data")
    assert components.retriever is not None and components.corpus is not None  # Task.open

    def train(stage: ExtractionStage) -> tuple[Extracted, list[Answers]]:
        assert settings.train is not None  # called with --train only
        train_q, train_gold = read_questions(settings.train), read_gold(settings.train)
        return _contexts(train_q, stage, "training questions"), [train_gold[q.qid].answers for q in train_q]

    def golds(gold: Mapping[str, Gold]) -> list[Answers]:
        return [gold[q.qid].answers if q.qid in gold else [] for q in questions]

    done = answer([q.qid for q in questions], lambda stage, desc: _contexts(questions, stage, desc), train,
                  components.retriever, components.corpus, settings, ranked=TASK1_MAX, max_list=max_list,
                  lists=lists, value=None if task == 1 else "f", golds=golds(folds_gold or {}), trace=settings.trace)
    corpus = components.corpus
    answers = {q.qid: [(c.text, document_id(c.docid, corpus)) for c in chosen]  # a passage's document
               for q, chosen in zip(questions, done.chosen)}

    def diagnose(gold: Mapping[str, Gold]) -> dict[str, object]:  # after scoring, with the gold the driver read
        found = done.diagnose(golds(gold))
        if task != 1:  # the AFM of answering nothing (NTCIR's no-answer rule): the level a list must beat
            found["answer_nothing"] = answer_nothing(gold, task)
        return found
    return Prediction(answers, settings={**done.settings, **({"max_list": max_list} if lists else {})},
                      observed=done.observed, trace=done.trace, diagnose=diagnose)
