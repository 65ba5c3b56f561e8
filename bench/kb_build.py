"""KB store build (qa_baseline.indexes.kb.build_kb) on synthetic NLPCC-style KBs up to the real KB's size: triples/s
and peak RSS (must not grow with the KB), then linking + ranking questions/s on the largest store (real NLPCC
questions and synthetic ones), and the memory an in-memory Aho-Corasick automaton over all its names would take
(the alternative to SQLite name lookups).

Synthetic KBs (--sizes, millions of triples; default 1,16,43: 43M is the real NLPCC KB) are written into a temp
folder, never into the repository, with the real KB's shape, taken from ../shared/data/tasks/kbqa (its first
lines, nlpcc-iccpol-2016.kbqa.kb-excerpt, and the mini-KB of gold triples, nlpcc-kbqa-mini.kb): each subject
is a real subject with every Han character replaced by one drawn by the real names' character frequencies
(Latin letters, digits, punctuation and a trailing (qualifier) kept, so name lengths, scripts and qualifiers
follow the real ones), with 1-60 triples (geometric, mean 4.9: 43M triples over 8.7M subjects), predicates
drawn by their real frequencies (the excerpt's counts weigh 50x: it is the head of the full KB), 中文名 = the
name without its qualifier and 别名 = the name as in the real KB, objects shaped from real objects; lines
grouped by subject; names unique; seeded, so every run builds the same. Every real triple of the excerpt and
the mini-KB is planted in the largest KB (spread evenly), so real questions can be answered; the smaller KBs
are its first whole subjects (prefixes: one synthesis for all sizes).
Each build runs in its own child process (peak RSS = its ru_maxrss). The speed figures, on the largest store,
the rule ranker (no --train: linking + candidate features + scoring), each in a child:
  real      the first --questions questions of the NLPCC 2016 test set (their gold triples are planted), with
            how many are answered right
  synthetic questions about sampled synthetic subjects ("X的P是什么？" and variants, 1 in 5 with a typo)

Run: .venv/bin/python bench/kb_build.py [--sizes 1,16,43] [--questions 500] [--no-automaton] [--keep DIR]
Quick check: --sizes 0.2,1
Targets: >= 150,000 triples/s at the largest size; its peak RSS <= 1.1x that of the smallest; linking +
ranking >= 10 questions/s on it."""
import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from itertools import accumulate

from _common import PYTHON, data_dir, load_info, result_line, run_child, table, verdict

REAL = ("nlpcc-iccpol-2016.kbqa.kb-excerpt", "nlpcc-kbqa-mini.kb")  # in ../shared/data/tasks/kbqa
TEST = "nlpcc-iccpol-2016.kbqa.testing-data"
HAN = re.compile(r"[\u3400-\u9fff]")
QUALIFIER = re.compile(r"[（(][^（）()]*[)）]$")
WORD = ("山水河湖江海云天星月风花雪林石金玉龙凤光明华新安平宁康乐福寿长春秋东南西北中大小高远青红白黑"
        "文武德仁义礼智信和美爱心梦想传奇世界时代英雄王国战争记忆之城故事学院公园广场医院中心研究所")  # typos


def real_shape():
    """What the synthetic KBs copy from the real KB files (REAL): subject templates (names of the real excerpt
    and mini-KB), object templates, predicates with weights (the excerpt's counts x 50, as it is the head of the
    full KB, plus the mini-KB's), the Han characters of real names and objects by frequency, and the real
    triples to plant, grouped by subject (KB order)."""
    from qa_baseline.indexes.kb import split_line
    names, objs, preds, chars, groups = Counter(), [], Counter(), Counter(), {}
    for path, weight in ((data_dir("tasks", "kbqa", REAL[0]), 50), (data_dir("tasks", "kbqa", REAL[1]), 1)):
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = split_line(line, 3)
                if isinstance(parts, str):
                    continue  # the mini-KB's line 1 has an empty subject
                subject, predicate, obj = parts
                names[subject] += 1
                preds[predicate] += weight
                objs.append(obj)
                chars.update(c for c in subject + obj if HAN.match(c))
                groups.setdefault(subject, []).append(f"{subject} ||| {predicate} ||| {obj}\n")
    return sorted(names), objs, sorted(preds.items()), sorted(chars.items()), list(groups.items())


