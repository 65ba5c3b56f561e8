"""Run a task's baseline: `python -m qa_baseline.run --task TASK [--data FILE] [--out DIR] [TASK OPTIONS]`.

One driver for every task (qa_baseline/tasks): read the input -> predict -> write the submission atomically ->
read it back through the task's own validator -> score when the data has gold -> save and print the row
(runs/TASK/DATA--CORPUS--VARIANT/row.json, or --out DIR). Defaults come from the task's Settings and
qa_baseline/configs/tasks/TASK.yaml; `--task TASK --help` lists the task's own options.

A run folder holds one run: its files are written under a lock on the folder (a second run writing there
waits), row.json last (a folder without it holds an unfinished run), and the files an earlier run of the
same identity wrote and this one does not (a trace, another team's submission) are removed; no other file
is touched. A folder holding another run's row (other data, options or task) is never overwritten."""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import tasks
from .core.config import config_path, resolve_path, task_config
from .core.errors import UserError, cli
from .core.fileio import atomic_write, locked, read_json, sha256_file
from .core.hints import prog
from .core.process import threads  # QA_BASELINE_THREADS: encoder and faiss scores may depend on it
from .core.settings import add_options, described, identifies, make_settings, reads_gold, values_of
from .core.textio import CONTROL, check_readable, stem
from .reporting.rows import ROW_SCHEMA, run_dir, save_row
from .retrievers.base import Retriever, RetrieverSettings
from .scoring.metrics import measure
from .scoring.validate import Errors
from .tasks.base import Prediction, Settings, Task
from .tasks.hf import is_dataset_folder

DRIVER_OPTIONS = ("task", "data", "out")


def parser(task: Task[Any] | None = None) -> argparse.ArgumentParser:
    listing = "\n".join(f"  {tid:<11} {tasks.get(tid).title}" + ("" if tasks.get(tid).has_pipeline else
                                                                   " (scorer only: no pipeline yet)")
                        for tid in tasks.ids())
    ap = argparse.ArgumentParser(prog=prog("run"), description=__doc__.split("\n\n")[0],
                                 epilog=f"tasks:\n{listing}\n\n`--task TASK --help` lists a task's own options.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", required=True, choices=tasks.ids(), metavar="TASK", help="task id (listed below)")
    ap.add_argument("--data", help="task data file (default: the task config's data)")
    ap.add_argument("--out", help="run folder for the submission, row.json and trace (default under runs/)")
    if task is not None:
        add_options(ap.add_argument_group(f"{task.id} options"), task.Settings, config=task_config(task.id))
    return ap


def default_data(task_id: str, paths: str | Sequence[str] | None) -> str:
    """The first existing file of the task config's `data` (a path or a list of paths)."""
    paths = [resolve_path(p) for p in ([paths] if isinstance(paths, str) else paths or [])]
    found = next((p for p in paths if os.path.isfile(p)), None)
    if not found:
        raise UserError(f"task {task_id}: no default data file exists ({', '.join(paths) or 'none configured'}) "
                        "(fix: pass --data FILE)")
    return found


def settings_given(task: Task[Any], args: argparse.Namespace) -> dict[str, Any]:
    """The task settings set on the command line (files as absolute paths); None = not given."""
    given: dict[str, Any] = {}
    for f in dataclasses.fields(task.Settings):
        value = getattr(args, f.name, None)
        if value is not None and f.metadata.get("file"):
            for one in values_of(value):
                try:
                    check_readable(one)
                except UserError as e:
                    raise UserError(f"--{f.name.replace('_', '-')} {e}") from None
            value = [os.path.abspath(one) for one in value] if f.metadata.get("many") else os.path.abspath(value)
        given[f.name] = value
    return given


def variant(method: str, task: Task[Any], given: Mapping[str, Any]) -> str:
    """The run's method plus the settings given on the command line, e.g. bm25 or bm25-analyzer=jieba; a file
    setting appears as its name and checksum, so runs with different files never share a folder; another
    path as its last component. Not the settings the corpus or method name, nor those that do not identify
    the run (core/settings.py `described`)."""
    fields = {f.name: f for f in dataclasses.fields(task.Settings)}
    parts = []
    for name, value in sorted(given.items()):
        field = fields[name]
        if value is None or not described(field):
            continue
        if field.metadata.get("file"):
            value = "+".join(f"{stem(one)}-{sha256_file(one)[:8]}" for one in values_of(value))
        elif isinstance(value, str) and os.sep in value:  # a folder: its name, never a path in the folder name
            value = stem(value.rstrip(os.sep))
        parts.append(f"{name}={value}")
    return "-".join([method, *parts])


def file_record(value: Any, f: dataclasses.Field[Any], record: Callable[[str], Any]) -> Any:
    """RECORD of a file setting's path, or a list of them for a repeatable one."""
    return [record(one) for one in value] if f.metadata.get("many") else record(value)


