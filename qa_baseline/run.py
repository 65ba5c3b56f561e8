"""Run a task's baseline: `python -m qa_baseline.run --task TASK [--data FILE] [--corpus NAME|PATH] [--out DIR]`.

Writes the submission in the task's official format, prints the baseline row and saves it as
row.json in the run folder (default runs/TASK/DATA--CORPUS--RETRIEVER/). Defaults come from
configs/tasks/TASK.yaml."""
import argparse
import os
import time

from . import retrievers, tasks
from .config import corpus_config, known_corpora, known_tasks, resolve_path, task_config
from .errors import UserError, cli
from .fileio import sha256_file
from .retrievers import open_retriever
from .rows import run_dir, save_row


def parser(add_help=True):
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.run", description=__doc__.split("\n\n")[0],
                                 add_help=add_help)
    ap.add_argument("--task", required=add_help, choices=known_tasks(), help="task id")
    ap.add_argument("--data", help="task data file (default: the task config's data)")
    ap.add_argument("--corpus", help=f"corpus config ({', '.join(known_corpora())}) or corpus file")
    retrievers.add_arguments(ap)
    ap.add_argument("--out", help="run folder for the submission, row.json and trace")
    ap.add_argument("--trace", action="store_true", help="also write trace.jsonl: top documents per query")
    return ap


NOT_SETTINGS = {"task", "data", "corpus", "retriever", "out", "trace", "team", "train", "reranker"}


def variant(name, args):
    """Retriever name plus the settings given on the command line, e.g. bm25 or bm25-analyzer=jieba."""
    given = [f"{k}={v}" for k, v in sorted(vars(args).items()) if k not in NOT_SETTINGS and v is not None]
    return "-".join([name, *given])


def default_data(cfg):
    """The first existing file of the task config's `data` (a path or a list of paths)."""
    paths = cfg.get("data") or []
    paths = [resolve_path(p) for p in ([paths] if isinstance(paths, str) else paths)]
    found = next((p for p in paths if os.path.isfile(p)), None)
    if not found:
        raise UserError(f"task {cfg['name']}: no default data file exists ({', '.join(paths) or 'none configured'}); "
                        "pass --data FILE")
    return found


@cli
def main(argv=None):
    known, _ = parser(add_help=False).parse_known_args(argv)  # the task first: it adds its own options
    if known.task is None:
        parser().parse_args(argv)  # --help, or the usage error for the missing --task
    ap = parser()
    cfg = task_config(known.task)
    task = tasks.load(cfg["pipeline"])
    task.add_arguments(ap)
    args = ap.parse_args(argv)
    data = args.data = os.path.abspath(args.data) if args.data else default_data(cfg)
    if not os.path.isfile(data):
        raise UserError(f"{data}: no such data file")
    items = task.read(data)
    started = time.time()
    if getattr(task, "USES_RETRIEVER", True):
        corpus_cfg = corpus_config(args.corpus or cfg["corpus"], cfg.get("lang"))
        corpus = corpus_cfg["name"]
        name = args.retriever or cfg.get("retriever", "bm25")
        params = {**cfg.get("bm25", {}), **cfg.get(name, {}), **retrievers.params(args)}
        retriever = open_retriever(name, corpus_cfg, params)
    else:  # the task ranks what its data file gives it (dbqa): its method names the row
        corpus, name, retriever = "-", task.method(args, cfg), None
    out = args.out or run_dir(cfg["name"], data, corpus, variant(name, args))
    result = task.run(items, retriever, cfg, args, out)
    save_row(out, {
        "task": cfg["name"], "data": data, "data_sha256": sha256_file(data), "corpus": corpus,
        "retriever": name, "params": {**(retriever.params() if retriever else {}), **result["params"]},
        "questions": result["questions"], "metrics": result["metrics"], "files": result["files"],
        "per_question": result.get("per_question", {}),
        "index_manifest": retriever.manifest if retriever else None, "config": cfg,
        "seconds": round(time.time() - started, 2),
    })


if __name__ == "__main__":
    main()
