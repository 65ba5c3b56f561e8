"""trec_eval 9 in Python: reading TREC run and qrels files, its measures per query and over queries, and
its output lines (the command, `qa-baseline eval`, is qa_baseline/eval.py)."""
import codecs
import math
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import compress, repeat
from operator import eq
from typing import Any, cast

from ..core.errors import UserError, at
from ..core.textio import CONTROL, MAX_LINE, READ_ERRORS, open_binary, text_lines, utf16
from .metrics import NONPOOL, TREC_EVAL, UNJUDGED, Judged


# --- reading ------------------------------------------------------------------------------------------------

CHUNK = 16 << 20  # bytes read, decoded and checked at once by _lines
CONTROL_BYTES = re.compile(CONTROL.pattern.encode("latin-1"))


def _chunk(f: Any) -> bytes | None:
    """The next CHUNK bytes of F and the rest of their last line (b"" at the end); None on a read error (a
    damaged compressed file: text_lines then reports it)."""
    try:
        return cast(bytes, f.read(CHUNK) + f.readline(MAX_LINE))
    except READ_ERRORS:
        return None


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """textio.text_lines(PATH), read a chunk of lines at a time: a chunk that decodes as UTF-8 without control
    characters is split at once; at the first chunk that does not (or a UTF-16 file, a line too long),
    text_lines reads on, from the same line, and names what is wrong there."""
    n = 0
    with open_binary(path) as f:
        while raw := _chunk(f):  # None (a read error) or b"" (the end) stops the loop
            if n == 0 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8):]
            try:
                lines = raw.decode("utf-8").split("\n")
            except UnicodeDecodeError:
                break
            if n == 0 and utf16(raw[:raw.find(b"\n") + 1 or len(raw)]) or CONTROL_BYTES.search(raw) \
                    or max(map(len, lines)) > MAX_LINE // 4:
                break
            if lines[-1] == "":
                lines.pop()
            yield from enumerate(lines, n + 1)
            n += len(lines)
        else:
            if raw is not None:
                return
    yield from ((m, line) for m, line in text_lines(path) if m > n)


def _records(path, layout):
    """(line number, fields) of each non-blank line of PATH, which must have the fields LAYOUT names."""
    width = len(layout.split())
    for n, line in _lines(path):
        fields = line.split()
        if len(fields) != width:
            if not fields:
                continue
            raise at(path, n, f"expected {width} fields ({layout}), found {len(fields)}")
        yield n, fields


def read_run(path: str) -> tuple[dict[str, list[tuple[str, float]]], str | None]:
    """({qid: [(docno, score)]}, run tag); errors name the file and line."""
    run: dict[str, dict[str, float]] = {}
    tag: str | None = None
    for n, (qid, _, docno, _, score, tag) in _records(path, "qid Q0 docno rank score tag"):
        try:
            value = float(score)
        except ValueError:
            raise at(path, n, f"score {score!r} is not a number") from None
        if not math.isfinite(value):
            raise at(path, n, f"score {score!r} is not a finite number")
        docs = run.get(qid)
        if docs is None:
            docs = run[qid] = {}
        elif docno in docs:
            first = next(m for m, f in _records(path, "qid Q0 docno rank score tag") if f[0] == qid and f[2] == docno)
            raise at(path, n, f"document {docno} repeated for query {qid} (first on line {first}); "
                              "trec_eval refuses duplicates")
        docs[docno] = value
    if not run:
        raise UserError(f"{path}: no run lines (qid Q0 docno rank score tag)")
    return {qid: list(docs.items()) for qid, docs in run.items()}, tag


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    """{qid: {docno: rel}}; errors name the file and line."""
    qrels: dict[str, dict[str, int]] = {}
    seen: dict[tuple[str, str], int] = {}
    for n, (qid, _, docno, rel) in _records(path, "qid iter docno rel"):
        try:
            level = int(rel)
        except ValueError:
            raise at(path, n, f"relevance {rel!r} is not a whole number") from None
        first = seen.setdefault((qid, docno), n)
        if first != n:
            raise at(path, n, f"document {docno} judged twice for query {qid} (first on line {first})")
        qrels.setdefault(qid, {})[docno] = level
    if not qrels:
        raise UserError(f"{path}: no qrels lines (qid iter docno rel)")
    return qrels


# --- one query ----------------------------------------------------------------------------------------------

def judge(docs: Iterable[tuple[str, float]], qrels: Mapping[str, int], level: int = 1) -> Judged:
    """A Judged ranking of DOCS [(docno, score)] against one query's QRELS {docno: rel}."""
    pairs = list(docs)
    docnos, values = zip(*pairs) if pairs else ((), ())
    scores = array("f", values).tolist()  # as 32-bit floats, as trec_eval compares them
    order = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)  # score desc
    _break_ties(order, list(map(scores.__getitem__, order)), docnos)
    judged = {docno: UNJUDGED if r < 0 else r for docno, r in qrels.items()}
    rels = list(map(judged.get, map(docnos.__getitem__, order), repeat(NONPOOL, len(order))))
    return Judged(rels, [r for r in qrels.values() if r >= 0], level)


