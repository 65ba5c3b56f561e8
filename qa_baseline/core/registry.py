"""The one shape of every registry (tasks, retrievers, rankers, encoders): a dict of name -> "module:Class",
the module relative to the registry's package. `load` imports a module only when its name is asked for, so
that importing a registry (for its names: command-line choices, help) imports no engine (JVM, torch, faiss)."""
from __future__ import annotations

import importlib
from typing import Any

from .errors import UserError


def load(registry: dict[str, str], name: str, what: str, package: str) -> Any:
    """The class that REGISTRY (of package PACKAGE) lists as NAME; an unknown NAME is a UserError naming the
    known ones (WHAT: task, retriever, ranker...)."""
    if name not in registry:
        raise UserError(f"unknown {what} {name!r}; known: {', '.join(registry)}")
    module, cls = registry[name].split(":")
    return getattr(importlib.import_module(f".{module}", package), cls)