def check_writable(folder: str) -> None:
    """Fail before any work when the run folder cannot be written."""
    probe = folder
    while not os.path.exists(probe):
        probe = os.path.dirname(probe) or "."
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK | os.X_OK):
        raise UserError(f"{folder}: cannot write the run there ({probe} is not a writable folder) (fix: pass --out DIR)")


def check_file_name(task: Task[Any], settings: Settings) -> None:
    """The submission's file name (TEAMID_en.csv from --team...) must be a plain name in the run folder."""
    name = task.submission_name(settings)
    if name in ("", ".", "..") or os.path.basename(name) != name or "\\" in name or CONTROL.search(name):
        what = f"--team {settings.team!r}" if hasattr(settings, "team") else f"the submission name {name!r}"
        raise UserError(f"{what}: an id for a file name: no / or \\ and no control characters")


def identity(task: Task[Any], data: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """What decides a run's output besides the code: the task, the data file's checksum and the settings given
    on the command line (file settings by checksum), not those declared option(identifies=False) (--trace,
    --team: they change which files are written, not the answers). A run replaces a run folder only when it
    holds a run of the same identity."""
    fields = {f.name: f for f in dataclasses.fields(task.Settings)}
    options = {name: file_record(value, fields[name], sha256_file) if fields[name].metadata.get("file") else value
               for name, value in sorted(given.items()) if value is not None and identifies(fields[name])}
    return json.loads(json.dumps({"task": task.id, "data_sha256": sha256_file(data), "options": options}))


def run_settings(task: Task[Any], settings: Settings, data: str, data_sha256: str, corpus: str, method: str,
                 retriever: Retriever | None, prediction: Prediction) -> dict[str, Any]:
    """The row's `settings`: what identifies the run (report labels and merges rows by it). The task, the data
    file's name and checksum, the corpus, the method, what the retriever used (its params: a BM25 run has no
    encoder, a dense one no k1), the task's other effective settings (not None or False, not those the corpus
    or method name nor those that do not identify the run: core/settings.py `described`; a file setting as its
    name and checksum) and what the pipeline resolved (the detected language, the answer model's kind).
    Timings, fitted values and diagnostics are `observed`, never here."""
    out: dict[str, Any] = {"task": task.id, "data": os.path.basename(data), "data_sha256": data_sha256, "corpus": corpus,
           "method": method}
    # the retriever's own params say which of its settings it used
    said = {f.name for f in dataclasses.fields(RetrieverSettings)} if task.uses_retriever else set()
    for f in dataclasses.fields(task.Settings):
        value = getattr(settings, f.name)
        if f.name in said or not described(f) or value is None or value is False:
            continue
        out[f.name] = file_record(value, f, lambda p: {"file": os.path.basename(p), "sha256": sha256_file(p)}) \
            if f.metadata.get("file") else value
    return {**out, **(retriever.params() if retriever else {}), **prediction.settings}


def check_own(out: str, ident: Mapping[str, Any]) -> dict[str, Any]:
    """The row.json in the run folder OUT when it is a run of identity IDENT ({} when there is none); a
    UserError when it is another run's (rows written before identities were recorded: same task and data)."""
    path = os.path.join(out, "row.json")
    if not os.path.exists(path):
        return {}
    row = read_json(path)
    if not row.get("task"):
        raise UserError(f"{path}: not a row of a qa_baseline run, and a run would replace it (fix: pass another "
                        "--out DIR)")
    mine = ident if "identity" in row else {k: ident[k] for k in ("task", "data_sha256")}
    theirs = row.get("identity") or {k: row.get(k) for k in ("task", "data_sha256")}
    if theirs != mine:
        differ = [k for k in mine if theirs.get(k) != mine[k]]
        raise UserError(f"{out} holds another run (its {' and '.join(differ)} differ: {row['task']} on "
                        f"{row.get('data')}, made by `{' '.join(row.get('command', []))}`) (fix: pass --out DIR for "
                        "this run, or remove that folder to replace it)")
    return row


def write_run(task: Task[Any], settings: Settings, out: str, prediction: Prediction,
              previous: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The submission, the task's extra files and the trace, each written atomically; returns their paths.
    The files the PREVIOUS run of the folder (its row) wrote and this one does not are removed."""
    files = {"submission": os.path.join(out, task.submission_name(settings))}
    task.write_submission(files["submission"], prediction.answers, settings)
    for name, writer in prediction.files.items():
        files[name] = os.path.join(out, name)
        with atomic_write(files[name]) as f:
            writer(f)
    if prediction.trace is not None:
        files["trace"] = os.path.join(out, "trace.jsonl")
        with atomic_write(files["trace"]) as f:
            for record in prediction.trace:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    for old in (previous or {}).get("files", {}).values():
        stale = os.path.join(out, os.path.basename(str(old)))
        if stale not in files.values() and os.path.isfile(stale):
            os.remove(stale)
    return files


def read_back(task: Task[Any], path: str, reference: Any) -> Any:
    """The written submission as the task's validator reads it; a submission that fails it is a bug."""
    errors = Errors()
    submission = task.read_submission(path, reference, errors)
    if errors:
        raise RuntimeError(f"the {task.id} pipeline wrote a submission its own validator refuses:\n" +
                           "\n".join(errors.lines()))
    return submission


def prepare(argv: Sequence[str]) -> tuple[Task[Any], dict[str, Any], Settings, str, str | None]:
    """(task, given settings, effective settings, data path, --out) of a command line, checked before any work."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--task")
    known, _ = pre.parse_known_args(argv)
    task = tasks.get(known.task) if known.task in tasks.REGISTRY else None
    args = parser(task).parse_args(argv)  # --help, usage errors and unknown ids end here
    assert task is not None  # parse_args ended a missing or unknown --task
    config = task_config(task.id)
    data_default = config.pop("data", None)
    given = settings_given(task, args)
    settings = make_settings(task.Settings, config, given, config_path("tasks", task.id) or "the task config")
    if not task.has_pipeline:
        raise task.no_pipeline()
    check_file_name(task, settings)
    data = os.path.abspath(args.data) if args.data else default_data(task.id, data_default)
    if not os.path.exists(data):
        raise UserError(f"{data}: no such data file")
    if not is_dataset_folder(data):  # a `datasets` folder (save_to_disk) is data too (tasks/hf.py)
        check_readable(data)  # another folder or a device is named as such
    return task, given, settings, data, args.out


def score_prediction(task: Task[Any], gold: Any, submission: Any, prediction: Prediction
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scores ({"metrics", "per_question"}, empty without gold) and the pipeline's diagnostics."""
    if gold is None:
        return {"metrics": {}, "per_question": {}}, {}
    scored = task.score(gold, submission)
    undeclared = [m for m in scored["metrics"] if measure(m).name not in task.measures]
    if undeclared:
        raise RuntimeError(f"task {task.id} scored {undeclared}, not among its measures {task.measures}")
    return scored, prediction.diagnose(gold) if prediction.diagnose else {}


@cli
def main(argv: Sequence[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    task, given, settings, data, out = prepare(argv)
    started = time.time()
    items = task.read_input(data)
    # the gold, read as strictly as `score --gold` reads it: a malformed gold row stops the run here, before any
    # work and before anything is written; it stays in the driver: predict is given it only in a run that fits
    # on it (--folds: core/settings.py `reads_gold`)
    gold = task.gold_for(data, items, settings)
    components = dataclasses.replace(task.open(settings), data=data)
    retriever, corpus = components.retriever, components.corpus_name
    method = task.method(settings)
    out = os.path.abspath(out) if out else run_dir(task.id, data, corpus or "-", variant(method, task, given))
    check_writable(out)
    ident = identity(task, data, given)
    check_own(out, ident)  # before any work; again under the folder's lock below
    prediction = task.predict(items, components, settings, gold if reads_gold(settings) else None)
    reference = items if prediction.reference is None else prediction.reference
    if gold is not None and prediction.reference is not None:  # the answered part (a held-out part)
        gold = task.gold_for(data, reference, settings)
    os.makedirs(out, exist_ok=True)
    with locked(out, f"{out}: another run is writing there"):
        previous = check_own(out, ident)
        if previous:
            os.remove(os.path.join(out, "row.json"))  # written last: a folder without it holds an unfinished run
        files = write_run(task, settings, out, prediction, previous)
        submission = read_back(task, files["submission"], reference)
        scored, diagnostics = score_prediction(task, gold, submission, prediction)
        corpus = corpus or task.source
        per_question = scored["per_question"]
        save_row(out, {
            "schema": ROW_SCHEMA, "task": task.id, "data": data, "data_sha256": ident["data_sha256"], "corpus": corpus,
            "retriever": method,
            "settings": run_settings(task, settings, data, ident["data_sha256"], corpus, method, retriever, prediction),
            "observed": {"seconds": round(time.time() - started, 2), **prediction.observed, **diagnostics},
            # the questions scored: all answered ones, or those a measure is taken over (qac-3: the follow-ups)
            "questions": len(per_question.get(task.main_measure) or reference),
            "metrics": scored["metrics"], "per_question": per_question,
            "files": files, "index_manifest": retriever.manifest if retriever else None,
            "config": dataclasses.asdict(settings), "identity": ident, "threads": threads(),
            "command": ["python", "-m", "qa_baseline.run", *argv],
            "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        })


if __name__ == "__main__":
    main()
