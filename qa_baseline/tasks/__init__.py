"""The task registry: task id -> Task (tasks/base.py says what a task is).

To add a task: write its folder tasks/NAME/ (formats, pipeline, a Task subclass in __init__.py), its defaults
in qa_baseline/configs/tasks/ID.yaml, and one line below. run, score and report know tasks only through this table."""
import importlib

from ..errors import UserError

REGISTRY = {  # id -> (module, class, arguments)
    "mcqa-en": ("mcqa", "MCQA", ("mcqa-en", "en")),
    "mcqa-zh": ("mcqa", "MCQA", ("mcqa-zh", "zh")),
    "mcqa-all": ("mcqa", "MCQA", ("mcqa-all", "all")),
    "dbqa": ("dbqa", "DBQA", ()),
    "kbqa": ("kbqa", "KBQA", ()),
    "openqa-en": ("openqa", "OpenQA", ()),
    "qac-1": ("qac", "QAC", (1,)),
    "qac-2": ("qac", "QAC", (2,)),
    "qac-3": ("qac", "QAC", (3,)),
    "datasearch": ("datasearch", "DataSearch", ()),
}


def ids():
    return list(REGISTRY)


def get(task_id):
    """The Task of an id."""
    if task_id not in REGISTRY:
        raise UserError(f"unknown task {task_id!r}; known: {', '.join(REGISTRY)}")
    module, cls, args = REGISTRY[task_id]
    task = getattr(importlib.import_module(f".{module}", __name__), cls)(*args)
    if task.id != task_id:
        raise AssertionError(f"registry line {task_id} makes task {task.id}")
    return task
