"""A data search collection: metadata (one dataset per JSON line, plain or .gz/.bz2) and its data files.

`open_collection(PATH)` accepts
- a folder holding one metadata file (`collection.jsonl[.bz2]` or `*_collection.jsonl[.bz2]`, e.g. the official
  `data_search_e_collection.jsonl.bz2`) and its data files, either in a `data/` folder / the folder itself or
  in one tar archive (`*_data.tar.bz2`, e.g. `data_search_e_data.tar.bz2`, read member by member);
- a metadata file; its data files are then looked for beside it the same way.

A metadata record needs an `id`; its data files are listed in `data_files` (the stand-in's layout) or in `data`
(strings or objects with `data_filename` / `filename` / `path`); without either, files named after the id
(`ID.csv`, `ID.xlsx`) are tried. Text fields used for retrieval: title, description, columns (or tags)."""
from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable
from typing import Any

from ..core.errors import UserError, at
from ..core.textio import text_lines
from .readers import DataFileError, read_tables
from .sources import FolderSource, MemorySource, TarSource, is_archive
from .table import Table

METADATA_PATTERNS = ("collection.jsonl", "collection.jsonl.bz2", "collection.jsonl.gz",
                     "*_collection.jsonl", "*_collection.jsonl.bz2", "*_collection.jsonl.gz")


def read_metadata(path: str) -> dict[str, dict[str, Any]]:
    """{id: record} in file order; a malformed line is a UserError at FILE:LINE."""
    records: dict[str, dict[str, Any]] = {}
    for n, line in text_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise at(path, n, f"not a JSON object ({e.msg} at column {e.colno})") from None
        if not isinstance(record, dict) or not str(record.get("id", "")).strip():
            raise at(path, n, "a dataset record needs a non-empty \"id\"")
        key = str(record["id"]).strip()
        if key in records:
            raise at(path, n, f"duplicate dataset id {key!r}")
        records[key] = record
    if not records:
        raise UserError(f"{path}: no dataset records")
    return records


def data_names(record: dict[str, Any]) -> list[str]:
    """The data file names a metadata record lists (see the module docstring)."""
    listed = record.get("data_files")
    if listed is None:
        listed = record.get("data")
    names = []
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict):
            item = item.get("data_filename") or item.get("filename") or item.get("path")
        if isinstance(item, str) and item.strip():
            names.append(item.strip())
    return names


def guessed_names(dataset_id: str) -> list[str]:
    """Data file names tried for a record that lists none."""
    return [f"{dataset_id}{ext}" for ext in (".csv", ".xlsx")]


def text_fields(record: dict[str, Any]) -> tuple[str, str, str]:
    """(title, description, column names) of a record as strings, for retrieval."""
    columns = record.get("columns") or record.get("tags") or []
    if isinstance(columns, str):
        columns = [columns]
    return (str(record.get("title") or ""), str(record.get("description") or ""),
            " ".join(str(c) for c in columns if c))


def _one(folder, patterns, what):
    found = sorted({p for pattern in patterns for p in glob.glob(os.path.join(glob.escape(folder), pattern))})
    if len(found) > 1:
        raise UserError(f"{folder}: several {what} files ({', '.join(map(os.path.basename, found))}) (fix: pass "
                        "the one to use)")
    return found[0] if found else None


def _data_source(folder, metadata_path):
    """The tar archive beside the metadata (`X_collection.jsonl.bz2` -> `X_data.tar.bz2`, else the only
    `*_data.tar*`/`data.tar*`), else the folder itself."""
    prefix = os.path.basename(metadata_path).split("collection.jsonl")[0]
    archives = sorted(p for p in glob.glob(os.path.join(glob.escape(folder), f"{glob.escape(prefix)}data.tar*"))
                      if is_archive(p))
    if not archives:
        archives = sorted(p for p in glob.glob(os.path.join(glob.escape(folder), "*data.tar*")) if is_archive(p))
    if len(archives) > 1:
        raise UserError(f"{folder}: several data archives ({', '.join(map(os.path.basename, archives))}) (fix: "
                        "keep one beside the metadata file)")
    return TarSource(archives[0]) if archives else FolderSource(folder)


class Collection:
    """Metadata records and the source of their data files; RECORDS ({id: record}) given are used instead of
    reading METADATA_PATH (then only named in messages), e.g. for an in-memory collection."""

    def __init__(self, metadata_path: str, source: FolderSource | TarSource | MemorySource,
                 records: dict[str, dict[str, Any]] | None = None) -> None:
        self.metadata_path, self.source = metadata_path, source
        self.records = read_metadata(metadata_path) if records is None else records

    def __contains__(self, dataset_id: object) -> bool:
        return dataset_id in self.records

    def load(self, dataset_ids: Iterable[str], sheets: str = "first") -> dict[str, tuple[list[Table], list[str]]]:
        """{dataset id: ([Table], [problem])} for DATASET_IDS: every table of every readable data file of each
        dataset (XLSX: SHEETS 'first' or 'all'), and one 'FILE: reason' per data file that could not be read
        (an unknown id is one problem). The archive, if any, is read once."""
        names = {i: data_names(self.records[i]) or guessed_names(i) for i in dataset_ids if i in self.records}
        wanted = sorted({n for ns in names.values() for n in ns})
        try:
            fetched = self.source.fetch(wanted)
        except DataFileError as e:  # a damaged archive: every data file is missing
            fetched = dict.fromkeys(wanted, e)
        out: dict[str, tuple[list[Table], list[str]]] = {}
        for dataset_id in dataset_ids:
            if dataset_id not in self.records:
                out[dataset_id] = ([], [f"{self.metadata_path}: no dataset with id {dataset_id!r}"])
                continue
            tables: list[Table] = []
            problems: list[str] = []
            guessed = not data_names(self.records[dataset_id])
            for name in names[dataset_id]:
                data = fetched[name]
                if guessed and isinstance(data, DataFileError):
                    continue  # a guessed name that is not there is no problem
                try:
                    if isinstance(data, DataFileError):
                        raise data
                    tables.extend(read_tables(name, data, sheets))
                except DataFileError as e:
                    problems.append(f"{self.source.describe(name)}: {e}")
            if not tables and not problems:
                problems.append(f"{', '.join(names[dataset_id])}: no table (no data file found, or all empty)")
            out[dataset_id] = (tables, problems)
        return out


def open_collection(path: str) -> Collection:
    """A Collection from a folder or a metadata file (see the module docstring)."""
    if os.path.isdir(path):
        metadata = _one(path, METADATA_PATTERNS, "metadata")
        if metadata is None:
            raise UserError(f"{path}: no collection metadata (expected collection.jsonl[.bz2] or "
                            "*_collection.jsonl[.bz2])")
    elif os.path.isfile(path):
        metadata = path
    else:
        raise UserError(f"{path}: no such collection file or folder")
    folder = os.path.dirname(os.path.abspath(metadata))
    return Collection(metadata, _data_source(folder, metadata))

