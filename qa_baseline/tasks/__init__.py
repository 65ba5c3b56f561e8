"""Tasks. A task module reads the task's data file, runs its pipeline over a retriever, writes the
submission in the official format and returns the metrics. Task configs (configs/tasks/*.yaml) name
their module with `pipeline:`.

Interface of a task module: `add_arguments(argparser)`, `read(path) -> items`,
`run(items, retriever, cfg, args, out_dir) -> {"questions", "metrics", "per_question", "params", "files"}`
(per_question: metric -> values in question order, for the report's bootstrap intervals).

Formats and scoring (used by `python -m qa_baseline.score`; the only part dbqa, kbqa, openqa, qac and
datasearch have so far): `read_gold(path) -> gold`, `write_submission(path, answers, ...)`,
`read_submission(path, gold, errors, **options)` (a strict validator: every problem goes to a
validate.Errors), `score(gold, submission, **options) -> {"metrics", "per_question"}` (metrics.summarise)."""
import importlib


def load(pipeline):
    return importlib.import_module(f".{pipeline}", __name__)
