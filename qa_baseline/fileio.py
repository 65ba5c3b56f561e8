"""File helpers shared by every module: compressed/BOM-aware reading, atomic writes, checksums."""
import bz2
import codecs
import contextlib
import fcntl
import functools
import gzip
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
import zlib

from .errors import UserError, at


COMPRESSED = (".gz", ".bz2")
READ_ERRORS = (OSError, EOFError, zlib.error)  # gzip.BadGzipFile is an OSError
MAX_LINE = 16 << 20  # bytes in one line of a text file: more is not a text file of ours (the longest real line: 152 kB)
# control characters that are not whitespace (NUL, BEL, ESC...): never part of a text file; Python treats
# \v, \f and \x1c-\x1f as whitespace (str.split, strip), so they pass
CONTROL = re.compile("[\x00-\x08\x0e-\x1b]")
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


class TextProblem(UserError):
    """A text file that cannot be read on from LINE: WHAT is wrong, FIX says how to mend it (one line,
    `FILE:LINE: what (fix: how)`)."""

    def __init__(self, path, line, what, fix):
        super().__init__(f"{path}:{line}: {what} (fix: {fix})")
        self.line, self.what, self.fix = line, what, fix


def check_readable(path):
    """A UserError unless PATH is a file that can be read as a stream: a regular file or a pipe (`<(zcat x.gz)`);
    a folder, a device such as /dev/zero or a socket is named as such, not as a missing file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read it ({e.strerror})") from None
    if stat.S_ISDIR(mode):
        raise UserError(f"{path}: is a folder, not a file (fix: give the file itself)")
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise UserError(f"{path}: not a regular file but a device or socket (fix: give a file)")


_OPENED = {}  # absolute path -> the file object open_binary read it through last (for read_position)


def open_binary(path):
    """Open a file for reading bytes; .gz and .bz2 (also multistream) are decompressed on the fly."""
    check_readable(path)
    if path.endswith(".gz"):
        f = gzip.open(path, "rb")
        raw = f.fileobj
    elif path.endswith(".bz2"):
        f = bz2.open(path, "rb")
        raw = getattr(f, "_fp", None)  # the compressed file under BZ2File
    else:
        f = raw = open(path, "rb")
    _OPENED[os.path.abspath(path)] = raw
    return f


def read_position(path):
    """How many bytes of the file PATH (compressed bytes for .gz and .bz2) open_binary's last reader of it has
    read: its size once that reader is closed, 0 before it is opened (progress over a corpus's files)."""
    raw = _OPENED.get(os.path.abspath(path))
    if raw is None:
        return 0
    try:
        return os.path.getsize(path) if raw.closed else raw.tell()
    except (OSError, ValueError):
        return 0


def forget_reads(paths):
    """Start read_position of PATHS from 0 again (before a new pass over them)."""
    for path in paths:
        _OPENED.pop(os.path.abspath(path), None)


def raw_lines(f, path, limit=MAX_LINE):
    """(line number, bytes with the line end) of each line of the open binary file F, holding at most LIMIT
    bytes at a time: a longer line is a TextProblem (a binary file, or no line breaks), never a MemoryError."""
    n = 0
    while raw := f.readline(limit + 1):
        n += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            raise TextProblem(path, n, f"a line longer than {limit >> 20} MiB: not a text file of this task "
                                       "(a binary file, or one without line breaks?)", "give the right file")
        yield n, raw


UTF16 = ("the file is UTF-16, not UTF-8", "save it as UTF-8")


def utf16(first):
    """Whether FIRST, the first line of a file (bytes), says the file is UTF-16: its byte-order mark, or NUL
    bytes between the letters."""
    return first.startswith(UTF16_BOMS) or len(first) > 1 and first.count(0) * 4 >= len(first)


# --- files in another encoding than UTF-8 ---------------------------------------------------------------------
# (Python codec, the name said to the user), tried in this order; ties go to the earlier one
LEGACY = (("gbk", "GBK"), ("gb18030", "GB18030"), ("big5", "Big5"), ("cp932", "Shift_JIS"),
          ("euc_jp", "EUC-JP"), ("cp1252", "Latin-1/Windows-1252"))
KANA = re.compile("[\u3041-\u3093\u30a1-\u30f6\u30fc]")  # hiragana, katakana, ー: Japanese text, not Chinese
JA_PUNCTUATION = set("\u3000\u3001\u3002\u300c\u300d\u300e\u300f\u3010\u3011\u30fb\uff08\uff09\uff01\uff1f")
LATIN_PUNCTUATION = set("\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u20ac\u2022\u00a0\u00b0\u00ab\u00bb")


def _lead(char, codec):
    try:
        return char.encode(codec)[0]
    except UnicodeEncodeError:
        return None


def _plausible(char, codec, text, i):
    """Whether CHAR (at I in TEXT, decoded with CODEC) is a character that text in that encoding commonly holds:
    GB2312's hanzi and punctuation for GBK, Big5's symbols and frequent characters for Big5, kana and JIS level-1
    kanji for Shift_JIS and EUC-JP (not half-width katakana), a Latin letter inside a word or typographic
    punctuation for Windows-1252. Mis-decoded text gives rare characters, and so a low share of plausible ones."""
    if codec in ("gbk", "gb18030"):
        try:
            lead, trail = char.encode("gbk")
        except (UnicodeEncodeError, ValueError):
            return False  # a four-byte GB18030 character: rare
        # GB2312's area: symbols (rows 1-9, less the kana of rows 4 and 5) and the 6,763 hanzi (rows 16-87)
        return trail >= 0xA1 and (0xA1 <= lead <= 0xA9 and lead not in (0xA4, 0xA5) or 0xB0 <= lead <= 0xF7)
    if codec == "big5":
        return (_lead(char, "big5") or 0) <= 0xC6  # 0xA1-0xA3 symbols, 0xA4-0xC6 the 5,401 frequent characters
    if codec in ("cp932", "euc_jp"):
        if KANA.match(char) or char in JA_PUNCTUATION:
            return True
        level1 = (0x88, 0x98) if codec == "cp932" else (0xB0, 0xCF)
        return "\u4e00" <= char <= "\u9fff" and level1[0] <= (_lead(char, codec) or 0) <= level1[1]
    if char in LATIN_PUNCTUATION:
        return True
    neighbours = text[i - 1:i] + text[i + 1:i + 2]
    return char.isalpha() and any(c.isascii() and c.isalpha() for c in neighbours)  # café, Müller; not ÿ alone


def guess_encoding(raw):
    """The name of the encoding that the bytes RAW (a line that is not UTF-8) most plausibly are in: GBK,
    GB18030, Big5, Shift_JIS, EUC-JP or Latin-1/Windows-1252; None when none is plausible (random bytes, a
    damaged file). The encoding whose decoding gives the largest share of common characters of its script
    wins (at least 60%); a guess, from one line."""
    best, best_score = None, (0.6, False)
    for codec, name in LEGACY:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        foreign = [i for i, c in enumerate(text) if not c.isascii()]
        if not foreign:
            continue
        share = sum(_plausible(text[i], codec, text, i) for i in foreign) / len(foreign)
        kana = codec in ("cp932", "euc_jp") and bool(KANA.search(text))
        if codec in ("cp932", "euc_jp") and not kana and share < 1:
            share -= 0.2  # Japanese text nearly always has kana; kanji alone are as likely Chinese
        if (share, kana) > best_score:  # equal shares: kana read as kana wins, else the earlier encoding
            best, best_score = name, (share, kana)
    return best


def not_utf8(raw, error, utf8_before):
    """(what, fix) for the line RAW that failed to decode as UTF-8 with ERROR. When no earlier line of the file
    held UTF-8 beyond ASCII and the line reads as text in another encoding, the whole file is in that encoding
    (`not UTF-8 (looks like GBK)`, said once); else one bad byte of a UTF-8 file, named by its place."""
    if not utf8_before and (name := guess_encoding(raw)):
        return f"not UTF-8 (looks like {name})", "save it as UTF-8"
    return f"not valid UTF-8 (byte {error.start + 1} of the line: {error.reason})", "save the file as UTF-8"


def text_problem(n, raw, utf8_before=False):
    """(what, fix) that makes the line RAW (bytes, line N, without its line end) unreadable as UTF-8 text, or
    None: a UTF-16 file (line 1), a file in another encoding (UTF8_BEFORE: an earlier line held UTF-8 beyond
    ASCII, so the file is UTF-8), invalid UTF-8, a control character such as NUL."""
    if n == 1 and utf16(raw):
        return UTF16
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return not_utf8(raw, e, utf8_before)
    bad = CONTROL.search(text)
    if bad:
        return (f"control character U+{ord(bad.group()):04X} at character {bad.start() + 1} of the line "
                "(a binary file?)", "remove it")
    return None


def whole_file(problem):
    """Whether PROBLEM (what, fix) concerns the whole file (its encoding), so that reading it on is pointless."""
    return problem is UTF16 or problem[0].startswith("not UTF-8 ")


def text_lines(path):
    """(line number, text) of each line of a UTF-8 file (a byte-order mark is accepted), decoded line by line
    so that an invalid byte, a control character (NUL...), a file in another encoding (UTF-16, GBK...: named),
    a line over MAX_LINE bytes (a TextProblem) or a damaged compressed file is a UserError naming the right
    line. The text keeps its line end."""
    n, utf8 = 0, False
    try:
        with open_binary(path) as f:
            for n, raw in raw_lines(f, path):
                if n == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw, utf8 = raw[len(codecs.BOM_UTF8):], True
                problem = text_problem(n, raw.rstrip(b"\r\n"), utf8)
                if problem:
                    raise TextProblem(path, n, *problem)
                utf8 = utf8 or not raw.isascii()
                yield n, raw.decode("utf-8")
    except READ_ERRORS as e:
        raise at(path, n + 1, f"cannot read the file ({e})") from None


def looks_like(text):
    """What TEXT, a file's start that is not in the format expected, looks like: `TSV`, `CSV`, `JSON lines`, `XML`
    or `plain text` (for messages such as `not XML (looks like TSV)`); None when it is empty."""
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    if not lines:
        return None
    if lines[0].lstrip().startswith("<"):
        return "XML"
    if all(line.lstrip().startswith("{") for line in lines[:5]):
        return "JSON lines"
    for sep, name in (("\t", "TSV"), (",", "CSV")):
        if sum(sep in line for line in lines) >= max(1, 0.8 * len(lines)):
            return name
    return "plain text"


def stem(path):
    """A file's name without folder, compression suffix and extension: runs/x.jsonl.gz -> x."""
    name = os.path.basename(path)
    for suffix in COMPRESSED:
        name = name.removesuffix(suffix)
    return os.path.splitext(name)[0]


@contextlib.contextmanager
def atomic_write(path, mode="w", encoding="utf-8"):
    """Write to a temporary file beside PATH and move it into place only when the block succeeds."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding,
                       newline=None if "b" in mode else "") as f:
            yield f
        os.chmod(tmp, 0o666 & ~UMASK)  # mkstemp makes files private; outputs get the usual permissions
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def write_json(path, obj):
    with atomic_write(path) as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def read_json(path):
    """A JSON object from PATH, or {} when the file is missing, unreadable or not an object."""
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        return obj if isinstance(obj, dict) else {}
    except (OSError, ValueError):
        return {}


def _versions(final_dir):
    """The versions `.NAME.v-STAMP-PID` kept beside FINAL_DIR, oldest first."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    pattern = re.compile(rf"\.{re.escape(name)}\.v-(\d+)-\d+")
    found = [(int(m.group(1)), entry) for entry in os.listdir(parent) if (m := pattern.fullmatch(entry))]
    return [os.path.join(parent, entry) for _, entry in sorted(found)]


def _exchange(a, b):
    """Swap the paths A and B in one step (Linux renameat2 RENAME_EXCHANGE); False where that is not available."""
    try:
        import ctypes
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    return renameat2(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0  # AT_FDCWD, RENAME_EXCHANGE


def build_dir(final_dir):
    """A new empty folder beside FINAL_DIR to build its next version in, named `.NAME.tmp-*` (what tidy_dir
    removes when a killed build leaves it), with the permissions of a shared folder (mkdtemp's are private)."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=f".{name}.tmp-")
    os.chmod(tmp, 0o777 & ~UMASK)
    return tmp


def replace_dir(tmp_dir, final_dir):
    """Put the finished folder TMP_DIR in place as FINAL_DIR in one atomic step: TMP_DIR becomes the version
    `.NAME.v-STAMP-PID` beside FINAL_DIR, and FINAL_DIR a relative symbolic link to it, swapped in by one
    rename. A reader resolving FINAL_DIR, or a kill at any moment, finds the old index or the new one, never
    neither and never a mix. The version FINAL_DIR pointed to before is removed afterwards (a reader holding
    its files open keeps them; one opening it just then retries: index.layout.open_index). A FINAL_DIR that is
    a real folder (built before versions) is exchanged with the link in one step where Linux allows it
    (renameat2), else moved aside first (a kill in between leaves no FINAL_DIR, which tidy_dir repairs)."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    os.makedirs(parent, exist_ok=True)
    version = os.path.join(parent, f".{name}.v-{time.time_ns()}-{os.getpid()}")
    os.replace(tmp_dir, version)
    _point(final_dir, version)


def _point(final_dir, version):
    """Make FINAL_DIR a link to VERSION (beside it) in one rename; remove the version it pointed to before."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    link = os.path.join(parent, f".{name}.link-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        os.remove(link)
    os.symlink(os.path.basename(version), link)
    before = os.path.realpath(final_dir) if os.path.islink(final_dir) else None
    if os.path.isdir(final_dir) and not os.path.islink(final_dir):  # a real folder from an older build
        before = os.path.join(parent, f".{name}.v-0-{os.getpid()}")
        if _exchange(link, final_dir):
            os.replace(link, before)  # LINK now names the old folder
        else:
            os.replace(final_dir, before)
            os.replace(link, final_dir)
    else:
        os.replace(link, final_dir)
    if before and before != version and before in _versions(final_dir):  # never a folder that is not ours
        shutil.rmtree(before, ignore_errors=True)


def tidy_dir(final_dir):
    """Repair FINAL_DIR and remove what killed builds left beside it; call it holding the build's lock
    (`locked`), so that nothing removed is in use by a build. A missing FINAL_DIR (or a link to nothing) is
    set back to the newest version, else to `NAME.old` (left by a kill between the two renames of the swap
    before versions); then temporary folders `.NAME.tmp-*`, link files `.NAME.link-*`, versions FINAL_DIR
    does not point to and `NAME.old` are removed. Returns (paths removed, their size in bytes)."""
    parent, name = os.path.split(os.path.abspath(final_dir))
    if not os.path.isdir(parent):
        return [], 0
    old = os.path.join(parent, name + ".old")
    if not os.path.exists(final_dir):  # missing, or a link to a version that is gone
        versions = _versions(final_dir)
        restore = versions[-1] if versions else old if os.path.isdir(old) else None
        if restore:
            if restore == old:
                replace_dir(old, final_dir)
            else:
                _point(final_dir, restore)
            print(f"{final_dir}: restored from {os.path.basename(restore)} (a build was killed while swapping)",
                  file=sys.stderr)
    current = os.path.realpath(final_dir)
    leftovers = [os.path.join(parent, e) for e in os.listdir(parent)
                 if e.startswith((f".{name}.tmp-", f".{name}.link-")) or e == name + ".old"]
    leftovers += [v for v in _versions(final_dir) if v != current]
    size = 0
    for path in leftovers:
        if os.path.islink(path) or not os.path.isdir(path):
            size += os.lstat(path).st_size
            os.remove(path)
        else:
            size += sum(os.lstat(os.path.join(d, f)).st_size for d, _, files in os.walk(path) for f in files)
            shutil.rmtree(path, ignore_errors=True)
    if leftovers:
        print(f"{final_dir}: removed {len(leftovers)} leftover{'s' * (len(leftovers) > 1)} of killed builds "
              f"({size / 2**20:.1f} MB)", file=sys.stderr)
    return leftovers, size


@contextlib.contextmanager
def locked(path, busy):
    """Hold an exclusive lock on PATH for the block. PATH is a folder (locked itself) or a lock file, made
    when missing, that holds the holder's pid. When another process holds it, say BUSY (with its pid) and
    wait for it. The lock (flock) goes with its process: a killed holder never leaves a stale lock."""
    folder = os.path.isdir(path)
    fd = os.open(path, os.O_RDONLY if folder else os.O_RDWR | os.O_CREAT, 0o666 & ~UMASK)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = "" if folder else os.pread(fd, 20, 0).decode("ascii", "replace").strip()
            print(f"{busy}{f' (pid {pid})' if pid else ''}; waiting for it to finish", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        if not folder:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


def sha256_file(path):
    """The file's sha256. A file of 64 MiB or more is hashed once per process while its inode, size and
    modification time stay the same (a run fingerprints a multi-GB KB or corpus in several places); smaller
    ones every time (cheap, and safe from a rewrite within the clock's granularity)."""
    st = os.stat(path)
    if st.st_size < 64 << 20:
        return _sha256.__wrapped__(path)
    return _sha256(os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256(path, *identity):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
