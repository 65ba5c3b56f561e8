"""The KB store: NLPCC KBQA triples (`subject ||| predicate ||| object` lines) in an on-disk SQLite database.

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
merge sort (a fixed page cache). The database is built in a temporary folder and moved into place when
complete; the manifest records the sources (size, sha256), triples, subjects, names, aliases and skipped lines.
Unchanged input (same size and modification time, or else the same sha256) -> nothing to do.
Bad lines (not three ` ||| `-separated fields, an empty subject or predicate) are FILE:LINE problems that stop
the build or are skipped and counted (--on-bad-record); an invalid UTF-8 byte always stops it, at its line."""
import bz2
import gzip
import hashlib
import io
import os
import shutil
import sqlite3
import sys
import time

from ..progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ..errors import Problems, UserError, at
from ..fileio import READ_ERRORS, build_dir, not_utf8, read_json, replace_dir, sha256_file, write_json
from ..hints import command
from ..render import plural
from ..index.layout import build_lock, check_index_name, file_index_name, indexes_root
from .normalise import base_name, normalise, sound

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


def kb_dir(kb_path, root=None, name=None):
    """The store's folder: INDEXES/kb/NAME, NAME the KB file's name plus a short checksum of its absolute path
    (`kb-3f2a9c1d`: KB files of one name in different folders never share a store) or NAME (`index --kb FILE
    --name NAME`). INDEXES: qa_baseline.index.layout.indexes_root()."""
    return os.path.join(root or indexes_root(), "kb", check_index_name(name) if name else file_index_name(kb_path))


def _built_from(folder):
    return (read_json(os.path.join(folder, "manifest.json")).get("sources") or [{}])[0].get("file")


def store_dir(kb_path, root=None):
    """The folder of the store a run opens for KB_PATH: its own (kb_dir); when that has none, a store built
    from the same file under another name (`--name`, or the file's bare name as stores were named before)."""
    own = kb_dir(kb_path, root)
    if os.path.lexists(own):
        return own
    stores = os.path.join(root or indexes_root(), "kb")
    try:
        entries = sorted(os.listdir(stores))
    except OSError:
        return own
    path = os.path.abspath(kb_path)
    return next((os.path.join(stores, e) for e in entries
                 if not e.startswith(".") and _built_from(os.path.join(stores, e)) == path), own)


def build_hint(kb_path, mention2id=None):
    alias = f" --mention2id {mention2id}" if mention2id else ""
    return f"{command('index')} --kb {kb_path}{alias}"


class _Hashing(io.RawIOBase):
    """A raw file that hashes and counts the bytes read through it (one pass: checksum, progress, content)."""

    def __init__(self, f):
        self.f, self.sha, self.done = f, hashlib.sha256(), 0

    def readable(self):
        return True

    def readinto(self, b):
        n = self.f.readinto(b)
        if n:
            self.sha.update(memoryview(b)[:n])
            self.done += n
        return n


def _binary(path, raw):
    return gzip.GzipFile(fileobj=raw) if path.endswith(".gz") else bz2.BZ2File(raw) if path.endswith(".bz2") else raw


def _lines(path, desc, source):
    """(line number, text) of each line of PATH (plain, .gz, .bz2; UTF-8, a BOM accepted; lines end at LF) with
    a progress bar over its bytes; SOURCE gets the file's size and sha256 once it is read to the end. The text
    is decoded in blocks (fast); on an invalid byte the file is read again line by line to name its line."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    size, n = os.path.getsize(path), 0
    with open(path, "rb", buffering=0) as raw, tqdm(total=size, unit="B", unit_scale=True, desc=desc,
                                                   mininterval=1.0, disable=None) as bar:
        hashing = _Hashing(raw)
        text = io.TextIOWrapper(_binary(path, io.BufferedReader(hashing, 1 << 20)), encoding="utf-8-sig",
                                newline="\n")
        try:
            for n, line in enumerate(text, 1):
                yield n, line
                if not n & 0xFFFF:
                    bar.update(hashing.done - bar.n)
        except UnicodeDecodeError:
            raise _first_bad_byte(path) from None
        except READ_ERRORS as e:
            raise at(path, n + 1, f"cannot read the file ({e})") from None
        bar.update(hashing.done - bar.n)
    source.update(size=size, sha256=hashing.sha.hexdigest())


def _first_bad_byte(path):
    """The UserError naming the line and byte of PATH's first invalid UTF-8 byte, or the file's encoding when
    it is in another one (GBK...: fileio.not_utf8)."""
    utf8 = False
    with open(path, "rb") as raw:
        for n, line in enumerate(_binary(path, raw), 1):
            try:
                line.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as e:
                return at(path, n, "%s (fix: %s)" % not_utf8(line.rstrip(b"\r\n"), e, utf8))
            utf8 = utf8 or not line.isascii()
    return at(path, 1, "not valid UTF-8 (fix: save the file as UTF-8)")


def split_line(text, fields):
    """The ` ||| `-separated fields of a line, stripped, or a reason why it is not such a line."""
    parts = [p.strip() for p in text.rstrip("\r\n").split(SEP)]
    if len(parts) != fields:
        return f"expected {fields} fields separated by ' ||| ', found {len(parts)}"
    if not parts[0]:
        return "empty subject" if fields == 3 else "empty mention"
    if not parts[1]:
        return "empty predicate" if fields == 3 else "empty subject"
    return parts


def _name_rows(subject):
    key = normalise(subject)
    if not key:
        return []
    rows = [(key, subject, NAME, sound(key))]
    base = base_name(key)
    if base != key:
        rows.append((base, subject, BASE, sound(base)))
    return rows


def _load_triples(db, path, problems, source):
    """Stream the KB's triples into the tables; returns (triples, runs)."""
    triples, names, runs = [], [], []
    count, nruns, last, first = 0, 0, None, 0
    for n, text in _lines(path, f"KB {os.path.basename(path)}", source):
        parts = text.split(SEP)
        if len(parts) == 3:  # the common case, inline (split_line states the rule)
            subject, predicate, obj = parts[0].strip(), parts[1].strip(), parts[2].strip()
        if len(parts) != 3 or not subject or not predicate:
            if text.strip():
                problems.report(path, n, split_line(text, 3))
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