class Shape:
    """Synthetic strings shaped like real ones: each Han character of a real template replaced by one drawn by
    the real characters' frequency; other characters (Latin, digits, punctuation) and a trailing (qualifier)
    kept, so lengths, scripts and qualifiers follow the real KB's. TEMPLATES are compiled once into format
    strings (a Han character -> {})."""

    def __init__(self, rng, chars, templates):
        self.rng, self.chars = rng, [c for c, _ in chars]
        self.cum = list(accumulate(n for _, n in chars))
        self.templates = [self._compile(t) for t in templates]

    @staticmethod
    def _compile(template):
        m = QUALIFIER.search(template)
        base, qual = (template[:m.start()], m.group(0)) if m else (template, "")
        fmt = "".join("{}" if HAN.match(c) else c.replace("{", "{{").replace("}", "}}") for c in base)
        return fmt + qual.replace("{", "{{").replace("}", "}}"), sum(1 for c in base if HAN.match(c))

    def __call__(self):
        fmt, han = self.rng.choice(self.templates)
        return fmt.format(*self.rng.choices(self.chars, cum_weights=self.cum, k=han))


def synthesise(path, triples, seed=0):
    """A grouped-by-subject KB of TRIPLES lines at PATH, shaped like the real one (real_shape, Shape): subjects
    with 1 to 60 triples (geometric, mean 4.9: 43M triples over 8.7M subjects), predicates by the real weights,
    中文名 = the name without its qualifier, 别名 = the name; every real triple (excerpt and mini-KB) planted,
    spread evenly; names unique (a clash gets `（N）`). Returns [(triples, subjects, real subjects) at the end of
    each planted group and every 100k triples] (for prefixes: prefix_of), a sample of (subject, predicates) and
    the real subjects planted."""
    rng = random.Random(seed)
    names, real_objs, preds, chars, groups = real_shape()
    shape, objects = Shape(rng, chars, names), Shape(rng, chars, real_objs)
    objects = [objects() for _ in range(200_000)]
    predicates, cum = [p for p, _ in preds], list(accumulate(n for _, n in preds))
    every = max(1, int(triples / 4.9 / (len(groups) + 1)))  # synthetic subjects between two planted groups
    seen = {hash(s) for s, _ in groups}
    sample, written, subjects, planted, buf, marks = [], 0, 0, 0, [], []
    with open(path, "w", encoding="utf-8") as f:
        while written < triples:
            if subjects % every == every - 1 and planted < len(groups):
                lines = groups[planted][1][:triples - written]
                buf += lines
                written, planted, subjects = written + len(lines), planted + 1, subjects + 1
                continue
            name = shape()
            if hash(name) in seen:
                name += f"（{rng.randint(2, 99)}）"
                if hash(name) in seen:
                    continue
            seen.add(hash(name))
            degree = min(60, 1 + int(rng.expovariate(1 / 4.5)), triples - written)
            chosen = list(dict.fromkeys(rng.choices(predicates, cum_weights=cum, k=degree)))
            for p in chosen:
                obj = name if p == "别名" else QUALIFIER.sub("", name) if p == "中文名" else rng.choice(objects)
                buf.append(f"{name} ||| {p} ||| {obj}\n")
            if written // 100_000 != (written + len(chosen)) // 100_000:
                marks.append((written + len(chosen), subjects + 1, planted))
            written += len(chosen)
            subjects += 1
            if len(sample) < 50_000 and rng.random() < 0.05:
                sample.append((name, chosen))
            if len(buf) >= 50_000:
                f.writelines(buf)
                buf = []
        f.writelines(buf)
    marks.append((written, subjects, planted))
    return marks, sample, [s for s, _ in groups[:planted]]


def prefix_of(path, marks, millions, out):
    """The first whole subjects of the KB at PATH up to about MILLIONS million triples, written to OUT (a
    subject is never cut); returns (triples, subjects, real subjects planted) of the prefix."""
    triples, subjects, planted = next((m for m in marks if m[0] >= millions * 1_000_000), marks[-1])
    with open(path, "rb") as src, open(out, "wb") as dst:
        for _ in range(triples):
            dst.write(src.readline())
    return triples, subjects, planted


