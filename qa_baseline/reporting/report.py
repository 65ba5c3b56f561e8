"""The baseline tables of the overview paper from runs' row.json files: rows loaded and merged, records with
bootstrap intervals, the tables and manifest, the figure's panels (the command, `qa-baseline report`, is
qa_baseline/report.py)."""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import tasks
from ..core.errors import UserError
from ..core.hints import command, plural
from ..scoring.significance import RESAMPLES, SEED, bootstrap_ci
from . import render
from .plot import Panel, Point, entry_label, references
from .rows import IDENTITY_KEYS, Label, corpus_name, corpus_parts, method_heading, newest, observed_of, \
    read_rows, run_labels, settings_of


def load_rows(folder: str) -> list[dict[str, Any]]:
    """The newest row with metrics per settings (a rerun of the same settings replaces the older row, said on
    stderr), in table order."""
    found = []
    for path, row in read_rows(folder):
        if row["metrics"]:
            found.append((path, row))
        else:
            print(f"note: {path} has no metrics (data without gold): left out", file=sys.stderr)
    if not found:
        raise UserError(f"{folder}: no row.json with metrics (fix: run `{command('run')} --task TASK` first)")
    return newest(found)


def text(mapping: Mapping[str, Any]) -> str:
    """Settings or observations as `k=v` pairs, lists and tables as JSON."""
    return " ".join(f"{k}={json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v}"
                    for k, v in mapping.items())


def manifest(row: Mapping[str, Any]) -> dict[str, Any]:
    index = row.get("index_manifest") or {}
    versions = row.get("versions") or index.get("versions") or {}
    return {"git_commit": row.get("git_commit") or "unknown", "data_sha256": row.get("data_sha256", ""),
            "index_fingerprint": index.get("fingerprint", ""),
            "versions": ", ".join(f"{k} {v}" for k, v in sorted(versions.items())),
            "settings": text({k: v for k, v in settings_of(row).items() if k not in IDENTITY_KEYS}),
            "observed": text(observed_of(row))}


def metric_order(task_id: str, names: Iterable[str]) -> list[str]:
    """NAMES in the order the task declares its measures (MRR, MAP, ACC@1; a measure over a part, such as
    accuracy[en], after its measure), names the task does not declare last."""
    try:
        declared = list(tasks.get(task_id).measures)
    except UserError:
        declared = []
    base = [n.split("[", 1)[0] for n in names]
    return [n for _, n in sorted(zip(base, names), key=lambda bn: (
        declared.index(bn[0]) if bn[0] in declared else len(declared), "[" in bn[1]))]


def records(rows: Sequence[Mapping[str, Any]], resamples: int = RESAMPLES, seed: int = SEED) -> list[dict[str, Any]]:
    """One dict per (row, metric): the key, the value, the interval, the manifest."""
    out = []
    for row, label in zip(rows, run_labels(rows)):
        variant = label.method  # the method column; the figure shows str(label), with the corpus where it differs
        task, data, corpus, retriever = row["task"], os.path.basename(row["data"]), row["corpus"], row["retriever"]
        for metric in metric_order(task, list(row["metrics"])):
            value = row["metrics"][metric]
            values = (row.get("per_question") or {}).get(metric)
            low, high = (bootstrap_ci(values, resamples, seed) if values else None) or (None, None)
            out.append({"task": task, "data": data, "corpus": corpus, "retriever": retriever, "variant": variant,
                        "questions": row.get("questions"), "metric": metric, "value": value,
                        "answer_nothing": observed_of(row).get("answer_nothing") if metric == "AFM" else None,
                        "ci_low": low, "ci_high": high, **manifest(row)})
    return out


def short_commit(commit: str) -> str:
    """A commit shortened to 12 characters, keeping the -dirty mark."""
    return commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")


def cell(rec: dict, ci: bool = True) -> render.Stacked:
    """The value as the task's papers print the measure (per cent or fraction), with its interval `[low, high]`
    as the note under it (render.Stacked) when CI and the row has one."""
    interval = (rec["ci_low"], rec["ci_high"]) if ci and rec["ci_low"] is not None else None
    return render.estimate(rec["metric"], rec["value"], interval)


