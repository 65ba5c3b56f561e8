"""Baseline rows: what one run measured, printed as a line and saved as runs/.../row.json.

A row (schema 2) keeps two parts apart: `settings`, what identifies the run (task, data file and checksum,
corpus, method, the retriever's and the task's settings, a --train file by name and checksum, the answer
model's kind), and `observed`, what the run found (timings, ceilings, fitted weights, held-out scores). Beside
them: metrics and per-question values, the files written, the index manifest, the effective `config`, package
versions and the git commit. Rows are merged by their effective settings (a method given as `auto` counts as
the one it ran) and labelled by run_labels, the one labeller of the report's tables, its figure and the
leaderboard's baselines."""
from __future__ import annotations

import dataclasses
import glob
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import ROOT, tasks
from ..core import textio
from ..core.config import WORKSPACE
from ..core.errors import UserError
from ..core.fileio import write_json
from ..core.versions import versions

RUNS = os.path.join(WORKSPACE, "runs")
REQUIRED = ("task", "data", "corpus", "retriever", "metrics")
ROW_SCHEMA = 2
IDENTITY_KEYS = ("task", "data", "data_sha256", "corpus", "method")  # in every row's settings; shown as columns
OBSERVED_KEYS = ("seconds", "stage_seconds", "questions_per_second", "ceiling", "answer_model", "train_questions",
                 "train_stats", "weights", "unreadable_datasets", "operators", "dataset_accuracy", "kb")


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def run_dir(task: str, data: str, corpus: str, variant: str) -> str:
    parts = [textio.stem(data), corpus, variant] if corpus != "-" else [textio.stem(data), variant]
    return os.path.join(RUNS, task, "--".join(parts))


def settings_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row's settings; a row written before schema 2 (one `params` dict mixing settings and observations)
    gets them from its task, data, corpus, retriever and params less the keys known to be observations."""
    if row.get("schema", 1) >= 2:
        return row["settings"]
    params = {k: v for k, v in (row.get("params") or {}).items() if k not in OBSERVED_KEYS}
    return {"task": row["task"], "data": os.path.basename(row["data"]), "data_sha256": row.get("data_sha256", ""),
            "corpus": row["corpus"], "method": row["retriever"], **params}


def observed_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row's observations (for a row before schema 2: the observation keys of its params)."""
    if row.get("schema", 1) >= 2:
        return row.get("observed") or {}
    return {k: v for k, v in (row.get("params") or {}).items() if k in OBSERVED_KEYS}


def short(value: Any, limit: int = 24) -> bool:
    """Whether a setting's value is short enough for a label (a scalar of at most LIMIT characters, or a file)."""
    return isinstance(value, dict) and "file" in value or \
        isinstance(value, (str, int, float, bool)) and len(str(value)) <= limit


def setting_text(name: str, value: Any) -> str:
    """One setting as a label shows it: name=value, a file by its name, a true flag by its name alone."""
    if value is True:
        return name
    return f"{name}={value['file'] if isinstance(value, dict) and 'file' in value else value}"


METHOD_SETTINGS = ("reranker", "retriever")  # the settings that give a run's method (the row's `method`); a row
# records one only where the pipeline resolved the method it was given: `--reranker auto` records reranker=cross


def methods(settings: Mapping[str, Any]) -> tuple[str, str]:
    """(the method a run was given, the method it ran): (auto, cross) for `--reranker auto` without --train,
    (bm25, bm25) for `--reranker bm25`."""
    given = settings["method"]
    return given, next((settings[k] for k in METHOD_SETTINGS if isinstance(settings.get(k), str)), given)


def effective(settings: Mapping[str, Any]) -> dict[str, Any]:
    """SETTINGS with the method that ran for the method given: a run of `--reranker auto` that ran cross has
    the settings of a run of `--reranker cross`."""
    return {**{k: v for k, v in settings.items() if k not in METHOD_SETTINGS}, "method": methods(settings)[1]}


def key(row: Mapping[str, Any]) -> str:
    """What makes a table row: the row's effective settings (task, data file and checksum, corpus, the method
    that ran and every setting that identifies the run); rows whose effective settings are equal are runs of
    one computation (reruns, or `--reranker auto` and the `cross` it resolved to)."""
    return json.dumps(effective(settings_of(row)), sort_keys=True, ensure_ascii=False)


