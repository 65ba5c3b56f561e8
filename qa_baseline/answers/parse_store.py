"""The parse store: each passage of a corpus parsed once for answer extraction, kept on disk.

One SQLite file per corpus and spaCy model in the corpus's index folder (indexes/layout.py):
`INDEXES/CORPUS/parses-MODEL/parses.sqlite`, with `manifest.json` beside it naming the corpus and its files
(so a corpus FILE finds its store the way it finds its BM25 index: layout.built_dir). Filled by runs as they
meet new passages (candidates.Parser writes each parsed batch, its worker processes parsing) or up front by
`python -m qa_baseline.index --corpus C --parse`.

What is kept is the spaCy parse itself, not the mentions derived from it: `Doc.to_bytes()` without the
tensor, user data included (GiNZA's bunsetu heads, labels and clauses survive the round trip), compressed.
The mentions are derived from the Doc when it is loaded (candidates.parse_doc), so a change of the mention
rules never needs a re-parse.

    meta(key, value)          key `identity`: JSON of the store's format, the parser (model name and version,
                              spaCy's, GiNZA's and Sudachi's versions) and the corpus's fingerprint
                              (layout.fingerprint: its files' checksums and reader settings)
    parses(id, text, doc)     a passage id, the sha256 (16 hex digits) of the text parsed (the passage cut at
                              max_chars: a row is never read for another text), the compressed Doc
    derived(id, text, rules, data)  what the mention rules derived from that Doc (candidates.parse_doc: the
                              sentences, their word keys and mentions) as compressed JSON, under the rules'
                              version (candidates.rules_version: a checksum of their code): loading it takes
                              0.09 ms a ja-qac passage, loading the Doc and deriving again 3.5 ms; rows of
                              other rules are deleted when a store is opened (changed rules derive again from
                              the Docs, never re-parse)
    questions(text, rules, data)  a question's parse as the rules use it (candidates.Parser.question: its
                              content-word keys, their sides of the wh-word, the wh-phrase's case marker), JSON:
                              with every passage and question in the store a run never loads the spaCy model

A store of another identity (another parser version, a changed corpus, an older format) is emptied when it is
opened and filled again, never misread; a writer checks the identity in the transaction of each batch, so a
run of another version never mixes its parses in. A file that is not such a store (not SQLite, other tables)
is one error line naming the command that rebuilds it (`index --parse --force`: it deletes such a file, and
empties a good store in one transaction, never deleting a file that runs may have open); a full disk is a
warning (the run goes on, keeping no more parses), a failing one an error line. SQLite's write-ahead log lets
runs read while one writes; writers take turns (busy timeout), each batch one atomic commit; rows are INSERT
OR IGNORE (two runs that parse one passage parse it identically). Reads are by id in chunks: memory does not
grow with the store.

QA_BASELINE_PARSES: `off` runs without a store (every passage parsed, as before stores existed); a folder keeps
the stores there instead of the index folders (as INDEXES/CORPUS/... under it)."""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..core.config import CorpusConfig
from ..core.errors import Problems, UserError
from ..core.fileio import write_json
from ..core.hints import plural
from ..core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log
from ..core.versions import dist_version
from ..corpus import read_corpus
from ..indexes.layout import bm25_dir, build_hint, build_lock, built_dir, check_owner, fingerprint, indexes_root, \
    read_manifest
from . import spacy_models
from .passages import Passage

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

FORMAT = 1  # bump when what a row holds changes: stores of an older format are emptied and filled again
FILE = "parses.sqlite"
BUSY_S = 600.0  # how long a writer waits for another's commit (a batch of parses commits in well under a second)
CHUNK = 500  # ids per SELECT; passages per step of `index --parse`
SCHEMA = {"derived": ["id", "text", "rules", "data"], "meta": ["key", "value"], "parses": ["id", "text", "doc"],
          "questions": ["text", "rules", "data"]}
