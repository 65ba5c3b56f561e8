"""The baseline table for the overview paper: `python -m qa_baseline.report [RUNS_DIR] [--format md|latex|csv|json]
[--plot FILE.png|FILE.pdf] [--leaderboard FILE.json ...]`.

Reads every RUNS_DIR/**/row.json (default runs/, written by `python -m qa_baseline.run`): one table row per
(task, data file, corpus, retriever with its parameters); when several row.json share one, the newest file
wins; rows without metrics (data without gold) are left out. The Retriever column names the row's
"variant" when it has one, else the retriever and the short parameters that differ between the task's rows
(lists, tables and checksums such as a learned ranker's weights stay in the manifest).
Md and LaTeX give one table per task with its metrics as `value [low, high]`: in per cent with one decimal
where the task's papers give per cent (accuracy, EM), else as fractions with three decimals (MRR, MAP, F1);
then a reproducibility manifest per row: git commit, data SHA-256, index fingerprint (these three shortened
to 12 characters), package versions, parameters, the run's effective settings (LaTeX: a description list,
each table with a label). CSV and JSON give one record per (row, metric) with raw fractions, manifest whole.

Confidence intervals: 95% bootstrap, percentile method (qa_baseline/significance.py). The questions are
resampled with replacement --resamples times (default 1000) by numpy's default_rng(--seed) (default 0), the
same resamples for every metric of a row; the interval runs from the 2.5th to the 97.5th percentile of the
resampled means. It needs the row's per-question values ("per_question" in row.json); rows without them get
no interval.

--plot FILE draws the overview figure (qa_baseline/plot.py): per task and data file, every row's main measure
with its interval, plus the teams of each --leaderboard FILE.json (written by `score --submissions ...
--format json`)."""
import argparse
import json
import os
import sys

from . import render
from .errors import UserError, cli
from .rows import RUNS, read_rows
from .significance import RESAMPLES, SEED, bootstrap_ci

LABEL_CHARS = 24  # a parameter longer than this (a path, a checksum, learned weights) stays out of the label


def params_text(row, only=None):
    return " ".join(f"{k}={v}" for k, v in sorted(row.get("params", {}).items()) if only is None or k in only)


def key(row):
    """What makes a table row: task, data file, corpus, retriever and its parameters."""
    return row["task"], os.path.basename(row["data"]), row["corpus"], row["retriever"], params_text(row)


def variants(rows):
    """Label per row: the variant when the row names one, else the retriever and the short parameters (short)
    that differ between rows of the same task; checksums, paths, lists and tables stay in the manifest."""
    values = {}
    for row in rows:
        for k, v in row.get("params", {}).items():
            values.setdefault((row["task"], k), set()).add(json.dumps(v, sort_keys=True))
    varying = {task_param for task_param, vs in values.items() if len(vs) > 1 and all(short(json.loads(v)) for v in vs)
               and not task_param[1].endswith("sha256")}
    labels = []
    for row in rows:
        mine = {k for task, k in varying if task == row["task"]}
        labels.append(row.get("variant") or f"{row['retriever']} {params_text(row, mine)}".rstrip())
    return labels


def short(value):
    """Whether a parameter value is short enough for the Retriever column: a scalar of at most LABEL_CHARS."""
    return value is None or isinstance(value, (str, int, float, bool)) and len(str(value)) <= LABEL_CHARS


def load_rows(folder):
    """The newest row with metrics per key, sorted by key."""
    rows = {}
    for path, row in read_rows(folder):
        if not row["metrics"]:
            print(f"note: {path} has no metrics (data without gold): left out", file=sys.stderr)
            continue
        if key(row) in rows:
            print(f"note: {path} replaces an older row of {' / '.join(key(row))}", file=sys.stderr)
        rows[key(row)] = row
    if not rows:
        raise UserError(f"{folder}: no row.json with metrics; run `python -m qa_baseline.run --task TASK` first")
    return [rows[k] for k in sorted(rows)]


