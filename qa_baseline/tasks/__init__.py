"""Tasks. A task module reads the task's data file, runs its pipeline over a retriever, writes the
submission in the official format and returns the metrics. Task configs (configs/tasks/*.yaml) name
their module with `pipeline:`.

Interface of a task module: `add_arguments(argparser)`, `read(path) -> items`,
`run(items, retriever, cfg, args, out_dir) -> {"questions", "metrics", "params", "files"}`."""
import importlib


def load(pipeline):
    return importlib.import_module(f".{pipeline}", __name__)