CREATE = {"meta": "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
          "parses": "CREATE TABLE parses(id TEXT NOT NULL, text TEXT NOT NULL, doc BLOB NOT NULL, "
                    "PRIMARY KEY(id, text))",
          "derived": "CREATE TABLE derived(id TEXT NOT NULL, text TEXT NOT NULL, rules TEXT NOT NULL, "
                     "data BLOB NOT NULL, PRIMARY KEY(id, text, rules))",
          "questions": "CREATE TABLE questions(text TEXT NOT NULL, rules TEXT NOT NULL, data TEXT NOT NULL, "
                       "PRIMARY KEY(text, rules))"}
RULED = ("derived", "questions")  # the tables whose rows are of one version of the mention rules
DATA = ("parses", *RULED)  # every table of parses (meta aside)
_PARSER_DISTS = {"ja": ("ginza", "SudachiPy", "SudachiDict-core")}
K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


def text_key(text: str) -> str:
    """The key of the text a passage was parsed as (its first max_chars characters)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def parser_identity(model: str, lang: str, nlp: Callable[[], Language]) -> dict[str, str | None]:
    """What decides a parse besides the text: the model's name and version (its package's; the pipeline NLP()
    is loaded for it only when the model is no installed package), spaCy's version and, for GiNZA, GiNZA's,
    SudachiPy's and its dictionary's."""
    out = {"model": model, "model_version": dist_version(model.replace("_", "-")) or nlp().meta.get("version"),
           "spacy": dist_version("spacy")}
    out.update({d: dist_version(d) for d in _PARSER_DISTS.get(lang, ())})
    return out


def to_blob(doc: Doc) -> bytes:
    """A parsed Doc as stored: Doc.to_bytes without the tensor (user data included), compressed."""
    return zlib.compress(doc.to_bytes(exclude=["tensor"]), 1)


def from_blob(blob: bytes, vocab: Vocab) -> Doc:
    """The Doc of a stored BLOB, its strings added to VOCAB."""
    from spacy.tokens import Doc
    return Doc(vocab).from_bytes(zlib.decompress(blob))


def store_dir(cfg: CorpusConfig, model: str) -> str | None:
    """The folder of CFG's parse store for MODEL (None when QA_BASELINE_PARSES is `off`)."""
    where = os.environ.get("QA_BASELINE_PARSES", "").strip()
    if where.lower() == "off":
        return None
    return built_dir(cfg, f"parses-{model}", where or indexes_root())


def rebuild_hint(cfg: CorpusConfig) -> str:
    """The command that rebuilds CFG's parse store from scratch."""
    return build_hint(cfg.build, " --parse --force")


def open_store(cfg: CorpusConfig, model: str, lang: str, nlp: Callable[[], Language], rules: str = ""
               ) -> ParseStore | None:
    """The parse store of corpus CFG for MODEL of LANG (NLP(): its pipeline, see parser_identity) and the mention
    rules' version RULES, made when missing; None when stores are off or the folder cannot be written (a
    warning: the run parses every passage)."""
    folder = store_dir(cfg, model)
    if folder is None:
        return None
    identity = {"format": FORMAT, "parser": parser_identity(model, lang, nlp), "corpus": fingerprint(cfg)[0]}
    try:
        if not os.path.isfile(os.path.join(folder, "manifest.json")):
            check_owner(cfg, os.path.dirname(os.path.dirname(folder)))
            os.makedirs(folder, exist_ok=True)
            write_json(os.path.join(folder, "manifest.json"), {
                "corpus": cfg.name, "lang": cfg.lang, "kind": "parse store", "model": model,
                "sources": [{"file": s.file} for s in cfg.sources]})
        return ParseStore(os.path.join(folder, FILE), identity, rebuild_hint(cfg), rules)
    except OSError as e:
        print(f"warning: no parse store at {folder} ({e.strerror or e}): every passage is parsed", file=sys.stderr)
        return None


