"""qac-1 speed with the parse store (issue 23.1), side by side in one script on ja-task1-dev over ja-qac:
(a) no store (QA_BASELINE_PARSES=off: every passage parsed, as before the store), 5 passages per question;
(b) an empty store (a fresh folder), 5 passages: the first run, which fills it;
(c) a filled store, 20 passages per question (the store filled by `index --corpus ja-qac --parse`, timed apart,
    or the one given with --store);
(d) the filled store, 5 passages: its submission must equal (a)'s (parses loaded from the store answer as
    fresh ones), as must (b)'s;
(e) (c) again: now the questions' parses are in the store too (c wrote them), so the run never loads GiNZA;
    its submission must equal (c)'s;
(a0) with --baseline DIR: (a) with the code of DIR (a checkout of an older commit: `git archive 10ef4f9 | tar
    -x -C ../qac-base`, beside ../shared, whose corpus paths it resolves against itself), run just before (a)
    over a BM25 index that code builds in a fresh folder: the first run's speed-up (issue 52.2) and the same
    submission.
Each is `python -m qa_baseline.run --task qac-1 ...` in its own process (its peak RSS: the largest of it and
its parse workers, ru_maxrss; its CPU time theirs together); questions/s = questions / the child's wall time
(start-up included) and the run's own `questions_per_second` (from the pipeline's start). The machine is
shared: compare the ratios, which come from one script (the load average is in the result line).

Run: .venv/bin/python bench/qac_speed.py [--questions N] [--store DIR] [--routes abcde] [--baseline DIR]
Targets: c >= 10x a in questions/s (and e, the run after it); b no slower than a (within 5%: in CPU seconds,
which a shared machine disturbs less than wall time, and in wall time); every peak RSS <= 1024 MB; with
--baseline, a >= 2x a0 in questions/s."""
import argparse
import json
import os
import sys
import tempfile
import time

from _common import PYTHON, data_dir, result_line, run_child, verdict

RSS_MB, SPEEDUP, SLOWER, FIRST = 1024, 10.0, 1.05, 2.0


def child(argv, env, cwd=None):
    """(wall s, peak RSS MB, CPU s, stderr) of ARGV (through _common.run_child; in CWD, default the project);
    exits when it fails."""
    c = run_child(argv, {"HF_HUB_OFFLINE": "1", "QA_BASELINE_PROGRESS": "off", **env}, **({"cwd": cwd} if cwd else {}))
    return c.wall, c.rss_mb, c.cpu, c.err


def run(name, data, passages, parses, out_root, questions, cwd=None, env=None):
    out = os.path.join(out_root, name)
    wall, rss, cpu, _ = child([PYTHON, "-m", "qa_baseline.run", "--task", "qac-1", "--data", data, "--corpus",
                               "ja-qac", "--passages", str(passages), "--out", out],
                              {"QA_BASELINE_PARSES": parses, **(env or {})}, cwd)
    with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
        row = json.load(f)
    with open(os.path.join(out, "submission.txt"), "rb") as f:
        submission = f.read()
    obs = row["observed"]
    fig = {"passages": passages, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": round(rss),
           "questions_per_s": round(questions / wall, 3), "run_questions_per_s": obs.get("questions_per_second"),
           "cpu_s_per_question": round(cpu / questions, 3), "parses": obs.get("passages_parsed"),
           "stage_seconds": obs.get("stage_seconds"), "MRR": row["metrics"].get("MRR")}
    print(f"({name}) {json.dumps(fig)}", file=sys.stderr, flush=True)
    return fig, submission


