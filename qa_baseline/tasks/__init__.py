"""The task registry: task id -> "module:Class" of its Task, made from the id (tasks/base.py says what a
task is; qa_baseline/core/registry.py how a registry is read).

To add a task: write its folder tasks/NAME/ (formats, pipeline, a Task subclass in __init__.py), its defaults
in qa_baseline/configs/tasks/ID.yaml, and one line below. run, score and report know tasks only through this table."""
from __future__ import annotations

from typing import Any

from ..core.registry import load
from .base import Task

REGISTRY = {
    "mcqa-en": "mcqa:MCQA",
    "mcqa-zh": "mcqa:MCQA",
    "mcqa-all": "mcqa:MCQA",
    "dbqa": "dbqa:DBQA",
    "kbqa": "kbqa:KBQA",
    "openqa-en": "openqa:OpenQA",
    "qac-1": "qac:QAC",
    "qac-2": "qac:QAC",
    "qac-3": "qac:QAC",
    "datasearch": "datasearch:DataSearch",
}


def ids() -> list[str]:
    return list(REGISTRY)


def get(task_id: str) -> Task[Any]:
    """The Task of an id."""
    return load(REGISTRY, task_id, "task", __name__)(task_id)
