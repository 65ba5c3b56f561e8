"""Run a task's baseline: `python -m qa_baseline.run --task TASK [--data FILE] [--out DIR] [TASK OPTIONS]`.

One driver for every task (qa_baseline/tasks): read the input -> predict -> write the submission atomically ->
read it back through the task's own validator -> score when the data has gold -> save and print the row
(runs/TASK/DATA--CORPUS--VARIANT/row.json, or --out DIR). Defaults come from the task's Settings and
configs/tasks/TASK.yaml; `--task TASK --help` lists the task's own options."""
import argparse
import dataclasses
import datetime
import json
import os
import sys
import time

from . import tasks
from .config import resolve_path, task_config
from .errors import UserError, cli
from .fileio import atomic_write, sha256_file, stem
from .metrics import measure
from .rows import run_dir, save_row
from .tasks.base import add_options, make_settings
from .validate import Errors

DRIVER_OPTIONS = ("task", "data", "out")


def parser(task=None):
    listing = "\n".join(f"  {tid:<11} {tasks.get(tid).title}" + ("" if tasks.get(tid).has_pipeline else
                                                                   " (scorer only: no pipeline yet)")
                        for tid in tasks.ids())
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.run", description=__doc__.split("\n\n")[0],
                                 epilog=f"tasks:\n{listing}\n\n`--task TASK --help` lists a task's own options.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", required=True, choices=tasks.ids(), metavar="TASK", help="task id (listed below)")
    ap.add_argument("--data", help="task data file (default: the task config's data)")
    ap.add_argument("--out", help="run folder for the submission, row.json and trace (default under runs/)")
    if task is not None:
        add_options(ap.add_argument_group(f"{task.id} options"), task.Settings)
    return ap


def default_data(task_id, paths):
    """The first existing file of the task config's `data` (a path or a list of paths)."""
    paths = [resolve_path(p) for p in ([paths] if isinstance(paths, str) else paths or [])]
    found = next((p for p in paths if os.path.isfile(p)), None)
    if not found:
        raise UserError(f"task {task_id}: no default data file exists ({', '.join(paths) or 'none configured'}); "
                        "pass --data FILE")
    return found


def settings_given(task, args):
    """The task settings set on the command line (files as absolute paths); None = not given."""
    given = {}
    for f in dataclasses.fields(task.Settings):
        value = getattr(args, f.name, None)
        if value is not None and f.metadata.get("file"):
            if not os.path.isfile(value):
                raise UserError(f"--{f.name.replace('_', '-')} {value}: no such file")
            value = os.path.abspath(value)
        given[f.name] = value
    return given


def variant(method, task, given):
    """The run's method plus the settings given on the command line, e.g. bm25 or bm25-analyzer=jieba; a file
    setting appears as its name and checksum, so runs with different files never share a folder; another
    path as its last component."""
    skip = {"corpus", "trace", "team", "retriever", "reranker"}
    parts = []
    for name, value in sorted(given.items()):
        if value is None or name in skip:
            continue
        field = next(f for f in dataclasses.fields(task.Settings) if f.name == name)
        if field.metadata.get("file"):
            value = f"{stem(value)}-{sha256_file(value)[:8]}"
        elif isinstance(value, str) and os.sep in value:  # a folder: its name, never a path in the folder name
            value = stem(value.rstrip(os.sep))
        parts.append(f"{name}={value}")
    return "-".join([method, *parts])


def check_writable(folder):
    """Fail before any work when the run folder cannot be written."""
    probe = folder
    while not os.path.exists(probe):
        probe = os.path.dirname(probe) or "."
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK | os.X_OK):
        raise UserError(f"{folder}: cannot write the run there ({probe} is not a writable folder); pass --out DIR")


def write_run(task, settings, out, prediction):
    """The submission, the task's extra files and the trace, each written atomically; returns their paths.
    A trace of an earlier run in the same folder is removed when this run makes none."""
    files = {"submission": os.path.join(out, task.submission_name(settings))}
    task.write_submission(files["submission"], prediction.answers, settings)
    for name, writer in prediction.files.items():
        files[name] = os.path.join(out, name)
        with atomic_write(files[name]) as f:
            writer(f)
    trace = os.path.join(out, "trace.jsonl")
    if prediction.trace is not None:
        files["trace"] = trace
        with atomic_write(trace) as f:
            for record in prediction.trace:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    elif os.path.exists(trace):
        os.remove(trace)
    return files


def read_back(task, path, reference):
    """The written submission as the task's validator reads it; a submission that fails it is a bug."""
    errors = Errors()
    submission = task.read_submission(path, reference, errors)
    if errors:
        raise RuntimeError(f"the {task.id} pipeline wrote a submission its own validator refuses:\n" +
                           "\n".join(errors.lines()))
    return submission


@cli
def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--task")
    known, _ = pre.parse_known_args(argv)
    task = tasks.get(known.task) if known.task in tasks.REGISTRY else None
    args = parser(task).parse_args(argv)  # --help, usage errors and unknown ids end here
    config = task_config(task.id)
    data_default = config.pop("data", None)
    given = settings_given(task, args)
    settings = make_settings(task.Settings, config, given, f"configs/tasks/{task.id}.yaml")
    if not task.has_pipeline:
        raise task.no_pipeline()
    data = os.path.abspath(args.data) if args.data else default_data(task.id, data_default)
    if not os.path.isfile(data):
        raise UserError(f"{data}: no such data file")
    started = time.time()
    items = task.read_input(data)
    components = task.open(settings)
    retriever, corpus = components.get("retriever"), components.get("corpus", {}).get("name", "-")
    method = task.method(settings)
    out = os.path.abspath(args.out) if args.out else run_dir(task.id, data, corpus, variant(method, task, given))
    check_writable(out)
    prediction = task.predict(items, {**components, "data": data}, settings)
    reference = items if prediction.reference is None else prediction.reference
    files = write_run(task, settings, out, prediction)
    submission = read_back(task, files["submission"], reference)
    gold = task.gold_for(data, reference, settings)
    scored = task.score(gold, submission) if gold is not None else {"metrics": {}, "per_question": {}}
    undeclared = [m for m in scored["metrics"] if measure(m).name not in task.measures]
    if undeclared:
        raise RuntimeError(f"task {task.id} scored {undeclared}, not among its measures {task.measures}")
    save_row(out, {
        "task": task.id, "data": data, "data_sha256": sha256_file(data), "corpus": corpus, "retriever": method,
        "params": {**(retriever.params() if retriever else {}), **prediction.params},
        "questions": len(reference), "metrics": scored["metrics"], "per_question": scored["per_question"],
        "files": files, "index_manifest": retriever.manifest if retriever else None,
        "settings": dataclasses.asdict(settings), "command": ["python", "-m", "qa_baseline.run", *argv],
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(time.time() - started, 2),
    })


if __name__ == "__main__":
    main()
