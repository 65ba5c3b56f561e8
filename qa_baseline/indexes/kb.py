"""The KB store, an index of a knowledge base: NLPCC KBQA triples (`subject ||| predicate ||| object` lines) in
an on-disk SQLite database, built by `python -m qa_baseline.index --kb FILE [--mention2id FILE]` and opened by
a kbqa run's `--kb FILE` (linking and ranking over it: qa_baseline/kb/).

Layout (`INDEXES/kb/<KB file name>-<checksum of its path>/kb.sqlite` or `INDEXES/kb/<--name>/kb.sqlite`,
`manifest.json` beside it):
    triples(predicate, object)      rowid = the triple's place in the KB file
    runs(subject, first, n)         each stretch of consecutive lines with one subject: triples first..first+n-1
                                    (the NLPCC KB lists a subject's triples together, so a run is a subject;
                                    a subject that comes back later simply has several runs), indexed by subject
    names(key, subject, kind, sound)  normalised names (qa_baseline.kb.normalise) -> subjects; kind NAME: the
                                    subject's name, BASE: its name without a trailing (qualifier), ALIAS: a
                                    mention of the official `mention ||| subject` alias file; indexed by key, by
                                    sound (toneless pinyin) and by the two halves of the key (typo lookups)
Memory stays bounded whatever the KB's size: lines are streamed and inserted in batches, no subject set is
kept (runs need only the previous line's subject), and SQLite builds the indexes afterwards with its external
merge sort (a fixed page cache). Like every index (indexes/layout.py), the store is built under the folder's
lock (`build_lock`) in a temporary folder and swapped into place when complete (fileio.replace_dir), and a run
resolves its link once (`open_version`: retried when a build swaps it meanwhile); the manifest records the
sources (size, modification time, sha256), triples, subjects, names, aliases and skipped lines. Unchanged input
(layout.sources_unchanged: same size and modification time, or else the same sha256) -> nothing to do. Lines
are read by textio.block_lines (decoded in blocks, at most textio.MAX_LINE bytes a line), hashed in the same pass.
Bad lines (not three ` ||| `-separated fields, an empty subject or predicate) are FILE:LINE problems that stop
the build or are skipped and counted (--on-bad-record); an invalid UTF-8 byte always stops it, at its line."""
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, cast

from ..core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ..core.config import check_index_name, file_index_name
from ..core.errors import Problems, UserError
from ..core.fileio import HashingReader, build_dir, replace_dir, write_json
from ..core.hints import plural
from ..core.textio import block_lines
from ..kb.normalise import base_name, normalise, sound
from .layout import (build_hint, build_lock, built_from, entries, file_source, found_or_own, indexes_root,
                     open_version, read_manifest, sources_unchanged)

FORMAT = 1  # bump when the schema or the normalisation changes: stores built before are rebuilt
NAME, BASE, ALIAS = 0, 1, 2
SEP = "|||"
BATCH = 20_000
CACHE_MB = 2  # SQLite page cache while building: enough for appending rows; index sorts spill to temporary files
SCHEMA = """
CREATE TABLE triples(predicate TEXT NOT NULL, object TEXT NOT NULL);
CREATE TABLE runs(subject TEXT NOT NULL, first INTEGER NOT NULL, n INTEGER NOT NULL);
CREATE TABLE names(key TEXT NOT NULL, subject TEXT NOT NULL, kind INTEGER NOT NULL, sound TEXT);
"""
# the typo lookups (link.py) find names of length M whose first (or second) half equals a question's; the
# expressions must be written exactly so in a query for SQLite to use these indexes
HEAD = "length(key) || ':' || substr(key, 1, length(key) / 2)"
TAIL = "length(key) || ':' || substr(key, length(key) / 2 + 1)"
MIN_TYPO = 4  # shortest name that typo lookups consider
INDEXES = f"""
CREATE INDEX runs_subject ON runs(subject);
CREATE INDEX names_key ON names(key);
CREATE INDEX names_sound ON names(sound) WHERE sound IS NOT NULL;
CREATE INDEX names_head ON names({HEAD}) WHERE length(key) >= {MIN_TYPO};
CREATE INDEX names_tail ON names({TAIL}) WHERE length(key) >= {MIN_TYPO};
"""


def kb_dir(kb_path: str, root: str | None = None, name: str | None = None) -> str:
    """The store's folder: INDEXES/kb/NAME, NAME the KB file's name plus a short checksum of its absolute path
    (`kb-3f2a9c1d`: KB files of one name in different folders never share a store) or NAME (`index --kb FILE
    --name NAME`). INDEXES: qa_baseline.indexes.layout.indexes_root()."""
    return os.path.join(root or indexes_root(), "kb", check_index_name(name) if name else file_index_name(kb_path))


