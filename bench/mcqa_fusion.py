"""MCQA scorers side by side (issue 26): for each data file, `python -m qa_baseline.run --task mcqa-en` (or
mcqa-zh) four ways, one after the other in fresh processes, and their accuracy, wall and CPU seconds:

  bm25     the published rule over BM25 (--retriever bm25, the default)
  dense    the same rule over the dense retriever (--retriever dense)
  fused    --scorer fused (the task config's fitted weight; no training data at run time)
  learned  --scorer learned --train each --train file (fitting included; the row's stage times tell the parts)

Targets: a fused run costs at most a bm25 run plus a dense run (wall, summed over the files); learned adds at
most 0.2 s per answered question with the cross-encoder: the wall time of its `features` stage (the answered
questions' option features, cross-encoder included) per question; the row's CPU seconds of that stage are
printed too (on a shared machine wall time includes waiting for the cores). Fitting (searching and
cross-encoding the training questions, cross-validating the model) is a one-time cost per run, reported apart.

Run: .venv/bin/python bench/mcqa_fusion.py [--task mcqa-en|mcqa-zh] [--corpus shared-en] [--data FILE ...]
     [--train FILE ...] [--scorers bm25,dense,fused,learned] [--repeats 1]
(mcqa-en default data: ai2-science 8thgr-dev and elementary-dev; default train: the two ai2 train files.
mcqa-zh: corpus shared-zh, data the two gaokao files, and no training file: learned is fitted on the other
data file, leave one file out)."""
import argparse
import json
import os
import resource
import sys
import tempfile

from _common import PYTHON, data_dir, load_info, median, result_line, run_child, table, verdict

DEV = {"mcqa-en": ("ai2-science-ai2-8thgr-ndmc-feb2016-dev.csv", "ai2-science-ai2-elementary-ndmc-feb2016-dev.csv"),
       "mcqa-zh": ("gaokao-biology.csv", "gaokao-history.csv")}
TRAIN = {"mcqa-en": ("ai2-science-ai2-8thgr-ndmc-feb2016-train.csv",
                     "ai2-science-ai2-elementary-ndmc-feb2016-train.csv"),
         "mcqa-zh": ()}  # none: leave one data file out
CORPUS = {"mcqa-en": "shared-en", "mcqa-zh": "shared-zh"}


def options(scorer, trains):
    return {"bm25": [], "dense": ["--retriever", "dense"], "fused": ["--scorer", "fused"],
            "learned": ["--scorer", "learned", *(a for t in trains for a in ("--train", t))]}[scorer]


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(task, scorer, data, corpus, trains, work):
    """(wall seconds, CPU seconds, row) of one run in a fresh process."""
    out = os.path.join(work, f"{scorer}-{os.path.basename(data)}")
    before = cpu_of_children()
    child = run_child([PYTHON, "-m", "qa_baseline.run", "--task", task, "--data", data, "--corpus", corpus,
                       "--out", out, *options(scorer, trains)], env={"HF_HUB_OFFLINE": "1"})
    cpu = cpu_of_children() - before
    with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
        return child.wall, cpu, json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", choices=tuple(DEV), default="mcqa-en")
    ap.add_argument("--corpus", help="default shared-en (mcqa-en), shared-zh (mcqa-zh)")
    ap.add_argument("--data", action="append", help="a data file of the task (repeatable; default the two ai2 dev "
                                                    "files, or the two gaokao files)")
    ap.add_argument("--train", action="append", help="learned: a training file (repeatable; default ai2 train; "
                                                     "none for mcqa-zh: the other data files)")
    ap.add_argument("--scorers", default="bm25,dense,fused,learned")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    files = args.data or [data_dir("tasks", args.task, f) for f in DEV[args.task]]
    trains = args.train or [data_dir("tasks", args.task, f) for f in TRAIN[args.task]]
    args.corpus = args.corpus or CORPUS[args.task]
    scorers = args.scorers.split(",")
    print(f"corpus {args.corpus}; {load_info()} (a shared machine: wall times include waiting for the cores)")
    walls = {s: {f: [] for f in files} for s in scorers}
    cpus = {s: {f: [] for f in files} for s in scorers}
    rows = {}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.repeats):
            for f in files:
                for s in scorers:  # side by side: each file's four runs one after the other
                    fit = trains or [g for g in files if g != f]  # no training file: the other data files
                    wall, cpu, rows[s, f] = one_run(args.task, s, f, args.corpus, fit, work)
                    walls[s][f].append(wall)
                    cpus[s][f].append(cpu)
    figures = report(files, scorers, walls, cpus, rows)
    result_line(figures, ratios=figures.pop("ratios"), task=args.task, corpus=args.corpus,
                files=[os.path.basename(f) for f in files],
                train=[os.path.basename(t) for t in trains] or "other files")


def report(files, scorers, walls, cpus, rows):
    """Print the table and the verdicts; the figures for the JSON line."""
    table(["file", *(f"{s} acc / wall s / cpu s" for s in scorers)],
          [[os.path.basename(f)[:40], *(f"{100 * rows[s, f]['metrics']['accuracy']:.2f} / {median(walls[s][f]):.1f}"
                                        f" / {median(cpus[s][f]):.1f}" for s in scorers)] for f in files])
    figures = {"accuracy": {s: {os.path.basename(f): rows[s, f]["metrics"]["accuracy"] for f in files}
                            for s in scorers},
               "wall_seconds": {s: sum(median(walls[s][f]) for f in files) for s in scorers},
               "cpu_seconds": {s: sum(median(cpus[s][f]) for f in files) for s in scorers}, "ratios": {}}
    if {"bm25", "dense", "fused"} <= set(scorers):
        ratio = figures["wall_seconds"]["fused"] / (figures["wall_seconds"]["bm25"] + figures["wall_seconds"]["dense"])
        figures["ratios"]["fused_over_bm25_plus_dense"] = ratio
        verdict("fused run / (bm25 run + dense run), wall", ratio, 1.0, higher_is_better=False)
    if "learned" in scorers:
        questions = sum(rows["learned", f]["questions"] for f in files)
        stages = [rows["learned", f]["observed"] for f in files]
        per_q = sum(o["stage_seconds"]["features"] for o in stages) / questions
        per_q_cpu = sum(o["stage_cpu_seconds"]["features"] for o in stages) / questions
        fitting = sum(sum(o["stage_seconds"][k] for k in ("train_search", "train_features", "fit")) for o in stages)
        figures.update({"learned_features_seconds_per_question": per_q, "learned_features_cpu_per_question": per_q_cpu,
                        "learned_fitting_seconds": fitting, "learned_kept": {os.path.basename(f): rows[
                            "learned", f]["observed"]["learned"]["kept"] for f in files}})
        print(f"learned: the answered questions' features (cross-encoder included) {per_q:.3f} s wall, "
              f"{per_q_cpu:.3f} s CPU per question; fitting {fitting:.1f} s in all ({len(files)} runs)")
        if any(kept != "rule" for kept in figures["learned_kept"].values()):
            verdict("learned: seconds added per question (wall)", per_q, 0.2, higher_is_better=False, unit="s")
        else:  # the rule answered every file: nothing was added per question, and nothing to judge
            print("learned: not kept on any file (it did not beat the rule on held-out folds): the rule answered")
    return figures


if __name__ == "__main__":
    sys.exit(main())
