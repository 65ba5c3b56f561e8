"""The answer stage of the short-answer tasks (tasks/openqa, tasks/qac), one entry point, `answer`: retrieve ->
passage text -> candidates (`ExtractionStage`, timed: retrieval and extraction apart) -> neural evidence ->
the answer model, the rule or fitted on gold data (`--train FILE`) or by cross-fitting (`--folds K`: each fold
answered by a model fitted on the others) -> each question's answers, its trace and the run's observations.
It knows nothing of the tasks' formats: a task says how its questions are extracted and what it answers."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ..core.config import CorpusConfig
from ..core.errors import UserError
from ..core.process import fewer_collections
from ..rankers.learning import folds, split
from ..retrievers.base import Retriever
from . import Extractor, answer_in_candidates, answer_in_passages, neural
from .answer_types import answer_type
from .features import Candidate
from .passages import Passage, PassageStore
from .scorers import LEARNERS, AnswerModel, Gold, Scored, remembered
from .settings import AnswerSettings

CHUNK = 64  # questions per retrieval call


class ExtractionStage:
    """Retrieve -> passage text -> answer candidates for lists of questions, timed (see the module docstring)."""

    def __init__(self, retriever: Retriever, corpus_cfg: CorpusConfig, lang: str, passages: int = 10,
                 max_chars: int | None = None, keep: int | None = None, wide: int = 0) -> None:
        """KEEP: keep only each question's best KEEP candidates by the rule (features.Best), for runs that fit no
        answer model (keep_for); None keeps them all. WIDE: the passages retrieved per question whose text
        (never parsed) the `wide` feature searches for each candidate (0: none, the feature is 0; wide_for)."""
        if passages < 1:
            raise UserError(f"--passages must be at least 1, not {passages}")
        if wide < 0:
            raise UserError(f"--wide must be 0 (off) or more, not {wide}")
        self.retriever, self.k, self.wide = retriever, passages, wide
        self.store = PassageStore(corpus_cfg)
        self.extractor = Extractor(lang, max_chars=max_chars, corpus=corpus_cfg)  # with the corpus's parse store
        self.seconds = {"retrieval": 0.0, "extraction": 0.0}
        self.keep = keep

    def parses(self) -> dict[str, int]:
        """The passages parsed so far and those loaded from the corpus's parse store, for the run's observed."""
        return dict(self.extractor.parser.counts)

    def retrieve(self, queries: Sequence[str], k: int | None = None) -> list[list[Passage]]:
        """The top K passages (passages.Passage, best first; K: PASSAGES) per query; an empty query finds
        nothing."""
        started = time.time()
        out: list[list[tuple[str, float]]] = []
        for start in range(0, len(queries), CHUNK):
            chunk = queries[start:start + CHUNK]
            asked = [i for i, q in enumerate(chunk) if q.strip()]
            hits = self.retriever.search([chunk[i] for i in asked], k or self.k) if asked else []
            got = dict(zip(asked, hits))
            out.extend(got.get(i, []) for i in range(len(chunk)))
        passages = [self.store.passages(h) for h in out]
        self.seconds["retrieval"] += time.time() - started
        return passages

    def candidates(self, questions: Sequence[str], passages: Sequence[Sequence[Passage]],
                   contexts: Sequence[str] | None = None, progress: bool = True, desc: str = "questions",
                   wide: Sequence[Sequence[Passage]] | None = None) -> list[list[Candidate]]:
        """Candidates per question (QUESTIONS: texts; PASSAGES: their retrieved passages, all parsed; CONTEXTS:
        texts; WIDE: their wide passages, whose text the `wide` feature searches; none by default)."""
        started = time.time()
        contexts = contexts or [""] * len(questions)
        with self.extractor.parser.parallel():  # one set of workers parses the passages and the questions
            self.extractor.parse([p for ps in passages for p in ps], progress=progress)
            self.extractor.parser.ask([*questions, *contexts])
        with fewer_collections():
            out = [self.extractor.candidates(q, ps, c, keep=self.keep, wide=w) for q, ps, c, w in
                   tqdm(list(zip(questions, passages, contexts, wide or [()] * len(questions))), desc=desc, unit=" q",
                        mininterval=1.0, disable=None if progress else True)]
        self.extractor.parser.ask(())
        self.seconds["extraction"] += time.time() - started
        return out

    def run(self, questions: Sequence[str], queries: Sequence[str] | None = None, contexts: Sequence[str] | None = None,
            progress: bool = True, desc: str = "questions") -> tuple[list[list[Passage]], list[list[Candidate]]]:
        """(passages, candidates) per question: its PASSAGES retrieved passages, parsed, and the candidates found
        in them; QUERIES default to the questions. The WIDE passages are a search of their own: a deeper search
        may rank the first few otherwise (hybrid fusion, approximate dense search), and those stay as without."""
        passages = self.retrieve(queries or questions)
        wide = self.retrieve(queries or questions, self.wide) if self.wide else None
        return passages, self.candidates(questions, passages, contexts, progress, desc, wide)


def keep_for(train: str | None, folds: int | None, neural: str | None, answers: int) -> int | None:
    """How many candidates per question a run keeps (ExtractionStage's KEEP): all (None) when it fits an answer
    model (--train, --folds: every candidate is learned from or scored) or adds neural evidence (it changes
    the rule's scores); else the most it answers (ANSWERS) or traces (TRACE_TOP), whichever is more."""
    return None if train or folds or neural not in (None, "none") else max(answers, TRACE_TOP)


def wide_for(settings: AnswerSettings) -> int:
    """The wide passages a run retrieves (ExtractionStage's WIDE): --wide when it may fit a learned scorer (its
    model_kind is not the rule), the only reader of the `wide` feature; else none (0)."""
    return settings.wide if model_kind(settings) != "rule" else 0


TRACE_TOP = 10  # candidates per question in a trace record


def ceilings(passages: Sequence[Sequence[Passage]], cands: Sequence[Sequence[Candidate]],
             golds: Sequence[Gold], types: Sequence[str] | None = None) -> dict[str, Any]:
    """Over the questions with a gold answer: the share whose answer string occurs in the retrieved passages
    (the retrieval ceiling) and the share whose answer is among the candidates (the extraction ceiling); with
    TYPES (each question's expected answer type name), `missed_by_type` too (see `candidate_recall`)."""
    rows = [(p, c, g) for p, c, g in zip(passages, cands, golds) if g]
    if not rows:
        return {}
    out: dict[str, Any] = {
        "answer_in_passages": round(sum(answer_in_passages(p, g) for p, _, g in rows) / len(rows), 4),
        "answer_in_candidates": round(sum(answer_in_candidates(c, g) for _, c, g in rows) / len(rows), 4)}
    if types is not None:
        out["missed_by_type"] = candidate_recall(passages, cands, golds, types)
    return out


EXAMPLES = 5  # gold answers shown per answer type in candidate_recall


def candidate_recall(passages: Sequence[Sequence[Passage]], cands: Sequence[Sequence[Candidate]],
                     golds: Sequence[Gold], types: Sequence[str], examples: int = EXAMPLES) -> dict[str, Any]:
    """Per expected answer type (TYPES: one name per question, "" untyped): of the questions whose gold
    answer occurs in a retrieved passage (`in_passages`), how many have it among no candidate (`missed`), and
    the first EXAMPLES of those gold answers (their first spelling); types by most missed first."""
    found: dict[str, dict[str, Any]] = {}
    for ps, cs, gold, name in zip(passages, cands, golds, types):
        if not gold or not answer_in_passages(ps, gold):
            continue
        row = found.setdefault(name or "untyped", {"in_passages": 0, "missed": 0, "examples": []})
        row["in_passages"] += 1
        if not answer_in_candidates(cs, gold):
            row["missed"] += 1
            if len(row["examples"]) < examples:
                row["examples"].append(gold[0][0])
    return dict(sorted(found.items(), key=lambda kv: (-kv[1]["missed"], kv[0])))


def check_fitting(train: str | None, n_folds: int | None, questions: int) -> None:
    """Refuse, before any retrieval or parsing, what fit_models could not do: --train with --folds, a K out of
    range."""
    if train and n_folds:
        raise UserError("--train and --folds do not go together: fit on a training file or cross-fit on --data")
    if n_folds and not 2 <= n_folds <= questions:
        raise UserError(f"--folds needs 2 <= K <= the number of questions ({questions}), not {n_folds}")


def model_kind(settings: AnswerSettings) -> str:
    """The answer model's kind, for the row's settings: rule, learned on --train, or cross-fitted on --folds K
    (which scorer each fit kept is observed, not set)."""
    if settings.scorer == "rule" or not (settings.train or settings.folds):
        return "rule"
    return "fitted on --train" if settings.train else f"cross-fitted, {settings.folds} folds"


@remembered()  # the learned scorers' rows of each question computed once for all the fits
def fit_models(cands: Sequence[list[Candidate]], train_groups: Sequence[tuple[list[Candidate], Gold]] | None,
               data_golds: Sequence[Gold], n_folds: int | None, value: str | None, lists: bool, max_list: int,
               learn: bool = True, kinds: Sequence[str] = ("logistic",)) -> tuple[list[AnswerModel], dict[str, Any]]:
    """The answer model of each question and a summary for the row. TRAIN_GROUPS ([(candidates, gold)] from
    --train) fit one model for all; else N_FOLDS with DATA_GOLDS cross-fit (question i is answered by the
    model fitted on the questions of the other folds, i mod K); else the rule with no threshold."""
    if train_groups:
        model = AnswerModel.fit(train_groups, value, lists, max_list=max_list, learn=learn, kinds=kinds)
        return [model] * len(cands), {"fitted_on": "train", **model.params()}
    if n_folds:  # check_fitting checked K
        models: list[AnswerModel] = [None] * len(cands)  # type: ignore[list-item]  # each set below
        fitted: list[dict[str, Any]] = []
        for fold, held in enumerate(folds(len(cands), n_folds)):
            groups = split(list(zip(cands, data_golds)), n_folds, fold)[0]
            model = AnswerModel.fit(groups, value, lists, max_list=max_list, learn=learn, kinds=kinds)
            fitted.append(model.params())
            for i in held:
                models[i] = model
        return models, {"fitted_on": f"{n_folds} folds of the data (cross-fitted)",
                        "scorers": [p.get("kind", p["scorer"]) for p in fitted],
                        "ratios": [p["ratio"] for p in fitted],
                        "thresholds": [p.get("has_answer_threshold") for p in fitted],
                        "has_answer_C": [p.get("has_answer_C") for p in fitted],
                        "heldout_mrr": [p.get("heldout_mrr") for p in fitted]}
    model = AnswerModel(max_list=max_list)
    return [model] * len(cands), {"fitted_on": None, **model.params()}


def trace_record(qid: str, question: str, query: str, passages: Sequence[Passage], scored: Scored,
                 chosen: Sequence[Candidate], p_answer: float, top: int = TRACE_TOP) -> dict[str, Any]:
    return {"id": qid, "question": question, "query": query, "p_answer": round(p_answer, 4),
            "answers": [c.text for c in chosen],
            "passages": [{"docid": p.docid, "title": p.title, "score": p.score} for p in passages],
            "candidates": [{"text": c.text, "docid": c.docid, "labels": list(c.labels), "score": round(s, 4),
                            "sentence": c.sentence, "features": {k: round(v, 4) for k, v in c.features.items()}}
                           for c, s in scored[:top]]}


@dataclass(frozen=True)
class Extracted:
    """What extraction found for a list of questions, one entry per question: its text, the query it was
    retrieved with, its passages and its candidates."""
    questions: Sequence[str]
    queries: Sequence[str]
    passages: list[list[Passage]]
    candidates: list[list[Candidate]]


Extract = Callable[[ExtractionStage, str], Extracted]  # (stage, progress description) -> what it found


@dataclass(frozen=True)
class Answered:
    """What `answer` found: per question the answers CHOSEN (best first; empty: no answer); the row's SETTINGS
    (the corpus's language, the answer model's kind) and OBSERVED (the fitted model, timings, parses); the
    TRACE records (None without --trace); what was EXTRACTED, for `diagnose`."""
    chosen: list[list[Candidate]]
    settings: dict[str, str]
    observed: dict[str, Any]
    trace: list[dict[str, Any]] | None
    extracted: Extracted
    lang: str

    def diagnose(self, golds: Sequence[Gold]) -> dict[str, Any]:
        """How far retrieval and extraction got (`ceilings`), with each question's GOLDS read by the driver."""
        return {"ceiling": ceilings(self.extracted.passages, self.extracted.candidates, golds,
                                    [answer_type(q, self.lang).name for q in self.extracted.questions])}


def answer(ids: Sequence[str], extract: Extract, train: Callable[[ExtractionStage], tuple[Extracted, Sequence[Gold]]],
           retriever: Retriever, corpus: CorpusConfig, settings: AnswerSettings, *, ranked: int, max_list: int,
           lists: bool, value: str | None, golds: Sequence[Gold] = (), trace: bool = False) -> Answered:
    """The answers of the questions IDS: EXTRACT finds their passages and candidates with the stage over
    RETRIEVER and CORPUS; TRAIN, called with --train only, those of the training questions with their gold;
    GOLDS, each question's gold for --folds (cross-fitting). The answer model (fit_models: VALUE, LISTS,
    MAX_LIST) answers each question with its top RANKED candidates, or with its answer list when LISTS."""
    started = time.time()
    lang = corpus.lang
    check_fitting(settings.train, settings.folds, len(ids))
    neural.check(settings.neural, lang)
    stage = ExtractionStage(retriever, corpus, lang, settings.passages, settings.max_chars,
                            keep_for(settings.train, settings.folds, settings.neural, max_list), wide_for(settings))
    found = extract(stage, "questions")
    neural.add(settings.neural, found.questions, found.candidates)
    observed: dict[str, Any] = {}
    train_groups = None
    if settings.train:
        training, train_golds = train(stage)
        neural.add(settings.neural, training.questions, training.candidates)
        train_groups = list(zip(training.candidates, train_golds))
        observed["train_questions"] = len(train_groups)
    models, fitted = fit_models(found.candidates, train_groups, golds, settings.folds, value, lists, max_list,
                                learn=settings.scorer != "rule", kinds=LEARNERS[settings.learner])
    chosen: list[list[Candidate]] = []
    records: list[dict[str, Any]] = []
    for qid, question, query, ps, cs, model in zip(ids, found.questions, found.queries, found.passages,
                                                   found.candidates, models):
        picked, scored, p = model.decide(cs, k=ranked, lists=lists)
        chosen.append(picked)
        if trace:
            records.append(trace_record(qid, question, query, ps, scored, picked, p))
    seconds = round(time.time() - started, 2)
    observed.update({"answer_model": fitted, "stage_seconds": {k: round(v, 2) for k, v in stage.seconds.items()},
                     "passages_parsed": stage.parses(),
                     "questions_per_second": round(len(ids) / seconds, 2) if seconds else None})
    return Answered(chosen, {"lang": lang, "answer_model": model_kind(settings)}, observed,
                    records if trace else None, found, lang)
