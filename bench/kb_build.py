"""KB store build (qa_baseline.index.kb.build_kb) on synthetic NLPCC-style KBs of growing size: triples/s and
peak RSS (must not grow with the KB), then linking + ranking questions/s on the largest store, and the memory
an in-memory Aho-Corasick automaton over all its names would take (the alternative to SQLite name lookups).

Synthetic KBs (--sizes, millions of triples; default 1,4,16) are written into a temp folder, never into the
repository: subjects are real-looking Chinese names (person names from common surnames and given-name
characters, places, organisations with 大学/公司/足球俱乐部..., works with a (qualifier), products with Latin
letters and digits), each with 1-40 triples (geometric, mean 5.5 as in the real KB: 47.9M triples, 8.7M
subjects) over ~400 predicates (common ones such as 中文名, 出生日期, 作者 most often), objects of dates,
numbers and Chinese text; lines grouped by subject like the real KB; seeded, so every run builds the same.
Each build runs in its own child process (peak RSS = its ru_maxrss). The questions for the speed figure are
generated from the largest KB's subjects and predicates ("X的P是什么？" and variants, 1 in 5 with a typo or a
homophone); the model is the rule (no --train), so the figure is linking + candidate features + scoring.

Run: .venv/bin/python bench/kb_build.py [--sizes 1,4,16] [--questions 500] [--keep DIR [--answer-only]]
Targets: >= 150,000 triples/s (the full 47.9M-triple KB in about 5 minutes on 2 cores); peak RSS of the
largest build <= 1.1x that of the smallest."""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile

from _common import PYTHON, load_info, run_child, table, verdict

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = ("伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华建国建华志强永红海燕春梅德福文博宇浩然子涵欣怡梓轩"
         "思远晓东晓峰立新玉兰金凤淑珍振华国庆红梅丹丹婷婷俊杰鹏飞天佑嘉怡雨桐一鸣逸凡")
PLACE = "北京上海广州深圳南京杭州成都武汉西安重庆天津苏州长沙郑州青岛大连宁波厦门福州合肥济南昆明贵阳南宁兰州银川西宁拉萨"
WORD = ("山水河湖江海云天星月风花雪林石金玉龙凤光明华新安平宁康乐福寿长春秋东南西北中大小高远青红白黑"
        "文武德仁义礼智信和美爱心梦想传奇世界时代英雄王国战争记忆之城故事学院公园广场医院中心研究所")
ORG = ["大学", "学院", "中学", "有限公司", "股份有限公司", "集团", "足球俱乐部", "医院", "研究所", "协会", "出版社",
       "镇", "村", "县", "站"]
QUALIFIERS = ["（歌曲）", "（电影）", "（2012年电影）", "（小说）", "（电视剧）", "（游戏）", "（书籍）", "（植物）"]
BRANDS = ["诺基亚", "三星", "摩托罗拉", "索尼", "联想", "华为", "佳能", "尼康", "奥林巴斯", "惠普"]
COMMON_PREDICATES = ["中文名", "外文名", "别名", "出生日期", "出生地", "国籍", "职业", "民族", "毕业院校", "代表作品",
                     "作者", "出版社", "出版时间", "类型", "所属地区", "面积", "人口", "地理位置", "创办时间", "主要成就",
                     "导演", "主演", "上映时间", "首播时间", "类别", "简称", "性质", "校训", "成立时间", "总部地点"]


def synthesise(path, triples, seed=0):
    """A grouped-by-subject KB of TRIPLES lines at PATH; returns (triples, subjects, sample of (subject, preds))."""
    rng = random.Random(seed)
    tail = ["".join(rng.choice(WORD) for _ in range(rng.randint(2, 4))) for _ in range(370)]
    predicates = COMMON_PREDICATES + tail
    weights = [30] * len(COMMON_PREDICATES) + [1] * len(tail)
    objects = ["".join(rng.choice(WORD + GIVEN) for _ in range(rng.randint(2, 12))) for _ in range(50_000)]
    objects += [f"{rng.randint(1900, 2020)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日" for _ in range(5_000)]
    objects += [str(rng.randint(1, 10 ** 6)) for _ in range(5_000)]
    seen, sample, written, subjects = set(), [], 0, 0
    with open(path, "w", encoding="utf-8") as f:
        while written < triples:
            kind = rng.random()
            if kind < 0.35:
                name = rng.choice(SURNAMES) + "".join(rng.choice(GIVEN) for _ in range(rng.randint(1, 2)))
            elif kind < 0.55:
                name = (rng.choice(PLACE[::2]) + "".join(rng.choice(WORD) for _ in range(rng.randint(1, 3))) +
                        rng.choice(ORG))
            elif kind < 0.85:
                name = "".join(rng.choice(WORD) for _ in range(rng.randint(2, 6)))
                if rng.random() < 0.3:
                    name += rng.choice(QUALIFIERS)
            else:
                name = f"{rng.choice(BRANDS)} {rng.choice('abcdegnx')}{rng.randint(1, 9999)}"
            if name in seen:
                name += f"（{rng.randint(2, 99)}）"
                if name in seen:
                    continue
            seen.add(name)
            degree = min(40, 1 + int(rng.expovariate(1 / 4.5)), triples - written)
            preds = list(dict.fromkeys(rng.sample(predicates, k=degree, counts=weights)))
            for p in preds:
                f.write(f"{name} ||| {p} ||| {rng.choice(objects)}\n")
            written += len(preds)
            subjects += 1
            if len(sample) < 50_000 and rng.random() < 0.05:
                sample.append((name, preds))
    return written, subjects, sample


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
from qa_baseline.index.kb import build_kb
t0 = time.perf_counter()
folder = build_kb(sys.argv[1], force=True, root=sys.argv[2])
print(json.dumps({"seconds": time.perf_counter() - t0, "folder": folder}))
"""
ANSWER = """import json, sys, time
from qa_baseline.index.kb import open_kb
from qa_baseline.kb.predicates import Ranker
qs = [q for q in open(sys.argv[3], encoding="utf-8").read().split("\\n") if q][:int(sys.argv[4])]
t0 = time.perf_counter()
kb = open_kb(sys.argv[1], root=sys.argv[2])
ranker = Ranker(kb)
t1 = time.perf_counter()
answered = sum(1 for q in qs if ranker.answer(q)[0])
t2 = time.perf_counter()
print(json.dumps({"open": t1 - t0, "seconds": t2 - t1, "questions": len(qs), "answered": answered}))
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
FLOOR = """import sqlite3, ahocorasick, qa_baseline.index.kb, qa_baseline.kb.predicates"""


