"""The evidence of each option of a question, as the scorers beyond the published rule see it (fusion.py,
learned.py): the hits of its query (question + " " + option) under BM25 and under the dense retriever, and the
per-retriever features of an option: its option score (the published mean of the top n hits, 0 without hits),
that score normalised across the question's options (`zscore`, `share`, `rank_points`), its top-1 and top-3 hit
scores and its rank among the question's options. `Both` opens the two retrievers of one corpus as one retriever for the run
row (its params and manifests are the two parts')."""
from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ...core.config import CorpusConfig
from ...core.progress import tqdm
from ...retrievers import open_retriever
from ...retrievers.base import Hit, Retriever
from .formats import Question

PARTS = ("bm25", "dense")  # the two retrievers fused and learned from, in feature order
CHUNK = 250  # questions per batched search call (as the rule's)
DEPTH = 3  # hits kept per option query: the top-3 feature needs 3 whatever n is


class Both:
    """BM25 and the dense retriever of one corpus (BM25 opened by the task, passed in), for one run."""
    name = "bm25+dense"

    def __init__(self, corpus_cfg: CorpusConfig, params: dict[str, Any], bm25: Retriever) -> None:
        self.parts: dict[str, Retriever] = {"bm25": bm25, "dense": open_retriever("dense", corpus_cfg, params)}
        self.manifest = {name: part.manifest for name, part in self.parts.items()}

    def params(self) -> dict[str, Any]:
        return {**self.parts["bm25"].params(), **self.parts["dense"].params()}

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        raise NotImplementedError("Both is searched part by part (evidence.gather)")

    def title(self, docid: str) -> str:
        return self.parts["bm25"].title(docid)


class Evidence(NamedTuple):
    """One question's hits: hits[part][option] = that option query's top DEPTH (or n) hits under PART."""
    question: Question
    hits: dict[str, list[list[Hit]]]


def gather(questions: Sequence[Question], parts: Mapping[str, Retriever], n: int, desc: str = "questions"
           ) -> list[Evidence]:
    """The Evidence of each question under each retriever of PARTS, searched in chunks of CHUNK questions."""
    k = max(n, DEPTH)
    out: list[Evidence] = []
    with tqdm(total=len(questions), desc=desc, unit=" q", disable=None) as bar:
        for start in range(0, len(questions), CHUNK):
            chunk = questions[start:start + CHUNK]
            queries = [f"{q.question} {opt}" for q in chunk for opt in q.options]
            found = {name: r.search(queries, k=k) for name, r in parts.items()}
            for i, q in enumerate(chunk):
                out.append(Evidence(q, {name: hits[4 * i:4 * i + 4] for name, hits in found.items()}))
            bar.update(len(chunk))
    return out


def option_score(hits: Sequence[Hit], n: int) -> float:
    """The published rule over an option query's hits: rule_score of their scores."""
    return rule_score([score for _, score in hits], n)


def rule_score(scores: Sequence[float], n: int) -> float:
    """The published rule: mean of the top n scores of an option query's hits, 0.0 when there are none."""
    top = scores[:n]
    return sum(top) / len(top) if top else 0.0


def choose(scores: Sequence[float]) -> int:
    """Index of the best option; the earliest wins a tie."""
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def zscore(scores: Sequence[float]) -> list[float]:
    """(s - mean) / population standard deviation across the question's options; all 0 when they are equal."""
    mean, sd = statistics.fmean(scores), statistics.pstdev(scores)
    return [(s - mean) / sd if sd > 0 else 0.0 for s in scores]


def share(scores: Sequence[float]) -> list[float]:
    """Each option's share of the question's total (scores below 0 count as 0); equal shares when it is 0."""
    clipped = [max(s, 0.0) for s in scores]
    total = sum(clipped)
    return [s / total if total > 0 else 1.0 / len(scores) for s in clipped]


def ranks(scores: Sequence[float]) -> list[int]:
    """Each option's rank among the question's options (1 = best; ties go to the earlier, as `choose`)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    out = [0] * len(scores)
    for r, i in enumerate(order, 1):
        out[i] = r
    return out


def rank_points(scores: Sequence[float]) -> list[float]:
    """Each option's points by its rank among the question's options, as a vote (Borda): options - rank (3 for
    the best of four, 0 for the worst; equal scores rank in option order, as `ranks`). Scale-free: a retriever
    whose scores spread widely gets no more say than one whose scores are close; fused points that tie go to
    the earlier option, as every choice here (`choose`)."""
    return [float(len(scores) - r) for r in ranks(scores)]


NORMALISERS: dict[str, Callable[[Sequence[float]], list[float]]] = {"z": zscore, "share": share,
                                                                      "rank": rank_points}


def nth(hits: Sequence[Hit], i: int) -> float:
    """The score of hit I (0-based), 0.0 when there are fewer hits."""
    return hits[i][1] if len(hits) > i else 0.0


def part_features(hits: Sequence[Sequence[Hit]], n: int, part: str) -> list[dict[str, float]]:
    """Per option, the features of one retriever PART: option score raw and normalised, top-1, top-3, rank."""
    scores = [option_score(h, n) for h in hits]
    z, sh, rk = zscore(scores), share(scores), ranks(scores)
    return [{part: s, f"{part}_z": zi, f"{part}_share": si, f"{part}_top1": nth(h, 0), f"{part}_top3": nth(h, 2),
             f"{part}_rank": float(r)} for s, zi, si, h, r in zip(scores, z, sh, hits, rk)]


def features(ev: Evidence, n: int) -> list[dict[str, float]]:
    """Per option, the features of both retrievers (PARTS order), by name."""
    per_part = [part_features(ev.hits[p], n, p) for p in PARTS]
    return [{k: v for f in fs for k, v in f.items()} for fs in zip(*per_part)]


def hit_records(ev: Evidence, option: int, title: Callable[[str], str]) -> dict[str, list[dict[str, Any]]]:
    """For a trace: per retriever, the option query's hits with their titles."""
    return {p: [{"docid": d, "score": s, "title": title(d)} for d, s in ev.hits[p][option]] for p in PARTS}