def empty_store(cfg: CorpusConfig, model: str, nlp: Callable[[], Language]) -> None:
    """`index --parse --force`: empty CFG's store for MODEL in one transaction (runs that have it open meanwhile
    read nothing more from it and fill it again; their own parses stay valid); a damaged file is deleted."""
    folder = store_dir(cfg, model)
    if folder is None:
        return
    try:
        store = open_store(cfg, model, cfg.lang, nlp)
    except Damaged:  # not a parse store: nobody can be reading it as one
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(os.path.join(folder, FILE + suffix))
            except FileNotFoundError:
                pass
        return
    if store is not None:
        store.empty()
        store.close()


class Filler(Protocol):
    """What fill_store parses with: a candidates.Parser (passed in, as candidates is above this module)."""
    store: ParseStore | None
    counts: dict[str, int]

    def fill(self, passages: Iterable[Passage], progress: bool = False, bar: Any = None) -> int: ...

    def parallel(self) -> contextlib.AbstractContextManager[None]: ...


def fill_store(cfg: CorpusConfig, parser_type: Callable[..., Filler], force: bool = False,
               on_bad_record: str = "stop") -> str:
    """`index --corpus C --parse [--force]`: parse every passage of CFG that its parse store lacks (after
    emptying it with FORCE) with PARSER_TYPE(lang, model, corpus=CFG) (candidates.Parser, its workers kept for
    the whole corpus), under the store folder's build lock, reading the corpus in steps of CHUNK passages;
    returns the store's path. Its progress is over the corpus's passages (the BM25 index's count, else counted
    first), each held one at once and each parsed one as its batch ends."""
    model = spacy_models.MODELS[cfg.lang][0]
    folder = store_dir(cfg, model)
    if folder is None:
        raise UserError("QA_BASELINE_PARSES is off: there is no parse store to fill (fix: unset it)")
    with build_lock(folder):
        if force:
            empty_store(cfg, model, lambda: spacy_models.load(cfg.lang, model))
        parser = parser_type(cfg.lang, model, corpus=cfg)
        if parser.store is None:
            raise UserError(f"no parse store can be made at {folder} (the warning above says why)")
        problems, seen = Problems(on_bad_record), 0
        total = read_manifest(bm25_dir(cfg, built=True)).get("passages") or \
            sum(1 for _ in read_corpus(cfg, Problems("skip")))
        with tqdm(total=total, desc=f"parsing {cfg.name} ({model})", unit=" passages", mininterval=1.0,
                  disable=None) as bar, parser.parallel():
            step: list[Passage] = []
            for p in itertools.chain(read_corpus(cfg, problems), [None]):  # streamed: memory flat
                if p is not None:
                    step.append(Passage(p["id"], p["title"], p["contents"], 0.0))
                if len(step) >= CHUNK or p is None and step:
                    parser.fill(step, bar=bar)
                    seen, step = seen + len(step), []
                    bar.set_postfix_str(f"{parser.counts['parsed']:,} parsed", refresh=False)
        if problems.count:
            print(problems.summary(), file=sys.stderr)
        print(f"{parser.store.path}: {plural(parser.counts['parsed'], 'passage')} parsed, "
              f"{seen - parser.counts['parsed']:,} already there", file=sys.stderr)
        return parser.store.path


class DiskFull(UserError):
    """The store's disk is full (SQLITE_FULL)."""


class Damaged(UserError):
    """The file is not a usable parse store (not SQLite, malformed, other tables)."""