def manifest(row):
    index = row.get("index_manifest") or {}
    versions = row.get("versions") or index.get("versions") or {}
    return {"git_commit": row.get("git_commit") or "unknown", "data_sha256": row.get("data_sha256", ""),
            "index_fingerprint": index.get("fingerprint", ""),
            "versions": ", ".join(f"{k} {v}" for k, v in sorted(versions.items())),
            "params": params_text(row),
            "settings": " ".join(f"{k}={json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v}"
                                 for k, v in sorted((row.get("settings") or row.get("config") or {}).items()))}


def metric_order(task_id, names):
    """NAMES in the order the task declares its measures (MRR, MAP, ACC@1; a measure over a part, such as
    accuracy[en], after its measure), names the task does not declare last."""
    from . import tasks
    try:
        declared = list(tasks.get(task_id).measures)
    except UserError:
        declared = []
    base = [n.split("[", 1)[0] for n in names]
    return [n for _, n in sorted(zip(base, names), key=lambda bn: (
        declared.index(bn[0]) if bn[0] in declared else len(declared), "[" in bn[1]))]


def records(rows, resamples=RESAMPLES, seed=SEED):
    """One dict per (row, metric): the key, the value, the interval, the manifest."""
    out = []
    for row, variant in zip(rows, variants(rows)):
        task, data, corpus, retriever, _ = key(row)
        for metric in metric_order(task, list(row["metrics"])):
            value = row["metrics"][metric]
            values = (row.get("per_question") or {}).get(metric)
            low, high = bootstrap_ci(values, resamples, seed) if values else (None, None)
            out.append({"task": task, "data": data, "corpus": corpus, "retriever": retriever, "variant": variant,
                        "questions": row.get("questions"), "metric": metric, "value": value,
                        "ci_low": low, "ci_high": high, **manifest(row)})
    return out


def short_commit(commit):
    """A commit shortened to 12 characters, keeping the -dirty mark."""
    return commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")


def cell(rec):
    """`value [low, high]` as the task's papers print the measure (per cent or fraction)."""
    value = render.number(rec["metric"], rec["value"])
    if rec["ci_low"] is None:
        return value
    return f"{value} [{render.number(rec['metric'], rec['ci_low'])}, {render.number(rec['metric'], rec['ci_high'])}]"


def paper_tables(recs, fmt, resamples):
    """One table per task (metrics as columns), then the manifest (a table; in LaTeX a description list)."""
    out, manifests = [], {}
    for task in dict.fromkeys(r["task"] for r in recs):
        mine = [r for r in recs if r["task"] == task]
        metrics = list(dict.fromkeys(r["metric"] for r in mine))
        rows = {}
        for r in mine:
            run = (r["data"], r["corpus"], r["variant"], r["questions"])
            rows.setdefault(run, {})[r["metric"]] = cell(r)
            manifests[(task, *run[:3])] = r
        out.append(render.render(
            ["Data", "Corpus", "Retriever", "#Q", *map(render.heading, metrics)],
            [[*run, *(cells.get(m, "") for m in metrics)] for run, cells in rows.items()],
            fmt, caption=f"{task}: value [95% bootstrap CI, {resamples} resamples of the questions]",
            align="lllr" + "r" * len(metrics), label=f"tab:baselines-{task}"))
    fields = [[" / ".join(run), short_commit(r["git_commit"]), r["data_sha256"][:12], r["index_fingerprint"][:12],
               r["versions"], r["params"], r["settings"]] for run, r in manifests.items()]
    header = ["Run", "Commit", "Data SHA-256", "Index", "Versions", "Parameters", "Settings"]
    if fmt == "latex":
        out.append(render.latex_list("Reproducibility manifest", [(f[0], list(zip(header[1:], f[1:]))) for f in fields],
                                     label="sec:baselines-manifest"))
    else:
        out.append(render.render(header, fields, fmt, caption="Reproducibility manifest"))
    return "\n\n".join(out)