def order(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """Table order: task, data file, corpus, the method given, the method it ran, then the settings."""
    s = settings_of(row)
    return s["task"], s["data"], s["corpus"], *methods(s), key(row)


def method_heading(task_id: str) -> str:
    """The heading of a task's method column: Reranker where the method is its --reranker (DBQA), else
    Retriever."""
    try:
        fields = {f.name for f in dataclasses.fields(tasks.get(task_id).Settings)}
    except UserError:  # a row of a task this version does not know
        fields = set()
    return "Reranker" if "reranker" in fields else "Retriever"


def corpus_name(task_id: str, corpus: str) -> str:
    """A row's corpus as tables, captions and labels name it (a file's stem); "" for none: "-", or the task's
    `source` (the corpus field of a task that opens no corpus, such as DBQA's given sentences)."""
    try:
        source = tasks.get(task_id).source
    except UserError:
        source = "-"
    return "" if corpus in ("-", source) else textio.stem(corpus)


@dataclasses.dataclass(frozen=True)
class Label:
    """How the report's tables, its figure and the leaderboard name one run: METHOD, the method column (the
    method, what it resolved to in brackets, the --train file and the settings that tell the task's rows
    apart), and CORPUS, the corpus where the task's rows differ in it, else "" (a caption names it)."""
    method: str
    corpus: str = ""

    def __str__(self) -> str:
        """The label as one text, as the figure and the leaderboard show it: `CORPUS METHOD`."""
        return f"{self.corpus} {self.method}" if self.corpus else self.method


def corpus_parts(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Label.corpus of each row or record of ITEMS (their task and corpus): its corpus_name where the items
    of its task name more than one corpus, else ""."""
    names = [corpus_name(i["task"], i["corpus"]) for i in items]
    named: dict[str, set[str]] = {}
    for item, name in zip(items, names):
        named.setdefault(item["task"], set()).add(name)
    return [name if len(named[item["task"]]) > 1 else "" for item, name in zip(items, names)]


def run_labels(rows: Sequence[Mapping[str, Any]]) -> list[Label]:
    """The Label of each of ROWS, told apart from the rows of its task among ROWS. The method: the method
    given, with the method it resolved to (auto (cross)); then the --train file a model was fitted on (by
    name) and the short settings whose values differ between the task's rows (or that rows of the same method
    have and lack; a file by its name), leaving out None/False and a setting at its default; checksums, lists
    and tables stay in the manifest, the task and data have captions or headings of their own."""
    values: dict[tuple[Any, ...], set[Any]] = {}
    present: dict[tuple[Any, ...], list[Any]] = {}
    defaults: dict[str, Any] = {}
    for row in rows:
        task, settings = row["task"], effective(settings_of(row))
        if task not in defaults:
            try:
                defaults[task] = {f.name: f.default for f in dataclasses.fields(tasks.get(task).Settings)}
            except UserError:  # a row of a task this version does not know
                defaults[task] = {}
        for k, v in settings.items():
            values.setdefault((task, k), set()).add(json.dumps(v, sort_keys=True))
        present.setdefault((task, settings["method"]), []).append(set(settings))
    varying = {tk for tk, vs in values.items() if len(vs) > 1}
    varying |= {(task, k) for (task, _), keys in present.items() for k in set.union(*keys) - set.intersection(*keys)}
    out = []
    for row, corpus in zip(rows, corpus_parts(rows)):
        task, settings = row["task"], effective(settings_of(row))
        given, ran = methods(settings_of(row))
        shown = [setting_text(k, v) for k, v in settings.items()
                 if k not in IDENTITY_KEYS and not k.endswith("sha256") and short(v) and v not in (None, False)
                 and ((task, k) in varying or k == "train") and v != defaults[task].get(k, object())]
        out.append(Label(" ".join([given if given == ran else f"{given} ({ran})", *shown]), corpus))
    return out


def labels(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The label of each of ROWS as one text (str of run_labels): the figure's, and the leaderboard's baseline
    name after `baseline `."""
    return [str(label) for label in run_labels(rows)]


def newest(found: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The newest of each effective settings among FOUND [(path, row)], oldest first as read_rows gives them (a
    rerun of the same settings replaces the older row, said on stderr), in table order. Where a run of
    `--reranker auto` and one of the method it resolved to (cross) are merged, the row shown keeps the auto
    run's method and resolution, so that its label names both: auto (cross)."""
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for path, row in found:
        for older, _ in groups.get(key(row), [])[-1:]:
            print(f"note: {path} and {older} are runs of the same settings: the newer, {path}, is shown",
                  file=sys.stderr)
        groups.setdefault(key(row), []).append((path, row))
    rows = []
    for group in groups.values():
        row = group[-1][1]
        resolving = [settings_of(r) for _, r in group if len(set(methods(settings_of(r)))) > 1]
        if resolving and len(set(methods(settings_of(row)))) == 1 and row.get("schema", 1) >= 2:
            row = {**row, "settings": {**row["settings"], **{k: v for k, v in resolving[-1].items()
                                                             if k == "method" or k in METHOD_SETTINGS}}}
        rows.append(row)
    return sorted(rows, key=order)


def format_row(row: Mapping[str, Any]) -> str:
    settings = settings_of(row)
    shown = " ".join(setting_text(k, v) for k, v in settings.items()
                     if k not in IDENTITY_KEYS and v not in (None, False) and short(v))
    metrics = "  ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in row["metrics"].items())
    return (f"{row['task']}\t{os.path.basename(row['data'])}\t{row['corpus']}\t{row['retriever']}\t"
            f"{shown}\t#q={row['questions']}\t{metrics}")


def save_row(out_dir: str, row: dict[str, Any]) -> dict[str, Any]:
    row = {**row, "git_commit": git_commit(), "versions": versions()}
    write_json(os.path.join(out_dir, "row.json"), row)
    print(format_row(row))
    return row


def read_rows(folder: str) -> list[tuple[str, dict[str, Any]]]:
    """(path, row) of every FOLDER/**/row.json, oldest file first; a file that is not a run row is a UserError."""
    if not os.path.isdir(folder):
        raise UserError(f"{folder}: no such folder (fix: give the folder that `run` wrote its runs into, by "
                        "default runs/)")
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "row.json"), recursive=True),
                       key=lambda p: (os.path.getmtime(p), p)):
        try:
            with open(path, encoding="utf-8") as f:
                row = json.load(f)
        except ValueError as e:
            raise UserError(f"{path}: not JSON ({e}); re-run its task") from None
        if not isinstance(row, dict) or not all(k in row for k in REQUIRED):
            raise UserError(f"{path}: not a run row (it needs {', '.join(REQUIRED)}); re-run its task")
        found.append((path, row))
    return found