def questions(sample, n, seed=1):
    """N questions about sampled subjects, 1 in 5 with one character replaced (a typo)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        name, preds = rng.choice(sample)
        mention = name.split("（")[0]
        if rng.random() < 0.2 and len(mention) >= 4:
            j = rng.randrange(len(mention))
            mention = mention[:j] + rng.choice(WORD) + mention[j + 1:]
        form = rng.choice(["{}的{}是什么？", "你知道{}的{}吗？", "请问{}的{}是多少", "我想知道{}的{}是什么啊？"])
        out.append(form.format(mention, rng.choice(preds)))
    return out


BUILD = """import json, sys, time
from qa_baseline.indexes.kb import build_kb
t0, c0 = time.perf_counter(), time.process_time()
folder = build_kb(sys.argv[1], force=True, root=sys.argv[2])
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "folder": folder}))
"""
ANSWER = """import json, sys, time
from qa_baseline.indexes.kb import open_kb
from qa_baseline.kb.normalise import normalise
from qa_baseline.kb.predicates import Ranker
items = json.load(open(sys.argv[3], encoding="utf-8"))
t0 = time.perf_counter()
kb = open_kb(sys.argv[1], root=sys.argv[2])
ranker = Ranker(kb)
t1, c1 = time.perf_counter(), time.process_time()
got = [ranker.answer(q)[0] for q, _ in items]
t2, c2 = time.perf_counter(), time.process_time()
right = sum(1 for g, (_, gold) in zip(got, items) if g and normalise(g[0]) in {normalise(a) for a in gold})
print(json.dumps({"open": t1 - t0, "seconds": t2 - t1, "cpu": c2 - c1, "questions": len(items), "answered": sum(map(bool, got)),
                  "right": right}))
"""
AUTOMATON = """import json, sqlite3, sys, time
import ahocorasick
t0 = time.perf_counter()
db = sqlite3.connect(sys.argv[1])
A = ahocorasick.Automaton()
n = 0
for (key,) in db.execute("SELECT DISTINCT key FROM names"):
    A.add_word(key, n)
    n += 1