def build_all(sizes, work, floor):
    """Synthesise and build every size (each build in its own child); prints the table and the verdicts;
    returns the largest KB's path, its store folder and its subject sample."""
    rows, rss, sample = [], {}, None
    for m in sizes:
        path = os.path.join(work, f"synthetic-{m}m.kb")
        n, subjects, sample = synthesise(path, m * 1_000_000)
        child = run_child([PYTHON, "-c", BUILD, path, os.path.join(work, "indexes")])
        result = json.loads(child.last_line())
        folder = result["folder"]
        size = os.path.getsize(os.path.join(folder, "kb.sqlite"))
        rss[m] = child.rss_mb
        rows.append([f"{m}M", f"{n:,}", f"{subjects:,}", f"{os.path.getsize(path) / 1e6:,.0f}",
                     f"{size / 1e6:,.0f}", f"{result['seconds']:.1f}", f"{n / result['seconds']:,.0f}",
                     f"{child.rss_mb:.0f}"])
        print("  " + "  ".join(rows[-1]), flush=True)
        if m != sizes[-1]:
            os.remove(path)
    print()
    table(["KB", "triples", "subjects", "KB MB", "store MB", "build s", "triples/s", "peak RSS MB"], rows)
    lo, hi = sizes[0], sizes[-1]
    print(f"floor (imports only): {floor:.0f} MB")
    verdict(f"triples/s at {hi}M", int(rows[-1][6].replace(",", "")) / 1000, 150, unit="k/s")
    verdict(f"peak RSS {hi}M / {lo}M", rss[hi] / rss[lo], 1.1, higher_is_better=False)
    return path, folder, sample


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,4,16", help="KB sizes in millions of triples (default 1,4,16)")
    ap.add_argument("--questions", type=int, default=500, help="questions for the speed figure (default 500)")
    ap.add_argument("--keep", help="write the KBs and stores here and keep them (default: a temp folder, removed)")
    ap.add_argument("--answer-only", action="store_true",
                    help="with --keep DIR of an earlier run: measure questions/s on its largest store again, no builds")
    args = ap.parse_args()
    if args.answer_only and not args.keep:
        sys.exit("bench: --answer-only needs --keep DIR of an earlier run")
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    work = args.keep or tempfile.mkdtemp(prefix="bench-kb-")
    os.makedirs(work, exist_ok=True)
    try:
        print(f"{load_info()}; KBs in {work}", flush=True)
        floor = run_child([PYTHON, "-c", FLOOR]).rss_mb
        if args.answer_only:
            path = os.path.join(work, f"synthetic-{sizes[-1]}m.kb")
            from qa_baseline.index.kb import kb_dir
            folder = kb_dir(path, os.path.join(work, "indexes"))
        else:
            path, folder, sample = build_all(sizes, work, floor)
        qfile = os.path.join(work, "questions.txt")
        if not args.answer_only:
            with open(qfile, "w", encoding="utf-8") as f:
                f.write("\n".join(questions(sample, args.questions)) + "\n")
        child = run_child([PYTHON, "-c", ANSWER, path, os.path.join(work, "indexes"), qfile, str(args.questions)])
        r = json.loads(child.last_line())
        auto = run_child([PYTHON, "-c", AUTOMATON, os.path.join(folder, "kb.sqlite")])
        a = json.loads(auto.last_line())
        print()
        table([f"on the {sizes[-1]}M store", "questions", "answered", "open s", "questions/s", "peak RSS MB"],
              [["SQLite name lookups (ours)", r["questions"], r["answered"], f"{r['open']:.2f}",
                f"{r['questions'] / r['seconds']:.1f}", f"{child.rss_mb:.0f}"],
               [f"pyahocorasick over {a['names']:,} names (build only)", "-", "-", f"{a['seconds']:.1f}", "-",
                f"{auto.rss_mb:.0f}"]])
        print(f"an in-memory automaton would add {auto.rss_mb - floor:.0f} MB at {sizes[-1]}M triples "
              f"(x{47.9 / sizes[-1]:.1f} for the full KB) and {a['seconds']:.0f} s per start")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