def paper_tables(recs: list[dict], fmt: str, resamples: int, width: str = "column", ci: bool = True,
                 with_manifest: bool = True) -> str:
    """One table per task, metrics as columns: with several data files a group of rows per file, headed by
    its name and question count; the Corpus and #Q columns only where they differ, else named in the caption
    (a sentence). Then, WITH_MANIFEST, the manifest (a table; in LaTeX a description list)."""
    out, manifests = [], {}
    for task in dict.fromkeys(r["task"] for r in recs):
        mine = [r for r in recs if r["task"] == task]
        metrics = list(dict.fromkeys(r["metric"] for r in mine))
        rows: dict[tuple[Any, ...], dict[str, render.Stacked]] = {}
        for r, corpus in zip(mine, corpus_parts(mine)):  # the corpus of the run's Label: "" where all share it
            run = (r["data"], corpus, r["variant"], "" if r["questions"] is None else r["questions"])
            rows.setdefault(run, {})[r["metric"]] = cell(r, ci)
            manifests[(task, r["data"], corpus_name(task, r["corpus"]), r["variant"])] = r
        datas, corpora = list(dict.fromkeys(run[0] for run in rows)), {corpus_name(task, r["corpus"]) for r in mine}
        questions = {data: list(dict.fromkeys(run[3] for run in rows if run[0] == data)) for data in datas}
        per_row = any(len(q) > 1 for q in questions.values())  # held-out runs score fewer questions: a #Q column

        def count(data):
            return [] if per_row or questions[data] == [""] else [plural(questions[data][0], "question")]
        facts = [task, *(f"corpus {c}" for c in corpora if c and len(corpora) == 1),
                 *(count(datas[0]) if len(datas) == 1 else [])]
        where = f" on {datas[0]}" if len(datas) == 1 else f" on {len(datas)} data files"
        shown = [ci and r["ci_low"] is not None for r in mine]
        intervals = (f" with 95% bootstrap confidence intervals ({resamples:,} resamples"
                     f"{'' if all(shown) else '; none for a run without per-question values'})") if any(shown) else ""
        columns = [*(["Corpus"] if len(corpora) > 1 else []), method_heading(task), *(["#Q"] if per_row else [])]
        body: list[list[Any] | render.Heading] = []
        for data in datas:
            body += [render.Heading(" ".join([data, *(f"({n})" for n in count(data))]))] if len(datas) > 1 else []
            body += [[*([run[1]] if len(corpora) > 1 else []), run[2], *([run[3]] if per_row else []),
                      *(cells.get(m, "") for m in metrics)] for run, cells in rows.items() if run[0] == data]
        out.append(render.render(
            columns + list(map(render.heading, metrics)), body, fmt,
            caption=f"Baseline results{where} ({', '.join(facts)}): {render.measure_list(metrics)}{intervals}.",
            align="l" * (len(corpora) > 1) + "l" + "r" * per_row + "r" * len(metrics),
            label=f"tab:baselines-{task}", width=width))
    if not with_manifest:
        return "\n\n".join(out)
    headings = {"git_commit": "Commit", "data_sha256": "Data SHA-256", "index_fingerprint": "Index",
                "versions": "Versions", "settings": "Settings"}  # what reproduces a run; CSV and JSON give all

    def shortened(k, v):
        return short_commit(v) if k == "git_commit" else v[:12] if k.endswith(("sha256", "fingerprint")) else v
    fields = [(" / ".join(part for part in run if part),
               [(heading, shortened(k, r.get(k) or "")) for k, heading in headings.items()])
              for run, r in manifests.items()]
    if fmt == "latex":
        out.append(render.latex_list("Reproducibility manifest", fields, label="sec:baselines-manifest"))
    else:
        out.append(render.render(["Run", *headings.values()], [[run, *(v for _, v in f)] for run, f in fields], fmt,
                                 caption="Reproducibility manifest"))
    return "\n\n".join(out)


def main_measure(task_id: str, metrics: Sequence[str]) -> str:
    """The measure a task's figure shows: the leaderboard's ranking measure, else the row's first metric."""
    try:
        wanted: str | None = tasks.get(task_id).main_measure
    except UserError:  # a row of a task this version does not know
        wanted = None
    return wanted if wanted is not None and wanted in metrics else next(iter(metrics))


def panels(recs: Sequence[Mapping[str, Any]], leaderboards: Iterable[Any] = ()) -> list[Any]:
    """Figure panels (plot.py): one per (task, data file) with each row's main measure, in the order of the
    table, labelled as the table names the row (rows.Label: the corpus where the task's rows differ in it, then
    the method column); and per
    leaderboard its entries, joined to the panel of the same task and gold file when the runs have one (the
    runs give the baselines; the panel is then ordered as a leaderboard: best first, a team before a baseline
    it ties with). Reference lines (plot.references): chance for MCQA; the answer-nothing AFM of qac-2/3 that
    the runs observed on their gold (or computed from a leaderboard's gold file)."""
    rows: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    named: dict[int, str] = {}  # id(record): its label
    for rec, corpus in zip(recs, corpus_parts(recs)):
        metrics = [r["metric"] for r in recs if (r["task"], r["data"]) == (rec["task"], rec["data"])]
        if rec["metric"] == main_measure(rec["task"], metrics):
            rows.setdefault((rec["task"], rec["data"]), []).append(rec)
            named[id(rec)] = str(Label(rec["variant"], corpus))
    out: dict[tuple[Any, ...], Any] = {}
    for (task, data), mine in rows.items():
        out[(task, data)] = Panel(f"{task}: {data}", mine[0]["metric"], [Point(
            named[id(r)], r["value"], r["ci_low"], r["ci_high"], "baseline") for r in mine],
            references(task, mine[0]["metric"])
            or [("answer nothing", r["answer_nothing"]) for r in mine[:1] if r.get("answer_nothing") is not None])
    for path in leaderboards:
        board = read_leaderboard(path)
        key: tuple[Any, ...] = (board["task"], ", ".join(os.path.basename(g) for g in board["gold"]))
        joined = key in out and out[key].metric == board["measure"]
        if not joined:
            key = (*key, path)
            out[key] = Panel(f"{key[0]}: {key[1]}", board["measure"], [], references(board["task"], board["measure"]))
        if not out[key].references:
            out[key] = out[key]._replace(references=references(board["task"], board["measure"], board["gold"]))
        for e in board["entries"]:
            if joined and e["kind"] == "baseline":
                continue  # the runs give the baselines already
            low, high = e["ci"].get(board["measure"]) or (None, None)
            out[key].points.append(Point(entry_label(e["name"], e["rank"], e["kind"]), e["metrics"][board["measure"]],
                                         low, high, e["kind"]))
        if joined:
            out[key].points.sort(key=lambda p: (-p.value, p.kind != "team"))
    return list(out.values())


def read_leaderboard(path: str) -> Any:
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
