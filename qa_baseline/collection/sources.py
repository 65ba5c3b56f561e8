"""Where data files come from: a folder, or a tar archive (plain, .gz, .bz2, .xz) read member by member.

A MemorySource holds data files given as bytes (the tables of a WikiTableQuestions file, tasks/datasearch/hf.py).
All answer `fetch(names)`: {name: bytes or DataFileError} for the data file names of the metadata, found by
their path relative to the folder or archive root (`data/x.csv`), else by their file name alone: in an
archive when exactly one member has it, in a folder at the folder's top level. A tar archive is streamed once per `fetch`, nothing is unpacked to disk, and only the
members asked for are read into memory. A name (in the metadata or in the archive) that is absolute or climbs
out of its root with `..` is refused, as is a member that is not a regular file (links, devices)."""
from __future__ import annotations

import os
import posixpath
import tarfile
import zlib
from collections.abc import Iterable
from typing import IO, cast

from .readers import DataFileError

ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz")
READ_ERRORS = (OSError, EOFError, tarfile.TarError, zlib.error)


def safe_name(name: object) -> str:
    """NAME as a normalised relative POSIX path; DataFileError when it is absolute or escapes its root."""
    path = posixpath.normpath(str(name).replace("\\", "/"))
    if path.startswith("/") or path == ".." or path.startswith("../") or (len(path) > 1 and path[1] == ":"):
        raise DataFileError(f"refused: the path {name!r} escapes the collection's folder")
    return path


def is_archive(path: str) -> bool:
    return path.lower().endswith(ARCHIVES)


class FolderSource:
    """Data files under a folder."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.refused: list[tuple[str, str]] = []

    def __str__(self) -> str:
        return self.root

    def describe(self, name: str) -> str:
        """Where the data file NAME is, for messages."""
        return os.path.join(self.root, name)

    def fetch(self, names: Iterable[str]) -> dict[str, bytes | DataFileError]:
        out: dict[str, bytes | DataFileError] = {}
        for name in names:
            try:
                rel = safe_name(name)
                path = os.path.join(self.root, rel)
                if not os.path.isfile(path):
                    alone = os.path.join(self.root, posixpath.basename(rel))
                    path = alone if os.path.isfile(alone) else path
                with open(path, "rb") as f:
                    out[name] = f.read()
            except DataFileError as e:
                out[name] = e
            except OSError as e:
                out[name] = DataFileError(f"cannot read it ({e.strerror or e})")
        return out


class TarSource:
    """Data files inside a tar archive; `refused` lists (member, reason) of the members it will never read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.refused: list[tuple[str, str]] = []

    def __str__(self) -> str:
        return self.path

    def describe(self, name: str) -> str:
        return f"{self.path}:{name}"

    def fetch(self, names: Iterable[str]) -> dict[str, bytes | DataFileError]:
        wanted: dict[str, list[str]] = {}
        out: dict[str, bytes | DataFileError] = {}
        for name in names:
            try:
                wanted.setdefault(safe_name(name), []).append(name)
            except DataFileError as e:
                out[name] = e
        by_base: dict[str, list[str]] = {}
        for rel in wanted:
            by_base.setdefault(posixpath.basename(rel), []).append(rel)
        exact: dict[str, bytes] = {}
        alone: dict[str, list[bytes]] = {}
        refused: list[tuple[str, str]] = []
        try:
            with tarfile.open(self.path, mode="r|*") as tar:
                for member in tar:
                    try:
                        rel = safe_name(member.name)
                    except DataFileError as e:
                        refused.append((member.name, str(e)))
                        continue
                    base = posixpath.basename(rel)
                    hit = rel if rel in wanted else None
                    loose = by_base.get(base, []) if hit is None else []
                    if hit is None and len(loose) != 1:
                        continue
                    if not member.isfile():
                        refused.append((member.name, "refused: not a regular file (a link or device)"))
                        continue
                    data = cast(IO[bytes], tar.extractfile(member)).read()  # a regular file: never None
                    if hit is not None:
                        exact[hit] = data
                    else:
                        alone.setdefault(loose[0], []).append(data)
        except READ_ERRORS as e:
            raise DataFileError(f"cannot read the archive ({e})") from None
        self.refused = refused
        for rel, names_ in wanted.items():
            if rel in exact:
                got: bytes | DataFileError = exact[rel]
            elif len(alone.get(rel, [])) == 1:
                got = alone[rel][0]
            else:
                why = "several members have its file name" if alone.get(rel) else "no such member"
                got = DataFileError(why)
            for name in names_:
                out[name] = got
        return out


class MemorySource:
    """Data files held in memory: {name: bytes}."""

    def __init__(self, files: dict[str, bytes], label: str = "memory") -> None:
        self.files, self.label = files, label
        self.refused: list[tuple[str, str]] = []

    def __str__(self) -> str:
        return self.label

    def describe(self, name: str) -> str:
        return f"{self.label}:{name}"

    def fetch(self, names: Iterable[str]) -> dict[str, bytes | DataFileError]:
        return {name: self.files[name] if name in self.files else DataFileError("no such data file")
                for name in names}