def _kb_file(manifest: dict[str, Any]) -> str | None:
    """The KB file a store's MANIFEST says it was built from (its first source; the second is the alias file)."""
    return (built_from(manifest) or [None])[0]


def store_dir(kb_path: str, root: str | None = None) -> str:
    """The folder of the store a run opens for KB_PATH: its own (kb_dir); when that has none, a store built
    from the same file under another name (`--name`, or the file's bare name as stores were named before)."""
    stores, path = os.path.join(root or indexes_root(), "kb"), os.path.abspath(kb_path)
    return found_or_own(kb_dir(kb_path, root), (os.path.join(stores, e) for e in entries(stores)),
                        lambda manifest: _kb_file(manifest) == path)


def kb_hint(kb_path: str, mention2id: str | None = None) -> str:
    """The command that builds the store of KB_PATH (with the alias file MENTION2ID), as this installation runs
    it (layout.build_hint)."""
    return build_hint(f"--kb {kb_path}", f" --mention2id {mention2id}" if mention2id else "")


def _lines(path: str, desc: str, source: dict[str, object]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of PATH (textio.block_lines: plain, .gz, .bz2; UTF-8, decoded in blocks;
    at most textio.MAX_LINE bytes a line) with a progress bar over its bytes; SOURCE gets the file's size and
    sha256 once it is read to the end, hashed in the same pass."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    size = os.path.getsize(path)
    with open(path, "rb", buffering=0) as raw, tqdm(total=size, unit="B", unit_scale=True, desc=desc,
                                                   mininterval=1.0, disable=None) as bar:
        hashing = HashingReader(raw)
        for n, line in block_lines(path, hashing):
            yield n, line
            if not n & 0xFFFF:
                bar.update(hashing.done - bar.n)
        bar.update(hashing.done - bar.n)
    source.update(size=size, sha256=hashing.hexdigest())


def split_line(text: str, fields: int) -> list[str] | str:
    """The ` ||| `-separated fields of a line, stripped, or a reason why it is not such a line."""
    parts = [p.strip() for p in text.rstrip("\r\n").split(SEP)]
    if len(parts) != fields:
        return f"expected {fields} fields separated by ' ||| ', found {len(parts)}"
    if not parts[0]:
        return "empty subject" if fields == 3 else "empty mention"
    if not parts[1]:
        return "empty predicate" if fields == 3 else "empty subject"
    return parts


def _name_rows(subject: str) -> list[tuple[str, str, int, str | None]]:
    key = normalise(subject)
    if not key:
        return []
    rows = [(key, subject, NAME, sound(key))]
    base = base_name(key)
    if base != key:
        rows.append((base, subject, BASE, sound(base)))
    return rows


def _load_triples(db: sqlite3.Connection, path: str, problems: Problems, source: dict[str, object]) -> tuple[int, int]:
    """Stream the KB's triples into the tables; returns (triples, runs)."""
    triples: list[tuple[str, str]] = []
    names: list[tuple[str, str, int, str | None]] = []
    runs: list[tuple[str, int, int]] = []
    count, nruns, last, first = 0, 0, None, 0
    for n, text in _lines(path, f"KB {os.path.basename(path)}", source):
        parts = text.split(SEP)
        if len(parts) == 3:  # the common case, inline (split_line states the rule)
            subject, predicate, obj = parts[0].strip(), parts[1].strip(), parts[2].strip()
        if len(parts) != 3 or not subject or not predicate:
            if text.strip():
                problems.report(path, n, cast(str, split_line(text, 3)))  # a reason: the line is malformed
            continue
        count += 1
        triples.append((predicate, obj))
        if subject != last:
            if last is not None:
                runs.append((last, first, count - first))
            last, first = subject, count
            names.extend(_name_rows(subject))
            nruns += 1
        if len(triples) >= BATCH:
            db.executemany("INSERT INTO triples VALUES (?, ?)", triples)
            db.executemany("INSERT INTO names VALUES (?, ?, ?, ?)", names)
            db.executemany("INSERT INTO runs VALUES (?, ?, ?)", runs)
            triples, names, runs = [], [], []
    if last is not None:
        runs.append((last, first, count + 1 - first))
    db.executemany("INSERT INTO triples VALUES (?, ?)", triples)
    db.executemany("INSERT INTO names VALUES (?, ?, ?, ?)", names)
    db.executemany("INSERT INTO runs VALUES (?, ?, ?)", runs)
    return count, nruns


def _load_aliases(db: sqlite3.Connection, path: str, problems: Problems, source: dict[str, object]) -> int:
    """The alias file's `mention ||| subject` lines as ALIAS names (a mention that normalises to the subject's
    own name or base name adds nothing and is left out); returns the number of alias lines read."""
    rows, count = [], 0
    for n, text in _lines(path, f"aliases {os.path.basename(path)}", source):
        parts = split_line(text, 2)
        if isinstance(parts, str):
            if text.strip():
                problems.report(path, n, parts)
            continue
        mention, subject = parts
        count += 1
        key = normalise(mention)
        if key and key != normalise(subject) and key != base_name(normalise(subject)):
            rows.append((key, subject, ALIAS, sound(key)))
        if len(rows) >= BATCH:
            db.executemany("INSERT INTO names VALUES (?, ?, ?, ?)", rows)
            rows = []
    db.executemany("INSERT INTO names VALUES (?, ?, ?, ?)", rows)
    return count


def build_kb(kb_path: str, mention2id: str | None = None, on_bad_record: str = "stop", force: bool = False,
             root: str | None = None, name: str | None = None) -> str:
    """Build the store of KB_PATH (and the alias file MENTION2ID) unless it is up to date; returns its folder
    (kb_dir: named after the file, or NAME). A store built from another KB file is never replaced."""
    paths = [kb_path] + ([mention2id] if mention2id else [])
    for path in paths:
        if os.path.isdir(path):
            raise UserError(f"{path}: is a folder, not a file (fix: give the "
                            f"{'KB' if path == kb_path else 'alias'} file itself)")
        if not os.path.isfile(path):
            raise UserError(f"{path}: no such file")
    folder = kb_dir(kb_path, root, name)
    with build_lock(folder):  # one build of a store at a time; what killed builds left is removed first
        other = _kb_file(read_manifest(folder))
        if other and other != os.path.abspath(kb_path):
            raise UserError(f"{folder} holds the KB store of {other}, not of {os.path.abspath(kb_path)}, and a "
                            "build never replaces it (fix: give this KB another --name, or none)")
        return _build_kb(folder, kb_path, mention2id, paths, on_bad_record, force)


def _build_kb(folder: str, kb_path: str, mention2id: str | None, paths: list[str], on_bad_record: str,
              force: bool) -> str:
    manifest = read_manifest(folder)
    if not force and manifest.get("format") == FORMAT and sources_unchanged(manifest.get("sources") or [], paths):
        skipped = sum(manifest.get("skipped", {}).values())
        print(f"KB store {folder} is up to date (--force rebuilds it)" +
              (f"; {plural(skipped, 'bad line')} {'was' if skipped == 1 else 'were'} skipped when it was built"
               if skipped else ""), file=sys.stderr)
        return folder
    problems = Problems(on_bad_record)
    tmp = build_dir(folder)
    try:
        t0 = time.perf_counter()
        sources = [file_source(p) for p in paths]
        db = sqlite3.connect(os.path.join(tmp, "kb.sqlite"), isolation_level=None)
        try:
            db.executescript(f"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA threads=2;"
                             f"PRAGMA cache_size=-{CACHE_MB * 1024}; PRAGMA page_size=8192; BEGIN; {SCHEMA}")
            triples, nruns = _load_triples(db, kb_path, problems, sources[0])
            kb_skipped = problems.count
            aliases = _load_aliases(db, mention2id, problems, sources[1]) if mention2id else 0
            print("indexing the KB store ...", file=sys.stderr)
            db.executescript(INDEXES)  # commits the load first
            subjects = db.execute("SELECT count(*) FROM (SELECT DISTINCT subject FROM runs)").fetchone()[0]
            if nruns != subjects or mention2id:  # a subject met twice, or an alias given twice: one row each
                db.execute("DELETE FROM names WHERE rowid NOT IN "
                           "(SELECT min(rowid) FROM names GROUP BY key, subject, kind)")
            names = db.execute("SELECT count(*) FROM names").fetchone()[0]
            db.execute("ANALYZE")
        finally:
            db.close()
        if not triples:
            raise UserError(f"{kb_path}: no triples (expected `subject ||| predicate ||| object` lines)")
        manifest = {"format": FORMAT, "sources": sources, "triples": triples, "subjects": subjects,
                    "runs": nruns, "names": names, "aliases": aliases,
                    "skipped": {"kb": kb_skipped, "aliases": problems.count - kb_skipped},
                    "sqlite": sqlite3.sqlite_version, "seconds": round(time.perf_counter() - t0, 1)}
        write_json(os.path.join(tmp, "manifest.json"), manifest)
        replace_dir(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if problems.count:
        print(problems.summary(), file=sys.stderr)
    print(f"KB store {folder}: {plural(triples, 'triple')}, {plural(subjects, 'subject')}, {plural(names, 'name')}",
          file=sys.stderr)
    return folder


class KB:
    """An open KB store (read-only): name lookups and a subject's triples. FOLDER: the store's folder (a link
    to its current version), VERSION: the version opened (default FOLDER)."""

    def __init__(self, folder: str, manifest: dict[str, Any], version: str | None = None) -> None:
        self.folder, self.manifest = folder, manifest
        path = os.path.join(version or folder, "kb.sqlite")
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        try:
            self.db.execute("PRAGMA cache_size=-65536")
            self.db.execute("SELECT rowid FROM triples LIMIT 1").fetchall()  # a damaged database fails here
        except Exception:
            self.db.close()
            raise
        self._triples: dict[str, list[tuple[str, str]]] = {}

    def close(self) -> None:
        self.db.close()

    def _in(self, sql: str, values: Iterable[str], chunk: int = 900) -> list[tuple[Any, ...]]:
        """The rows of SQL for VALUES, CHUNK values at a time (its `{}`: their placeholders)."""
        distinct = sorted(set(values))
        out: list[tuple[Any, ...]] = []
        for i in range(0, len(distinct), chunk):
            part = distinct[i:i + chunk]
            out.extend(self.db.execute(sql.format(",".join("?" * len(part))), part))
        return out

    def names(self, keys: Iterable[str]) -> list[tuple[str, str, int]]:
        """(key, subject, kind) of every name whose key is one of KEYS."""
        return self._in("SELECT key, subject, kind FROM names WHERE key IN ({})", keys)

    def sounding(self, sounds: Iterable[str]) -> list[tuple[str, str, str, int]]:
        """(sound, key, subject, kind) of every name that sounds like one of SOUNDS."""
        return self._in("SELECT sound, key, subject, kind FROM names WHERE sound IN ({})", sounds)

    def halves(self, heads: Iterable[str], tails: Iterable[str]) -> list[str]:
        """The distinct keys of at least MIN_TYPO characters whose `LENGTH:first half` is in HEADS or whose
        `LENGTH:second half` is in TAILS."""
        keys = self._in(f"SELECT DISTINCT key FROM names WHERE length(key) >= {MIN_TYPO} AND {HEAD} IN ({{}})", heads)
        keys += self._in(f"SELECT DISTINCT key FROM names WHERE length(key) >= {MIN_TYPO} AND {TAIL} IN ({{}})", tails)
        return sorted({k for k, in keys})

    def triples(self, subject: str) -> list[tuple[str, str]]:
        """[(predicate, object)] of SUBJECT in KB order."""
        got = self._triples.get(subject)
        if got is None:
            got = []
            for first, n in self.db.execute("SELECT first, n FROM runs WHERE subject = ? ORDER BY first", (subject,)):
                got += self.db.execute("SELECT predicate, object FROM triples WHERE rowid BETWEEN ? AND ? "
                                       "ORDER BY rowid", (first, first + n - 1)).fetchall()
            if len(self._triples) > 4096:
                self._triples.clear()
            self._triples[subject] = got
        return got


def open_kb(kb_path: str, root: str | None = None, mention2id: str | None = None) -> KB:
    """The store built from KB_PATH (store_dir), else a UserError naming the command that builds it. Its link is
    resolved once (layout.open_version): a store swapped by a build while it is opened is opened again, a
    damaged one is one error line naming the command that rebuilds it."""
    folder, hint = store_dir(kb_path, root), kb_hint(kb_path, mention2id)

    def load(version: str) -> dict[str, Any]:
        manifest = read_manifest(version)
        if not manifest or not os.path.isfile(os.path.join(version, "kb.sqlite")):
            raise UserError(f"no KB store for {kb_path} at {folder} (fix: build it with: {hint})")
        if manifest.get("format") != FORMAT or _kb_file(manifest) != os.path.abspath(kb_path):
            raise UserError(f"the KB store at {folder} was not built from {kb_path} by this version (fix: rebuild "
                            f"it with: {hint})")
        if os.path.isfile(kb_path) and os.path.getsize(kb_path) != manifest["sources"][0].get("size"):
            raise UserError(f"{kb_path} changed since its KB store was built (fix: rebuild it with: {hint})")
        return manifest

    return open_version(folder, load, lambda version, manifest: KB(folder, manifest, version), hint,
                        what="KB store")[1]