def subsample(n, folder):
    """The first N questions of ja-task1-dev (all of them without N)."""
    path = data_dir("tasks", "qac", "ja-task1-dev.tsv")
    if not n:
        return path
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    out = os.path.join(folder, f"ja-task1-dev-{n}.tsv")
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(lines[:n + 1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, help="the first N questions only (default: all 799)")
    ap.add_argument("--store", metavar="DIR", help="QA_BASELINE_PARSES folder of a store to fill (if needed) and "
                                                   "use for (c) and (d) (default: (b)'s, filled here)")
    ap.add_argument("--routes", default="abcde", help="the routes to run, of abcde (default: all; the fill "
                                                      "before (c) runs with c or d)")
    ap.add_argument("--baseline", metavar="DIR", help="run (a0): (a) with the code of the checkout DIR")
    args = ap.parse_args()
    routes = set(args.routes)
    with tempfile.TemporaryDirectory() as tmp:
        data = subsample(args.questions, tmp)
        with open(data, encoding="utf-8") as f:
            n = sum(1 for _ in f) - 1
        child([PYTHON, "-m", "qa_baseline.index", "--corpus", "ja-qac"], {})  # BM25: quick, or up to date
        print(f"qac-1 on {os.path.basename(data)} ({n} questions) over ja-qac; shared machine, "
              f"{os.cpu_count()} cores", file=sys.stderr, flush=True)
        figs, subs, fill = {}, {}, None
        if args.baseline:
            indexes = {"QA_BASELINE_INDEXES": os.path.join(tmp, "baseline-indexes")}
            child([PYTHON, "-m", "qa_baseline.index", "--corpus", "ja-qac"], indexes, args.baseline)
            figs["a0"], subs["a0"] = run("a0", data, 5, "off", tmp, n, args.baseline, indexes)
        empty = os.path.join(tmp, "parses")
        if "a" in routes:
            figs["a"], subs["a"] = run("a", data, 5, "off", tmp, n)
        if "b" in routes:
            figs["b"], subs["b"] = run("b", data, 5, empty, tmp, n)
        store = args.store or empty
        if routes & set("cde"):
            t0 = time.perf_counter()
            _, fill_rss, fill_cpu, text = child([PYTHON, "-m", "qa_baseline.index", "--corpus", "ja-qac", "--parse"],
                                                {"QA_BASELINE_PARSES": store})
            fill = {"wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(fill_cpu, 1),
                    "peak_rss_mb": round(fill_rss), "said": text.strip().splitlines()[-1]}
            print(f"(fill) {json.dumps(fill)}", file=sys.stderr, flush=True)
        for name, passages in (("c", 20), ("d", 5), ("e", 20)):
            if name in routes:
                figs[name], subs[name] = run(name, data, passages, store, tmp, n)
    result_line({"runs": figs, "fill": fill}, ratios(figs), verdicts(figs, subs), questions=n,
                store="given" if args.store else "filled here", baseline=args.baseline)


def ratios(figs):
    """The ratios of the routes run: questions/s and CPU per question of c and e against a, of a against a0."""
    out = {}
    for x, y in (("c", "a"), ("b", "a"), ("e", "a"), ("a", "a0")):
        if x in figs and y in figs:
            out[f"{x}_vs_{y}_questions_per_s"] = round(figs[x]["questions_per_s"] / figs[y]["questions_per_s"], 2)
            out[f"{x}_vs_{y}_cpu_per_question"] = round(figs[y]["cpu_s_per_question"] / figs[x]["cpu_s_per_question"],
                                                        2)
    if "c" in figs and "a" in figs:
        out["c_vs_a_run_questions_per_s"] = round(figs["c"]["run_questions_per_s"] / figs["a"]["run_questions_per_s"],
                                                  2)
    return out


def verdicts(figs, subs):
    """The targets of the routes run (the module docstring), printed, and the submissions compared."""
    q = {k: f["questions_per_s"] for k, f in figs.items()}
    if "c" in q and "a" in q:
        verdict("(c) filled store, 20 passages / (a) no store, 5 passages, questions/s", q["c"] / q["a"], SPEEDUP)
    if "e" in q and "a" in q:
        verdict("(e) the run after (c) / (a), questions/s", q["e"] / q["a"], SPEEDUP)
    if "a0" in q and "a" in q:
        verdict("(a) first run / (a0) the --baseline code's, questions/s", q["a"] / q["a0"], FIRST)
    for name, which in (("with the filled store (c, d, e)", "cde"), ("of the runs that parse (a, b)", "ab")):
        if set(which) & set(figs):
            verdict(f"peak RSS {name}", max(figs[k]["peak_rss_mb"] for k in which if k in figs), RSS_MB,
                    higher_is_better=False, unit="MB")
    out = {}
    if "a" in figs and "b" in figs:
        out["b_no_slower_than_a_cpu"] = figs["b"]["cpu_s"] <= figs["a"]["cpu_s"] * SLOWER
        out["b_no_slower_than_a_wall"] = figs["b"]["wall_s"] <= figs["a"]["wall_s"] * SLOWER
    for x, y in (("b", "a"), ("d", "a"), ("e", "c"), ("a", "a0")):
        if x in subs and y in subs:
            out[f"{x}_answers_as_{y}"] = subs[x] == subs[y]
    return out


if __name__ == "__main__":
    main()