def parser():
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.report", description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="?", default=RUNS, help="folder searched for **/row.json (default runs/)")
    ap.add_argument("--format", choices=render.FORMATS, default="md", help="output format (default md)")
    ap.add_argument("--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples (default {RESAMPLES})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"bootstrap seed (default {SEED})")
    ap.add_argument("--plot", metavar="FILE.png|FILE.pdf", help="also draw the overview figure into FILE")
    ap.add_argument("--leaderboard", action="append", default=[], metavar="FILE.json",
                    help="with --plot: add the teams of a leaderboard (score --submissions ... --format json)")
    return ap


def main_measure(task_id, metrics):
    """The measure a task's figure shows: the leaderboard's ranking measure, else the row's first metric."""
    from . import tasks
    try:
        wanted = tasks.get(task_id).main_measure
    except UserError:  # a row of a task this version does not know
        wanted = None
    return wanted if wanted in metrics else next(iter(metrics))


def panels(recs, leaderboards=()):
    """Figure panels (plot.py): one per (task, data file) with each row's main measure, and per leaderboard
    its entries (joined to the panel of the same task and gold file when the runs have one)."""
    from .plot import Panel, Point
    out = {}
    for rec in recs:
        metrics = [r["metric"] for r in recs if (r["task"], r["data"]) == (rec["task"], rec["data"])]
        if rec["metric"] == main_measure(rec["task"], metrics):
            key = (rec["task"], rec["data"])
            out.setdefault(key, Panel(f"{rec['task']}: {rec['data']}", rec["metric"], []))
            label = rec["variant"] if rec["corpus"] == "-" else f"{rec['corpus']} {rec['variant']}"
            out[key].points.append(Point(label, rec["value"], rec["ci_low"],
                                         rec["ci_high"], "baseline"))
    for path in leaderboards:
        board = read_leaderboard(path)
        key = (board["task"], ", ".join(os.path.basename(g) for g in board["gold"]))
        joined = key in out and out[key].metric == board["measure"]
        panel = out[key] if joined else out.setdefault((*key, path), Panel(f"{key[0]}: {key[1]}", board["measure"], []))
        for e in board["entries"]:
            if joined and e["kind"] == "baseline":
                continue  # the runs give the baselines already
            low, high = e["ci"].get(board["measure"]) or (None, None)
            label = e["name"] if e["rank"] is None else f"{e['rank']}. {e['name']}"
            panel.points.append(Point(label, e["metrics"][board["measure"]], low, high, e["kind"]))
    return list(out.values())


def read_leaderboard(path):
    """A leaderboard written by `score --submissions ... --format json`."""
    try:
        with open(path, encoding="utf-8") as f:
            board = json.load(f)
    except OSError as e:
        raise UserError(f"{path}: cannot read it ({e.strerror})") from None
    except ValueError as e:
        raise UserError(f"{path}: not JSON ({e}); write it with `score --submissions ... --format json`") from None
    if not isinstance(board, dict) or not all(k in board for k in ("task", "gold", "measure", "entries")):
        raise UserError(f"{path}: not a leaderboard (task, gold, measure, entries); write it with "
                        "`score --submissions ... --format json`")
    return board


@cli
def main(argv=None):
    args = parser().parse_args(argv)
    if args.resamples < 1:
        raise UserError(f"--resamples must be at least 1, not {args.resamples}")
    if args.leaderboard and not args.plot:
        raise UserError("--leaderboard adds teams to the figure: give --plot FILE too")
    if args.plot:
        from .plot import check_path
        check_path(args.plot)
    recs = records(load_rows(args.runs), args.resamples, args.seed)
    if args.format in ("csv", "json"):
        print(render.render(list(recs[0]), [list(r.values()) for r in recs], args.format))
    else:
        print(paper_tables(recs, args.format, args.resamples))
    if args.plot:
        from .plot import save
        save(panels(recs, args.leaderboard), args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
