"""The baseline table for the overview paper: `python -m qa_baseline.report [RUNS_DIR] [--format md|latex|csv|json]`.

Reads every RUNS_DIR/**/row.json (default runs/, written by `python -m qa_baseline.run`): one table row per
(task, data file, corpus, retriever with its parameters); when several row.json share one, the newest file
wins; rows without metrics (data without gold) are left out. The Retriever column names the row's
"variant" when it has one, else the retriever and the parameters that differ between the task's rows.
Md and LaTeX give one table per task with its metrics as `value [low, high]`, then a reproducibility
manifest per row: git commit, data SHA-256, index fingerprint (these three shortened to 12 characters),
package versions, parameters, the run's effective settings. CSV and JSON give one record per (row, metric), manifest whole.

Confidence intervals: 95% bootstrap, percentile method. The questions are resampled with replacement
--resamples times (default 1000) by numpy's default_rng(--seed) (default 0), the same resamples for every
metric of a row; the interval runs from the 2.5th to the 97.5th percentile of the resampled means. It needs
the row's per-question values ("per_question" in row.json); rows without them get no interval."""
import argparse
import glob
import json
import os
import sys

from . import render
from .errors import UserError, cli
from .rows import RUNS

RESAMPLES, SEED, LEVEL = 1000, 0, 0.95
REQUIRED = ("task", "data", "corpus", "retriever", "metrics")
CHUNK = 100  # resamples drawn at a time: memory CHUNK x questions


def bootstrap_ci(values, resamples=RESAMPLES, seed=SEED, level=LEVEL):
    """(low, high) percentile bootstrap interval of the mean of VALUES."""
    import numpy as np
    values = np.asarray(values, dtype=float)
    if not len(values):
        return None
    rng = np.random.default_rng(seed)
    means = np.concatenate([values[rng.integers(0, len(values), size=(min(CHUNK, resamples - start), len(values)))]
                            .mean(axis=1) for start in range(0, resamples, CHUNK)])
    low, high = np.percentile(means, [50 * (1 - level), 50 * (1 + level)])
    return float(low), float(high)


def params_text(row, only=None):
    return " ".join(f"{k}={v}" for k, v in sorted(row.get("params", {}).items()) if only is None or k in only)


def key(row):
    """What makes a table row: task, data file, corpus, retriever and its parameters."""
    return row["task"], os.path.basename(row["data"]), row["corpus"], row["retriever"], params_text(row)


def variants(rows):
    """Label per row: the variant when the row names one, else the retriever and the parameters that differ
    between rows of the same task."""
    values = {}
    for row in rows:
        for k, v in row.get("params", {}).items():
            values.setdefault((row["task"], k), set()).add(json.dumps(v, sort_keys=True))
    varying = {task_param for task_param, vs in values.items() if len(vs) > 1}
    labels = []
    for row in rows:
        mine = {k for task, k in varying if task == row["task"]}
        labels.append(row.get("variant") or f"{row['retriever']} {params_text(row, mine)}".rstrip())
    return labels


def load_rows(folder):
    """The newest row with metrics per key, sorted by key."""
    rows = {}
    for path in sorted(glob.glob(os.path.join(folder, "**", "row.json"), recursive=True), key=lambda p: (os.path.getmtime(p), p)):
        try:
            with open(path, encoding="utf-8") as f:
                row = json.load(f)
        except ValueError as e:
            raise UserError(f"{path}: not JSON ({e}); re-run its task") from None
        if not isinstance(row, dict) or not all(k in row for k in REQUIRED):
            raise UserError(f"{path}: not a run row (it needs {', '.join(REQUIRED)}); re-run its task")
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
            "settings": json.dumps(row.get("settings", row.get("config", {})), ensure_ascii=False, sort_keys=True,
                                   separators=(",", ":"))}


def records(rows, resamples=RESAMPLES, seed=SEED):
    """One dict per (row, metric): the key, the value, the interval, the manifest."""
    out = []
    for row, variant in zip(rows, variants(rows)):
        task, data, corpus, retriever, _ = key(row)
        for metric, value in row["metrics"].items():
            values = (row.get("per_question") or {}).get(metric)
            low, high = bootstrap_ci(values, resamples, seed) if values else (None, None)
            out.append({"task": task, "data": data, "corpus": corpus, "retriever": retriever, "variant": variant,
                        "questions": row.get("questions"), "metric": metric, "value": value,
                        "ci_low": low, "ci_high": high, **manifest(row)})
    return out


def short(commit):
    """A commit shortened to 12 characters, keeping the -dirty mark."""
    return commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")


def cell(rec):
    value = f"{rec['value']:.3f}"
    return value if rec["ci_low"] is None else f"{value} [{rec['ci_low']:.3f}, {rec['ci_high']:.3f}]"


def paper_tables(recs, fmt, resamples):
    """One table per task (metrics as columns), then the manifest table."""
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
            ["Data", "Corpus", "Retriever", "#Q", *metrics], [[*run, *(cells.get(m, "") for m in metrics)]
                                                             for run, cells in rows.items()],
            fmt, caption=f"{task}: value [95% bootstrap CI, {resamples} resamples]",
            align="lllr" + "r" * len(metrics)))
    out.append(render.render(
        ["Run", "Commit", "Data SHA-256", "Index", "Versions", "Parameters", "Settings"],
        [[" / ".join(run), short(r["git_commit"]), r["data_sha256"][:12], r["index_fingerprint"][:12],
          r["versions"], r["params"], r["settings"]] for run, r in manifests.items()],
        fmt, caption="Reproducibility manifest"))
    return "\n\n".join(out)


def parser():
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.report", description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="?", default=RUNS, help="folder searched for **/row.json (default runs/)")
    ap.add_argument("--format", choices=render.FORMATS, default="md", help="output format (default md)")
    ap.add_argument("--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples (default {RESAMPLES})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"bootstrap seed (default {SEED})")
    return ap


@cli
def main(argv=None):
    args = parser().parse_args(argv)
    if args.resamples < 1:
        raise UserError(f"--resamples must be at least 1, not {args.resamples}")
    recs = records(load_rows(args.runs), args.resamples, args.seed)
    if args.format in ("csv", "json"):
        print(render.render(list(recs[0]), [list(r.values()) for r in recs], args.format))
    else:
        print(paper_tables(recs, args.format, args.resamples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
