"""Segmented or not: the retrieval side of qac-1 on ja-task1-dev (799 questions) over ja-qac as it is (4,550
Wikipedia paragraphs) and over ja-qac segmented (`segment: {sentences: N, stride: S}`, default 3 and 2), side by
side, with BM25 (the ja analyzer) from the top K passages: the share of answerable questions whose answer string
occurs in them (answer_in_passages, as the qac run's ceiling computes it), the share whose gold document is among
their documents (the support ceiling of MRR_supported; segmented passages counted by document), the distinct
documents and the characters per question (what the answer stage must parse). Both BM25 indexes are built into
a temporary QA_BASELINE_INDEXES (about a minute); no GiNZA.

Run: .venv/bin/python bench/segment_retrieval.py [--k 5,10] [--sentences 3] [--stride 2]"""
import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile

from _common import data_dir, load_info, table


def measure(cfg, questions, gold, k):
    from qa_baseline.answers import answer_in_passages
    from qa_baseline.answers.passages import PassageStore
    from qa_baseline.corpus.segment import document_id
    from qa_baseline.retrievers import open_retriever
    retriever = open_retriever("bm25", cfg, {})
    store = PassageStore(cfg)
    hits = retriever.search([q.question for q in questions], k)
    rows = [(store.passages(h), gold[q.qid]) for q, h in zip(questions, hits)]
    answerable = [(ps, g) for ps, g in rows if g.answers]
    docs = [{document_id(p.docid, cfg) for p in ps} for ps, _ in answerable]
    return {"answer_in_passages": round(sum(answer_in_passages(ps, g.answers) for ps, g in answerable)
                                        / len(answerable), 4),
            "gold_doc_found": round(sum(bool(d & g.docs) for d, (_, g) in zip(docs, answerable)) / len(answerable), 4),
            "documents": round(sum(map(len, docs)) / len(docs), 2),
            "chars": round(sum(len(p.text) for ps, _ in answerable for p in ps) / len(answerable), 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", default="5,10", help="passages per question, comma-separated (default 5,10)")
    ap.add_argument("--sentences", type=int, default=3)
    ap.add_argument("--stride", type=int, default=2)
    args = ap.parse_args()
    path = os.path.join(data_dir("tasks", "qac"), "ja-task1-dev.tsv")
    work = tempfile.mkdtemp(prefix="bench-segment-")
    os.environ["QA_BASELINE_INDEXES"] = work
    os.environ.setdefault("QA_BASELINE_PROGRESS", "off")
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    from qa_baseline.tasks.qac.formats import read_gold, read_questions
    try:
        plain = corpus_config("ja-qac")
        segment = {"sentences": args.sentences, "stride": args.stride}
        seg = dataclasses.replace(plain, name="ja-qac-segmented", index="ja-qac-segmented",
                                  sources=tuple(dataclasses.replace(s, segment=segment) for s in plain.sources))
        print(f"{load_info()}", flush=True)
        for cfg in (plain, seg):
            build_bm25(cfg)
        questions, gold = read_questions(path), read_gold(path)
        figures, rows = {}, []
        for k in map(int, args.k.split(",")):
            for name, cfg in (("paragraphs", plain), (f"segmented {args.sentences}/{args.stride}", seg)):
                m = figures[f"{name} k={k}"] = measure(cfg, questions, gold, k)
                rows.append([name, k, *(m[x] for x in ("answer_in_passages", "gold_doc_found", "documents", "chars"))])
        print(f"\n{len(questions)} questions of ja-task1-dev.tsv, BM25 top k\n")
        table(["corpus", "k", "answer in passages", "gold document found", "documents", "characters"], rows)
        print(json.dumps({"figures": figures}, ensure_ascii=False))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