def _load_aliases(db, path, problems, source):
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


def _source(path):
    st = os.stat(path)
    return {"file": os.path.abspath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _up_to_date(manifest, paths):
    """True when MANIFEST describes a complete store of exactly these files, unchanged."""
    built = manifest.get("sources") or []
    if manifest.get("format") != FORMAT or [s.get("file") for s in built] != [os.path.abspath(p) for p in paths]:
        return False
    for s, path in zip(built, paths):
        now = _source(path)
        if now["size"] != s.get("size"):
            return False
        if now["mtime_ns"] != s.get("mtime_ns") and sha256_file(path) != s.get("sha256"):
            return False
    return True


def build_kb(kb_path, mention2id=None, on_bad_record="stop", force=False, root=None, name=None):
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
        other = _built_from(folder)
        if other and other != os.path.abspath(kb_path):
            raise UserError(f"{folder} holds the KB store of {other}, not of {os.path.abspath(kb_path)}, and a "
                            "build never replaces it (fix: give this KB another --name, or none)")
        return _build_kb(folder, kb_path, mention2id, paths, on_bad_record, force)


def _build_kb(folder, kb_path, mention2id, paths, on_bad_record, force):
    manifest = read_json(os.path.join(folder, "manifest.json"))
    if not force and _up_to_date(manifest, paths):
        skipped = sum(manifest.get("skipped", {}).values())
        print(f"KB store {folder} is up to date (--force rebuilds it)" +
              (f"; {plural(skipped, 'bad line')} {'was' if skipped == 1 else 'were'} skipped when it was built"
               if skipped else ""), file=sys.stderr)
        return folder
    problems = Problems(on_bad_record)
    tmp = build_dir(folder)
    try:
        t0 = time.perf_counter()
        sources = [_source(p) for p in paths]
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
    """An open KB store (read-only): name lookups and a subject's triples."""

    def __init__(self, folder, manifest):
        self.folder, self.manifest = folder, manifest
        path = os.path.join(folder, "kb.sqlite")
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self.db.execute("PRAGMA cache_size=-65536")
        self._triples = {}

    def close(self):
        self.db.close()

    def _in(self, sql, values, chunk=900):
        values = sorted(set(values))
        out = []
        for i in range(0, len(values), chunk):
            part = values[i:i + chunk]
            out.extend(self.db.execute(sql.format(",".join("?" * len(part))), part))
        return out

    def names(self, keys):
        """(key, subject, kind) of every name whose key is one of KEYS."""
        return self._in("SELECT key, subject, kind FROM names WHERE key IN ({})", keys)

    def sounding(self, sounds):
        """(sound, key, subject, kind) of every name that sounds like one of SOUNDS."""
        return self._in("SELECT sound, key, subject, kind FROM names WHERE sound IN ({})", sounds)

    def halves(self, heads, tails):
        """The distinct keys of at least MIN_TYPO characters whose `LENGTH:first half` is in HEADS or whose
        `LENGTH:second half` is in TAILS."""
        keys = self._in(f"SELECT DISTINCT key FROM names WHERE length(key) >= {MIN_TYPO} AND {HEAD} IN ({{}})", heads)
        keys += self._in(f"SELECT DISTINCT key FROM names WHERE length(key) >= {MIN_TYPO} AND {TAIL} IN ({{}})", tails)
        return sorted({k for k, in keys})

    def triples(self, subject):
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


def open_kb(kb_path, root=None, mention2id=None):
    """The store built from KB_PATH, else a UserError naming the command that builds it."""
    folder = store_dir(kb_path, root)
    manifest = read_json(os.path.join(folder, "manifest.json"))
    hint = build_hint(kb_path, mention2id)
    if not manifest or not os.path.isfile(os.path.join(folder, "kb.sqlite")):
        raise UserError(f"no KB store for {kb_path} at {folder} (fix: build it with: {hint})")
    built = [s.get("file") for s in manifest.get("sources", [])]
    if manifest.get("format") != FORMAT or not built or built[0] != os.path.abspath(kb_path):
        raise UserError(f"the KB store at {folder} was not built from {kb_path} by this version (fix: rebuild it "
                        f"with: {hint})")
    if os.path.isfile(kb_path) and os.path.getsize(kb_path) != manifest["sources"][0].get("size"):
        raise UserError(f"{kb_path} changed since its KB store was built (fix: rebuild it with: {hint})")
    return KB(folder, manifest)