A.make_automaton()
print(json.dumps({"names": n, "seconds": time.perf_counter() - t0}))
"""
FLOOR = """import sqlite3, ahocorasick, qa_baseline.indexes.kb, qa_baseline.kb.predicates"""


def real_questions(n):
    """[(question, [gold answers])] of the first N questions of the 2016 test set (every one's gold triple is in
    the mini-KB, so planted in the synthetic KBs)."""
    from qa_baseline.tasks.kbqa.formats import read_gold
    return [(item.question, item.answers) for item in list(read_gold(data_dir("tasks", "kbqa", TEST)).values())[:n]]


def build_all(sizes, work):
    """Synthesise the largest KB, cut the smaller ones from it (prefixes of whole subjects), build each (in its own
    child); returns the rows (dicts), the largest KB's path, its store folder and its subject sample."""
    rows = []
    largest = os.path.join(work, f"synthetic-{sizes[-1]:g}m.kb")
    t0 = time.perf_counter()
    marks, sample, _ = synthesise(largest, int(sizes[-1] * 1_000_000))
    print(f"synthesised {largest} in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    for m in sizes:
        path = largest if m == sizes[-1] else os.path.join(work, f"synthetic-{m:g}m.kb")
        n, subjects, planted = marks[-1] if m == sizes[-1] else prefix_of(largest, marks, m, path)
        child = run_child([PYTHON, "-c", BUILD, path, os.path.join(work, "indexes")])
        result = json.loads(child.last_line())
        folder = result["folder"]
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        if manifest["triples"] != n:
            sys.exit(f"bench: the store of {path} holds {manifest['triples']:,} triples, expected {n:,}")
        rows.append({"millions": m, "triples": n, "subjects": subjects, "real_subjects": planted,
                     "names": manifest["names"], "kb_mb": round(os.path.getsize(path) / 1e6),
                     "store_mb": round(os.path.getsize(os.path.join(folder, "kb.sqlite")) / 1e6),
                     "build_s": round(result["seconds"], 1), "build_cpu_s": round(result["cpu"], 1),
                     "triples_per_s": round(n / result["seconds"]), "triples_per_cpu_s": round(n / result["cpu"]),
                     "build_rss_mb": round(child.rss_mb)})
        print("  " + json.dumps(rows[-1]), file=sys.stderr, flush=True)
        if m != sizes[-1]:
            os.remove(path)
            shutil.rmtree(os.path.join(work, "indexes"))
    return rows, largest, folder, sample


def answer(path, work, name, items):
    """Linking + ranking (the rule) of ITEMS on the store of PATH in a child; returns its figures."""
    qfile = os.path.join(work, f"questions-{name}.json")
    with open(qfile, "w", encoding="utf-8") as f:
        json.dump(items, f, ensure_ascii=False)
    child = run_child([PYTHON, "-c", ANSWER, path, os.path.join(work, "indexes"), qfile])
    r = json.loads(child.last_line())
    return {"questions": name, "n": r["questions"], "answered": r["answered"], "right": r["right"],
            "open_s": round(r["open"], 2), "questions_per_s": round(r["questions"] / r["seconds"], 1),
            "questions_per_cpu_s": round(r["questions"] / r["cpu"], 1),
            "rss_mb": round(child.rss_mb)}


def report(rows, answers, auto, floor, load):
    """The tables, the verdicts and the result for the last line."""
    table(["KB", "triples", "subjects", "names", "KB MB", "store MB", "build s", "triples/s", "CPU s",
           "triples/CPU s", "peak RSS MB"],
          [[f"{r['millions']:g}M", f"{r['triples']:,}", f"{r['subjects']:,}", f"{r['names']:,}", f"{r['kb_mb']:,}",
            f"{r['store_mb']:,}", r["build_s"], f"{r['triples_per_s']:,}", r["build_cpu_s"],
            f"{r['triples_per_cpu_s']:,}", r["build_rss_mb"]] for r in rows])
    lo, hi = rows[0], rows[-1]
    print(f"floor (imports only): {floor:.0f} MB; {load[0]}, at the end {load[1]} (the machine is shared)")
    verdicts = {"rate": verdict(f"triples/s at {hi['millions']:g}M", hi["triples_per_s"] / 1000, 150, unit="k/s"),
                "rate_cpu": verdict(f"triples per CPU second at {hi['millions']:g}M (independent of the load)",
                                    hi["triples_per_cpu_s"] / 1000, 150, unit="k/s"),
                "rss": verdict(f"peak RSS {hi['millions']:g}M / {lo['millions']:g}M", hi["build_rss_mb"] / lo["build_rss_mb"],
                               1.1, higher_is_better=False)}
    print()
    table([f"on the {hi['millions']:g}M store (rule ranker)", "questions", "answered", "right", "open s",
           "questions/s", "questions/CPU s", "peak RSS MB"],
          [[a["questions"], a["n"], a["answered"], a["right"] if a["questions"] == "real" else "-", a["open_s"],
            a["questions_per_s"], a["questions_per_cpu_s"], a["rss_mb"]] for a in answers])
    for a in answers:
        verdicts[f"qps_{a['questions']}"] = verdict(f"linking + ranking, {a['questions']} questions",
                                                    a["questions_per_s"], 10, unit="q/s")
        verdicts[f"qps_cpu_{a['questions']}"] = verdict(f"linking + ranking, {a['questions']} questions, per CPU "
                                                        "second", a["questions_per_cpu_s"], 10, unit="q/s")
    if auto:
        print(f"pyahocorasick over the {auto['names']:,} names: {auto['seconds']:.0f} s to build, "
              f"{auto['rss_mb'] - floor:.0f} MB over the imports (the alternative to SQLite name lookups)")
    return {"figures": {"rows": rows, "answers": answers, "automaton": auto, "floor_mb": round(floor)},
            "ratios": {"rss": hi["build_rss_mb"] / lo["build_rss_mb"]}, "load_start": load[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,16,43", help="KB sizes in millions of triples (default 1,16,43)")
    ap.add_argument("--questions", type=int, default=500, help="questions of each kind for the speed figure (500)")
    ap.add_argument("--no-automaton", action="store_true", help="skip the Aho-Corasick memory figure")
    ap.add_argument("--keep", help="write the KBs and stores here and keep them (default: a temp folder, removed)")
    args = ap.parse_args()
    sizes = sorted({float(s) for s in args.sizes.split(",")})
    work = args.keep or tempfile.mkdtemp(prefix="bench-kb-")
    os.makedirs(work, exist_ok=True)
    load = [load_info()]
    try:
        print(f"{load[0]}; KBs in {work}", flush=True)
        floor = run_child([PYTHON, "-c", FLOOR]).rss_mb
        rows, path, folder, sample = build_all(sizes, work)
        answers = [answer(path, work, "real", real_questions(args.questions)),
                   answer(path, work, "synthetic", [(q, []) for q in questions(sample, args.questions)])]
        auto = None
        if not args.no_automaton:
            child = run_child([PYTHON, "-c", AUTOMATON, os.path.join(folder, "kb.sqlite")])
            auto = {**json.loads(child.last_line()), "rss_mb": round(child.rss_mb)}
        load.append(load_info())
        print()
        result = report(rows, answers, auto, floor, load)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    result_line(**result)


if __name__ == "__main__":
    sys.exit(main())
