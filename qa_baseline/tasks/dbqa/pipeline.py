"""The DBQA pipeline: every sentence of a question's group is scored by a ranker (qa_baseline/rankers: bm25,
overlap, dense, cross, learned). The language is zh when most questions hold CJK characters, else en
(`--lang` overrides). The default reranker, auto (`choose`): in a language with a cross-encoder (English), the
learned ranker over bm25, overlap and cross (LambdaMART: rankers/learned.default_learner) when there is training
data (--train or --holdout), else cross alone; in another language (Chinese) learned over bm25 and overlap with
training data, else bm25. `--holdout K` splits --data by group: groups i (counted from 0 in file order) with
i % K == K - 1 are evaluated (and written to `heldout.tsv`, the gold file of the submission), the others
train the learned ranker (`--train FILE` trains it on another file instead). Lines with an empty question
or sentence stop the run unless `--allow-empty` (the cmrc2018 stand-in has a 21-line group with an empty
question)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ...core.errors import UserError
from ...encoders import CROSS_LANGS
from ...rankers import make
from ...rankers.base import RankerSettings
from ...rankers.learning import split as fold_split
from ...rankers.tokens import detect_lang
from ..base import Components, Prediction
from ..hf import is_dataset
from . import hf
from .formats import Group, check_text, read, write_gold

if TYPE_CHECKING:
    from . import DBQASettings


def split(groups: list[Group], k: int | None) -> tuple[list[Group], list[Group]]:
    """(training part, evaluated part) of GROUPS for --holdout K."""
    if k is None:
        return [], groups
    if k < 2:
        raise UserError(f"--holdout must be at least 2, not {k}")
    if len(groups) < k:
        raise UserError(f"--holdout {k} needs at least {k} questions; the data has {len(groups)}")
    return fold_split(groups, k, k - 1)


AUTO = "auto"
AUTO_FEATURES = ("bm25", "overlap", "cross")  # the learned ranker's features under auto, with a cross-encoder


def choose(settings: DBQASettings, lang: str) -> tuple[str, list[str] | None]:
    """(reranker, its --features or None) of a run in LANG: --reranker and --features as given, auto resolved."""
    features = [f.strip() for f in settings.features.split(",")] if settings.features else None
    if settings.reranker != AUTO:
        return settings.reranker, features
    trained = bool(settings.train or settings.holdout)
    if lang in CROSS_LANGS:
        return ("learned", features or list(AUTO_FEATURES)) if trained else ("cross", features)
    return ("learned" if trained else "bm25"), features


def predict(groups: list[Group], components: Components, settings: DBQASettings) -> Prediction:
    lang = settings.lang or detect_lang(g.query for g in groups)
    name, features = choose(settings, lang)
    if settings.train and name != "learned":
        raise UserError(f"--train is for --reranker learned, not {name}")
    if name == "learned" and not (settings.train or settings.holdout):
        raise UserError("--reranker learned needs training data: --train FILE or --holdout K")
    if not settings.allow_empty:
        check_text(components.data, groups)
    train, test = split(groups, settings.holdout)
    options = {"k1": settings.k1, "b": settings.b, "encoder": settings.encoder, "tokens": settings.tokens,
               "features": features, "learner": settings.learner}
    ranker: Any = make(name, lang, cast(RankerSettings, {k: v for k, v in options.items() if v is not None}))
    unused = [o for o, v in options.items() if v is not None and o not in ranker.options]
    if unused:
        raise UserError(f"--{unused[0]} is not used by --reranker {name}" +
                        (f" with --features {','.join(ranker.features_of)}" if name == "learned" else ""))
    observed: dict[str, Any] = {}
    if name == "learned":
        if settings.train:
            train = hf.groups(settings.train) if is_dataset(settings.train) else read(settings.train)
            if not settings.allow_empty:
                check_text(settings.train, train)
        if train[0].labels is None:
            raise UserError(f"{settings.train or components.data}: no labels; the learned ranker trains on "
                            "labelled lines")
        ranker.fit(train)
        observed = {"train_questions": len(train), **ranker.fitted()}
    scores = ranker.score(test)
    trace: list[dict[str, Any]] | None = None
    if settings.trace:
        trace, start = [], 0
        for g in test:
            mine = [float(s) for s in scores[start:start + len(g.texts)]]
            start += len(g.texts)
            trace.append({"line": g.line, "question": g.query,
                          "ranked": sorted(({"line": cast(int, g.line) + i, "sentence": t, "score": s}
                                            for i, (t, s) in enumerate(zip(g.texts, mine))),
                                           key=lambda x: -cast(float, x["score"]))})
    files = {"heldout.tsv": lambda f: write_gold(f, test)} if settings.holdout else {}
    chose = {"reranker": name} if settings.reranker == AUTO else {}  # what auto chose; else the method says it
    return Prediction(list(scores), reference=test, settings={"lang": lang, **chose, **ranker.params()},
                      observed=observed, trace=trace, files=files)
