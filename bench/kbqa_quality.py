"""NLPCC KBQA baseline on the shared data: averaged F1 of the 2016 test set with the mini-KB, error categories,
questions/s and peak RSS; the learned ranker (trained on the 2016 training set) against the rule (no --train).

Each run is `python -m qa_baseline.run --task kbqa --data TEST --kb MINI-KB [--train TRAIN] --kb-name mini-KB
--trace --out TMP` in its own child process (the KB store is built first into a temp QA_BASELINE_INDEXES with
`python -m qa_baseline.index --kb MINI-KB --on-bad-record skip`). Then every question with F1 < 1 goes into the
first category that fits, from its trace (linked subjects, top candidate) and the test file's gold (<triple>
and <answer> lines, read here only, never by the run):
  answer not a KB object        no triple of the gold subject has a gold answer as object (cannot be answered)
  subject not among candidates  linking did not find the gold triple's subject
  wrong subject                 the best candidate is another subject's triple
  wrong predicate               the right subject, another of its triples
Questions/s: answering only (linking + features + scoring, after training and the KB opening), from the run's
own line on stderr. Target: averaged F1 >= 0.95 (an independent simple pipeline: 0.954; mention-only with the
subject's first triple: 0.776; the 2016 winner, on the full KB: 0.8247).

Run: .venv/bin/python bench/kbqa_quality.py [--limit N]   (N: only the first N test questions, for tuning)"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import Counter

from _common import PYTHON, data_dir, load_info, result_line, run_child, table, verdict

CATEGORIES = ("answer not a KB object", "subject not among candidates", "wrong subject", "wrong predicate")


def gold_blocks(path):
    """{id: (subject, [answers])} from the test file's <triple> and <answer> lines."""
    out, subject = {}, {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"<(triple|answer) id=(\d+)>\t(.*)", line.rstrip("\n"))
        if m and m[1] == "triple":
            subject[m[2]] = m[3].split("|||")[0].strip()
        elif m:
            out[m[2]] = (subject.get(m[2]), [a.strip() for a in m[3].split("|||") if a.strip()])
    return out


def kb_objects(path):
    """{subject: {objects}} of the KB (the mini-KB is small)."""
    objects = {}
    for line in open(path, encoding="utf-8"):
        parts = [p.strip() for p in line.split("|||")]
        if len(parts) == 3 and parts[0]:
            objects.setdefault(parts[0], set()).add(parts[2])
    return objects


def categorise(trace, gold, objects):
    counts, per_question = Counter(), []
    for record in trace:
        subject, answers = gold[record["id"]]
        if answers and set(record["answer"]) == set(answers):  # F1 = 1
            continue
        if not objects.get(subject, set()) & set(answers):
            category = CATEGORIES[0]
        elif subject not in {s["subject"] for s in record["subjects"]}:
            category = CATEGORIES[1]
        elif record["top"][0]["subject"] != subject:
            category = CATEGORIES[2]
        else:
            category = CATEGORIES[3]
        counts[category] += 1
        per_question.append((record["id"], category))
    return counts, per_question


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, help="only the first N test questions (tuning)")
    args = ap.parse_args()
    folder = data_dir("tasks", "kbqa")
    kb = os.path.join(folder, "nlpcc-kbqa-mini.kb")
    test = os.path.join(folder, "nlpcc-iccpol-2016.kbqa.testing-data")
    train = os.path.join(folder, "nlpcc-iccpol-2016.kbqa.training-data")
    work = tempfile.mkdtemp(prefix="bench-kbqa-")
    env = {"QA_BASELINE_INDEXES": os.path.join(work, "indexes"), "QA_BASELINE_PROGRESS": "off"}
    try:
        if args.limit:
            text = open(test, encoding="utf-8").read()
            end = [m.start() for m in re.finditer(r"^<question id=", text, re.M)]
            part = os.path.join(work, "test-part.txt")
            with open(part, "w", encoding="utf-8") as f:
                f.write(text[:end[args.limit]] if args.limit < len(end) else text)
            test = part
        print(f"{load_info()}", flush=True)
        run_child([PYTHON, "-m", "qa_baseline.index", "--kb", kb, "--on-bad-record", "skip"], env=env)
        gold, objects = gold_blocks(test), kb_objects(kb)
        rows, results = [], {}
        for name, extra in (("learned (--train 2016 training set)", ["--train", train]), ("rule (no --train)", [])):
            out = os.path.join(work, name.split()[0])
            child = run_child([PYTHON, "-m", "qa_baseline.run", "--task", "kbqa", "--data", test, "--kb", kb,
                               "--kb-name", "mini-KB", "--trace", "--out", out, *extra], env=env)
            row = json.load(open(os.path.join(out, "row.json"), encoding="utf-8"))
            trace = [json.loads(line) for line in open(os.path.join(out, "trace.jsonl"), encoding="utf-8")]
            counts, _ = categorise(trace, gold, objects)
            speed = re.search(r"\(([\d.]+) questions/s\)", child.err)
            results[name] = {**row["metrics"], "questions_per_s": float(speed[1]) if speed else None,
                             "run_s": child.wall, "peak_rss_mb": child.rss_mb}
            rows.append([name, f"{row['metrics']['precision']:.4f}", f"{row['metrics']['recall']:.4f}",
                         f"{row['metrics']['F1']:.4f}", *(counts[c] for c in CATEGORIES),
                         speed[1] if speed else "?", f"{child.wall:.0f}", f"{child.rss_mb:.0f}"])
        print(f"\n{len(gold):,} questions of {os.path.basename(test)}, KB {os.path.basename(kb)} (mini-KB)\n")
        table(["ranker", "P", "R", "F1", "answer not a KB object", "subject not among candidates", "wrong subject",
               "wrong predicate", "questions/s", "run s", "peak RSS MB"], rows)
        learned, rule = (results[k]["F1"] for k in results)
        print(f"\nlearned / rule F1: {learned / rule:.3f}x")
        verdict("averaged F1 (learned)", learned, 0.95, unit="")
        result_line({k.split()[0]: v for k, v in results.items()}, {"learned_vs_rule_F1": learned / rule},
                    questions=len(gold))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