class Recent(dict[K, V]):
    """A dict that keeps its SIZE most recently set or touched entries (the Sentences a Parser with a store
    keeps in memory: the store holds the rest)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def touch(self, key: K) -> None:
        self[key] = self.pop(key)

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        if len(self) > self.size:
            del self[next(iter(self))]


class ParseStore:
    """One store file (see the module docstring): `load` parses by id, `put` a batch of new ones."""

    def __init__(self, path: str, identity: dict[str, object], rebuild: str, rules: str = "") -> None:
        self.path, self.rebuild, self.rules = path, rebuild, rules
        self.identity = json.dumps(identity, sort_keys=True)
        self.db: sqlite3.Connection = self._guard(self._open_waiting)

    def _damaged(self, why: str) -> Damaged:
        return Damaged(f"{self.path}: not a usable parse store ({why}) (fix: rebuild it with: {self.rebuild})")

    def _guard(self, step: Callable[..., T], *args: object) -> T:
        """STEP(*ARGS), SQLite's errors as one error line each: busy, a full disk, a failing disk, a file that
        cannot be opened (an OSError: the run goes on without a store), a damaged file (naming the rebuild
        command)."""
        try:
            return step(*args)
        except sqlite3.DatabaseError as e:
            name = getattr(e, "sqlite_errorname", "")
            if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
                raise UserError(f"{self.path}: busy for over {BUSY_S:.0f} s ({e}) (fix: run again when the "
                                "runs writing to it have finished)") from None
            if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")):
                raise OSError(str(e)) from None
            if name.startswith("SQLITE_FULL"):
                raise DiskFull(f"{self.path}: the disk is full ({e}) (fix: free space on it, or keep the parse "
                               "stores elsewhere with QA_BASELINE_PARSES=DIR, or run without one with "
                               "QA_BASELINE_PARSES=off)") from None
            if name.startswith("SQLITE_IOERR"):
                raise UserError(f"{self.path}: the disk failed to read or write it ({e}) (fix: check the disk; "
                                "QA_BASELINE_PARSES=off runs without the store)") from None
            raise self._damaged(str(e)) from None

    def _open_waiting(self) -> sqlite3.Connection:
        """_open, again while another process holds a lock that SQLite does not wait for (two runs making one
        new store at the same moment: switching it to WAL is refused at once, not after the busy timeout)."""
        deadline = time.monotonic() + BUSY_S
        while True:
            try:
                return self._open()
            except sqlite3.OperationalError as e:
                if not getattr(e, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or \
                        time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_S, isolation_level=None, check_same_thread=False)
        try:
            return self._prepare(db)
        except BaseException:
            db.close()
            raise

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        db.execute("PRAGMA journal_mode=WAL")  # a file that is not SQLite fails here
        db.execute("PRAGMA synchronous=NORMAL")
        if self._tables(db) != SCHEMA or self._stored(db) != self.identity or self._stale(db):
            with _transaction(db):  # one process makes or empties it; the others see its work after
                self._setup(db)
        return db

    @staticmethod
    def _tables(db: sqlite3.Connection) -> dict[str, list[str]]:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: [c[1] for c in db.execute(f"PRAGMA table_info({json.dumps(n)})")] for n in names}

    def _stale(self, db: sqlite3.Connection) -> bool:
        """Does the store hold derived rows of other mention rules?"""
        return any(db.execute(f"SELECT 1 FROM {table} WHERE rules != ? LIMIT 1", (self.rules,)).fetchone()
                   for table in RULED)

    @staticmethod
    def _stored(db: sqlite3.Connection) -> str | None:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        except sqlite3.OperationalError:
            return None  # no meta table (yet)
        return row[0] if row else None

    def _setup(self, db: sqlite3.Connection) -> None:
        """Inside the write transaction: make the tables of a new (empty) file; empty a store of another
        identity; refuse a file with other tables."""
        tables = self._tables(db)
        if any(SCHEMA.get(name) != columns for name, columns in tables.items()):
            raise self._damaged(f"tables {', '.join(tables)}, not those of a parse store")
        for name, statement in CREATE.items():
            if name not in tables:  # a new file, or a store made before `derived` (kept: its parses are good)
                db.execute(statement)
        for table in RULED:
            db.execute(f"DELETE FROM {table} WHERE rules != ?", (self.rules,))
        stored = self._stored(db)
        if stored != self.identity:
            if stored is not None:
                print(f"{self.path}: made by another parser or for another corpus version: emptied, to be filled "
                      "again", file=sys.stderr)
            for table in DATA:
                db.execute(f"DELETE FROM {table}")
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('identity', ?)", (self.identity,))

    def _chunks(self, query: str, keys: Sequence[str], *params: str) -> Iterator[list[Any]]:
        """The rows of QUERY for KEYS, CHUNK keys at a time (the `{marks}` of QUERY: their placeholders; PARAMS
        come before them), a list per chunk."""
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start:start + CHUNK]
            yield self._guard(lambda: self.db.execute(query.format(marks=",".join("?" * len(chunk))),
                                                      [*params, *chunk]).fetchall())

    def get(self, texts: Mapping[str, str]) -> Iterator[tuple[str, bytes]]:
        """(id, blob) of each passage of TEXTS ({id: text parsed}) that the store holds for that text."""
        for rows in self._chunks("SELECT id, text, doc FROM parses WHERE id IN ({marks})", list(texts)):
            yield from [(docid, blob) for docid, key, blob in rows if key == text_key(texts[docid])]

    def derived(self, texts: Mapping[str, str]) -> Iterator[tuple[str, bytes]]:
        """(id, data) of each passage of TEXTS whose derived sentences the store holds under its rules."""
        for rows in self._chunks("SELECT id, text, data FROM derived WHERE rules = ? AND id IN ({marks})",
                                 list(texts), self.rules):
            yield from [(docid, data) for docid, key, data in rows if key == text_key(texts[docid])]

    def questions(self, texts: Sequence[str]) -> Iterator[tuple[str, str]]:
        """(text, data) of each question of TEXTS whose parse the store holds under its rules."""
        for rows in self._chunks("SELECT text, data FROM questions WHERE rules = ? AND text IN ({marks})",
                                 texts, self.rules):
            yield from rows

    def held(self, texts: Mapping[str, str]) -> set[str]:
        """The ids of TEXTS ({id: text parsed}) whose parse the store holds (their parses not read)."""
        return {docid for rows in self._chunks("SELECT id, text FROM parses WHERE id IN ({marks})", list(texts))
                for docid, key in rows if key == text_key(texts[docid])}

    def put(self, rows: Iterable[tuple[str, str, bytes | None, bytes | None]],
            questions: Sequence[tuple[str, str]] = ()) -> bool:
        """Add ROWS (id, text parsed, Doc blob or None, derived data or None) and QUESTIONS (text, parse data) in
        one transaction; False (nothing written) when the store now has another identity (a run of another
        parser version emptied it meanwhile) or its disk is full (a warning: the run goes on, keeping no more
        parses)."""
        try:
            return bool(self._guard(self._put, [(i, text_key(t), b, d) for i, t, b, d in rows], questions))
        except DiskFull as e:
            print(f"warning: {e}: this run keeps no more parses", file=sys.stderr)
            return False

    def empty(self) -> None:
        """Delete every parse, in one transaction (the identity stays)."""
        self._guard(self._empty)

    def _empty(self) -> None:
        with _transaction(self.db):
            for table in DATA:
                self.db.execute(f"DELETE FROM {table}")

    def _put(self, rows: list[tuple[str, str, bytes | None, bytes | None]],
             questions: Sequence[tuple[str, str]]) -> bool:
        with _transaction(self.db):
            if self._stored(self.db) != self.identity:
                return False  # nothing written
            self.db.executemany("INSERT OR IGNORE INTO parses(id, text, doc) VALUES (?, ?, ?)",
                                [(i, t, b) for i, t, b, _ in rows if b is not None])
            self.db.executemany("INSERT OR IGNORE INTO derived(id, text, rules, data) VALUES (?, ?, ?, ?)",
                                [(i, t, self.rules, d) for i, t, _, d in rows if d is not None])
            self.db.executemany("INSERT OR IGNORE INTO questions(text, rules, data) VALUES (?, ?, ?)",
                                [(t, self.rules, d) for t, d in questions])
            return True

    def close(self) -> None:
        self.db.close()


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (BEGIN IMMEDIATE: writers take turns), committed at the end of the block, rolled
    back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        _rollback(db)
        raise


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it does on a full disk)."""
    if db.in_transaction:
        db.execute("ROLLBACK")
