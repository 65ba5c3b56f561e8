"""Typed settings: a frozen dataclass whose fields are also command-line options (`option(...)`), merged once
from the field defaults, then a YAML config, then the command line (`make_settings`), and checked the same way
from either source. Used by the tasks (tasks/base.py), `run` and `search`."""
from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Collection, Mapping
from dataclasses import field
from typing import Any

from .errors import UserError


def option(default: Any = None, help: str = "", choices: Collection[Any] | None = None, metavar: str | None = None,
           file: bool = False, cli: bool = True, many: bool = False, identifies: bool = True, named: bool = False,
           reads_gold: bool = False) -> Any:
    """A Settings field that is also the command-line option --NAME (FILE: a path, recorded with its checksum;
    CLI False: set in the task YAML only; MANY: repeatable, its value a tuple, a list in the YAML).
    What a run is (run.py): IDENTIFIES False: it changes which files a run writes, not its answers (--trace,
    --team): not part of the run's identity, folder name or row settings; NAMED: the run's corpus or method
    names it (--corpus, --retriever): left out of the folder name's variant and the row's settings, which
    name those apart; READS_GOLD: when set, the pipeline fits on --data's own gold (--folds), which the
    driver then hands to predict (no other run's predict is given any gold)."""
    return field(default=default, metadata={"help": help, "choices": choices, "metavar": metavar, "file": file,
                                            "cli": cli, "many": many, "identifies": identifies, "named": named,
                                            "reads_gold": reads_gold})


def identifies(f: dataclasses.Field[Any]) -> bool:
    """Whether the setting F is part of what identifies a run (its identity): all but option(identifies=False)."""
    return bool(f.metadata.get("identifies", True))


def described(f: dataclasses.Field[Any]) -> bool:
    """Whether the setting F is spelled out in a run's folder name and row settings: it identifies the run and
    neither the run's corpus nor its method names it (option(named=True))."""
    return identifies(f) and not f.metadata.get("named")


def reads_gold(settings: Any) -> bool:
    """Whether SETTINGS (a settings dataclass) set an option(reads_gold=True): the run fits on --data's gold."""
    return any(f.metadata.get("reads_gold") and getattr(settings, f.name) for f in dataclasses.fields(settings))


def values_of(value: Any) -> list[Any]:
    """The values of a setting: those of a MANY setting's tuple, else the one value."""
    return list(value) if isinstance(value, (tuple, list)) else [value]


def kind_of(f: dataclasses.Field[Any]) -> type:
    """The Python type of a settings field's values: float, int, bool or str."""
    annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    return {"float": float, "int": int, "bool": bool}.get(annotation.split(" ")[0], str)


def add_options(ap: argparse.ArgumentParser | argparse._ArgumentGroup, cls: type, exclude: Collection[str] = (),
                config: Mapping[str, Any] | None = None) -> None:
    """One --NAME option per command-line field of the settings class CLS (default None: not given); the help
    shows the default that applies: the task config's (CONFIG) where it sets one, else the field's."""
    for f in dataclasses.fields(cls):
        if f.metadata.get("cli") and f.name not in exclude:
            kind = kind_of(f)
            value = (config or {}).get(f.name, f.default)
            text = f.metadata["help"]
            if f.name in (config or {}):  # the config's value, not what the field says it defaults to without one
                text = re.sub(r" \(default: [^)]*\)", "", text)
            default = f" (default {value})" if value is not None and f"default {value}" not in text and text else ""
            if kind is bool:
                ap.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, action="store_true", default=None,
                                help=text)
            else:
                repeat: dict[str, Any] = {"action": "append"} if f.metadata.get("many") else {}
                ap.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, type=kind,
                                choices=f.metadata["choices"], metavar=f.metadata["metavar"],
                                help=text + default, **repeat)


def make_settings(cls: Any, config: Mapping[str, Any], given: Mapping[str, Any], source: str = "the task config") -> Any:
    """CLS from its defaults, then CONFIG (the task YAML, named SOURCE in errors; unknown keys are an error),
    then GIVEN (options set on the command line, None = not given)."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(config) - names)
    if unknown:
        raise UserError(f"{source}: unknown setting {unknown[0]!r}; known: {', '.join(sorted(names))}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, value in config.items():  # the YAML's values, checked as the command line checks its own
        kind, choices = kind_of(fields[name]), fields[name].metadata["choices"]
        many = fields[name].metadata.get("many")
        for one in (value if many and isinstance(value, list) else [value]):
            ok = one is None or (isinstance(one, kind) and not (kind is int and isinstance(one, bool))) or \
                (kind is float and isinstance(one, int) and not isinstance(one, bool))
            if not ok or (choices and one is not None and one not in choices):
                want = f"one of {', '.join(map(str, choices))}" if choices else f"of type {kind.__name__}"
                raise UserError(f"{source}: setting {name!r} is {value!r}; it must be {want}")
    values = {**config, **{k: v for k, v in given.items() if v is not None and k in names}}
    return cls(**{k: tuple(values_of(v)) if fields[k].metadata.get("many") and v is not None else v
                  for k, v in values.items()})