def _break_ties(order: list[int], ranked: list[float], docnos: Sequence[str]) -> None:
    """Order each run of equal scores in ORDER (RANKED: their scores) by docno, descending, in place."""
    start = end = -1
    for i in [*compress(range(1, len(ranked)), map(eq, ranked[1:], ranked)), -1]:  # i: ties with i - 1
        if i != end + 1 or i < 0:
            if end > start:
                order[start:end + 1] = sorted(order[start:end + 1], key=docnos.__getitem__, reverse=True)
            start = i - 1
        end = i


# --- measures (declared in metrics.TREC_EVAL) --------------------------------------------------------------

GROUPS = {"official": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                       "recip_rank", "iprec_at_recall", "P"),
          "all_trec": tuple(TREC_EVAL)}


def parse_measures(specs: Iterable[str] | None) -> dict[str, tuple[float, ...]]:
    """{measure name: cutoffs} from -m values (trec_eval's `P.5,10` or `P_10`; `official`, `all_trec`), in
    trec_eval's printing order."""
    wanted: dict[str, set[float]] = {}
    for spec in specs or ["official"]:
        if spec in GROUPS:
            for name in GROUPS[spec]:
                wanted.setdefault(name, set()).update(TREC_EVAL[name].cutoffs)
            continue
        name, _, params = spec.partition(".")
        head, _, tail = spec.rpartition("_")
        if name not in TREC_EVAL and head in TREC_EVAL and TREC_EVAL[head].kind in ("cut", "level"):
            name, params = head, tail  # P_10, ndcg_cut_10, iprec_at_recall_0.50
        if name not in TREC_EVAL:
            raise UserError(f"unknown measure {spec!r}; known: {', '.join([*TREC_EVAL, *GROUPS])}")
        m = TREC_EVAL[name]
        if params and m.kind not in ("cut", "level"):
            raise UserError(f"measure {name} takes no cutoffs ({spec!r})")
        try:
            values = {(int if m.kind == "cut" else float)(p) for p in params.split(",")} if params else set(m.cutoffs)
        except ValueError:
            raise UserError(f"measure {spec!r}: cutoffs must be {'whole numbers' if m.kind == 'cut' else 'numbers'}, "
                            "comma-separated") from None
        if m.kind == "cut" and any(v < 1 for v in values):
            raise UserError(f"measure {spec!r}: cutoffs must be at least 1")
        wanted.setdefault(name, set()).update(values)
    return {name: tuple(sorted(wanted[name])) for name in TREC_EVAL if name in wanted}


def label(name: str, cutoff: float) -> str:
    if TREC_EVAL[name].kind == "level":
        return f"{name}_{cutoff:.2f}"
    return f"{name}_{cutoff}" if TREC_EVAL[name].kind == "cut" else name


def query_values(q: Judged, measures: Mapping[str, Sequence[float]]) -> list[tuple[str, float]]:
    """[(label, value)] of one Judged query (num_q is not a per-query figure)."""
    out: list[tuple[str, float]] = []
    for name, cutoffs in measures.items():
        m = TREC_EVAL[name]
        if name == "num_q":
            continue
        fn = cast("Callable[..., Any]", m.fn)  # None only for num_q, skipped above
        if m.kind == "cut":
            out += [(label(name, k), float(fn(q, k))) for k in cutoffs]
        elif m.kind == "level":
            out += [(label(name, p), v) for p, v in zip(cutoffs, fn(q, cutoffs))]
        else:
            out.append((name, float(fn(q))))
    return out


def evaluate(run: Mapping[str, list[tuple[str, float]]], qrels: Mapping[str, Mapping[str, int]],
             measures: Mapping[str, Sequence[float]], level: int = 1, complete: bool = False
             ) -> tuple[dict[str, list[tuple[str, float]]], list[tuple[str, float]]]:
    """({qid: [(label, value)]}, [(label, value)] for all): the queries of RUN with qrels (with COMPLETE: all
    queries of QRELS), in qid order (byte order, as trec_eval)."""
    qids = sorted(set(qrels) if complete else set(run) & set(qrels))
    per_query = {qid: query_values(judge(run.get(qid, []), qrels[qid], level), measures) for qid in qids}
    summary = []
    if "num_q" in measures:
        summary.append(("num_q", float(len(qids))))
    if qids:
        for i, (name, _) in enumerate(next(iter(per_query.values()))):
            values = [per_query[qid][i][1] for qid in qids]
            kind = TREC_EVAL.get(name, TREC_EVAL.get(name.rpartition("_")[0]))
            if name == "gm_map":
                summary.append((name, math.exp(sum(values) / len(values))))
            elif kind is not None and kind.kind == "count":
                summary.append((name, float(sum(values))))
            else:
                summary.append((name, sum(values) / len(values)))
    return per_query, summary


def line(name: str, qid: str, value: float) -> str:
    """One output line, as trec_eval prints it."""
    if name in TREC_EVAL and TREC_EVAL[name].kind == "count":
        return f"{name:<22}\t{qid}\t{int(value)}"
    return f"{name:<22}\t{qid}\t{value:6.4f}"
