"""Reading text files: plain or compressed (.gz, .bz2, multistream), line by line with at most MAX_LINE bytes
held, UTF-8 with a byte-order mark accepted; a file in another encoding is named (`guess_encoding`: GBK,
Big5, Shift_JIS, EUC-JP, Latin-1), and so is a binary one (`binary`: gzip, ZIP, PDF, PNG...), and a bad line is
one `FILE:LINE: what (fix: how)` error. Two readers:
`text_lines` (each line decoded and checked on its own: task inputs, gold files, corpora) and `block_lines`
(decoded in blocks, several times faster: multi-GB knowledge bases). Writing, swapping and locking files, and
checksums: qa_baseline.core.fileio."""
import bz2
import codecs
import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from .errors import UserError, at

COMPRESSED = (".gz", ".bz2")
READ_ERRORS = (OSError, EOFError, zlib.error)  # gzip.BadGzipFile is an OSError
MAX_LINE = 16 << 20  # bytes in one line of a text file: more is not a text file of ours (the longest real line: 152 kB)
# control characters that are not whitespace (NUL, BEL, ESC...): never part of a text file; Python treats
# \v, \f and \x1c-\x1f as whitespace (str.split, strip), so they pass
CONTROL = re.compile("[\x00-\x08\x0e-\x1b]")
CONTROL_BYTES = re.compile(b"[\x00-\x08\x0e-\x1b]")  # the same, in bytes
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class TextProblem(UserError):
    """A text file that cannot be read on from LINE: WHAT is wrong, FIX says how to mend it (one line,
    `FILE:LINE: what (fix: how)`)."""

    def __init__(self, path: str, line: int, what: str, fix: str):
        super().__init__(f"{path}:{line}: {what} (fix: {fix})")
        self.line, self.what, self.fix = line, what, fix


def check_readable(path: str) -> None:
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


# absolute path -> the file object open_binary read it through last (for read_position)
_OPENED: dict[str, Any] = {}


def open_binary(path: str) -> io.BufferedIOBase:
    """Open a file for reading bytes; .gz and .bz2 (also multistream) are decompressed on the fly."""
    check_readable(path)
    f: io.BufferedIOBase
    raw: Any
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


def read_position(path: str) -> int:
    """How many bytes of the file PATH (compressed bytes for .gz and .bz2) open_binary's last reader of it has
    read: its size once that reader is closed, 0 before it is opened (progress over a corpus's files)."""
    raw = _OPENED.get(os.path.abspath(path))
    if raw is None:
        return 0
    try:
        return os.path.getsize(path) if raw.closed else raw.tell()
    except (OSError, ValueError):
        return 0


def forget_reads(paths: Iterable[str]) -> None:
    """Start read_position of PATHS from 0 again (before a new pass over them)."""
    for path in paths:
        _OPENED.pop(os.path.abspath(path), None)


def too_long(path: str, n: int, limit: int = MAX_LINE) -> TextProblem:
    """The problem of line N of PATH, longer than LIMIT bytes."""
    return TextProblem(path, n, f"a line longer than {limit >> 20} MiB: not a text file of this task (a binary "
                                "file, or one without line breaks?)", "give the right file")


def raw_lines(f: io.BufferedIOBase, path: str, limit: int = MAX_LINE) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes with the line end) of each line of the open binary file F, holding at most LIMIT
    bytes at a time: a longer line is a TextProblem (a binary file, or no line breaks), never a MemoryError."""
    n = 0
    while raw := f.readline(limit + 1):
        n += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            raise too_long(path, n, limit)
        yield n, raw


UTF16 = ("the file is UTF-16, not UTF-8", "save it as UTF-8")


def utf16(first: bytes) -> bool:
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


def _lead(char: str, codec: str) -> int | None:
    try:
        return char.encode(codec)[0]
    except UnicodeEncodeError:
        return None


def _plausible(char: str, codec: str, text: str, i: int) -> bool:
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


def guess_encoding(raw: bytes) -> str | None:
    """The name of the encoding that the bytes RAW (a line that is not UTF-8) most plausibly are in: GBK,
    GB18030, Big5, Shift_JIS, EUC-JP or Latin-1/Windows-1252; None when none is plausible (random bytes, a
    damaged file). The encoding whose decoding gives the largest share of common characters of its script
    wins (at least 60%); a guess, from one line."""
    best: str | None = None
    best_score = (0.6, False)
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


def not_utf8(raw: bytes, error: UnicodeDecodeError, utf8_before: bool) -> tuple[str, str]:
    """(what, fix) for the line RAW that failed to decode as UTF-8 with ERROR. When no earlier line of the file
    held UTF-8 beyond ASCII and the line reads as text in another encoding, the whole file is in that encoding
    (`not UTF-8 (looks like GBK)`, said once); else one bad byte of a UTF-8 file, named by its place."""
    if not utf8_before and (name := guess_encoding(raw)):
        return f"not UTF-8 (looks like {name})", "save it as UTF-8"
    return f"not valid UTF-8 (byte {error.start + 1} of the line: {error.reason})", "save the file as UTF-8"


# binary files by their first bytes: (pattern, what the file is, fix)
BINARY = tuple((re.compile(pattern), what, fix) for pattern, what, fix in (
    (rb"\x1f\x8b", "a gzip-compressed file", "decompress it (gunzip), or give it a name ending in .gz"),
    (rb"BZh[1-9](1AY&SY|\x17rE8P\x90)", "a bzip2-compressed file",
     "decompress it (bunzip2), or give it a name ending in .bz2"),
    (rb"\xfd7zXZ\x00|\x28\xb5\x2f\xfd|7z\xbc\xaf\x27\x1c", "a compressed file (xz, zstd or 7z)",
     "decompress it, and give the text file"),
    (rb"PK\x03\x04", "a ZIP archive (or an XLSX or DOCX document)",
     "give the text file itself (unzip it; save a spreadsheet as CSV)"),
    (rb"(?s).{257}ustar", "a tar archive", "give the text file itself (unpack it: tar -xf)"),
    (rb"%PDF-", "a PDF document", "give the text file"),
    (rb"\x89PNG|\xff\xd8\xff|GIF8[79]a", "an image (PNG, JPEG or GIF)", "give the text file"),
    (rb"SQLite format 3\x00", "an SQLite database", "give the text file"),
    (rb"\x7fELF|MZ\x90\x00|\xcf\xfa\xed\xfe", "a program (an executable or a library)", "give the text file"),
))
NOT_TEXT = ", not a text file"


def signature(first: bytes) -> tuple[str, str] | None:
    """(what, fix) when FIRST, the first line of a file (bytes), starts as a binary format that BINARY knows."""
    return next(((what + NOT_TEXT, fix) for pattern, what, fix in BINARY if pattern.match(first)), None)


def binary(first: bytes) -> tuple[str, str] | None:
    """(what, fix) when FIRST, the first line of a file (bytes), says it is a binary file, not text: a format
    known by its first bytes (gzip, ZIP, PDF, PNG...), or any other whose first line is not UTF-8 and holds a
    control byte (NUL...); None for text (a control character in UTF-8 text is a problem of its line; UTF-16:
    `utf16` says that first)."""
    if kind := signature(first):
        return kind
    if CONTROL_BYTES.search(first) and not _decodes(first):
        return "a binary file" + NOT_TEXT, "give the text file"
    return None


def _decodes(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def text_problem(n: int, raw: bytes, utf8_before: bool = False) -> tuple[str, str] | None:
    """(what, fix) that makes the line RAW (bytes, line N, without its line end) unreadable as UTF-8 text, or
    None: a UTF-16 file or a binary file (line 1: gzip, PDF, PNG...), a file in another encoding (UTF8_BEFORE:
    an earlier line held UTF-8 beyond ASCII, so the file is UTF-8), invalid UTF-8, a control character such as
    NUL."""
    if n == 1 and (kind := signature(raw)):  # before UTF-16: an executable has NUL bytes between its letters
        return kind
    if n == 1 and utf16(raw):
        return UTF16
    if n == 1 and (kind := binary(raw)):
        return kind
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return not_utf8(raw, e, utf8_before)
    bad = CONTROL.search(text)
    if bad:
        return (f"control character U+{ord(bad.group()):04X} at character {bad.start() + 1} of the line "
                "(a binary file?)", "remove it")
    return None


def whole_file(problem: tuple[str, str]) -> bool:
    """Whether PROBLEM (what, fix) concerns the whole file (its encoding; a binary file), so that reading it on is
    pointless."""
    return problem is UTF16 or problem[0].startswith("not UTF-8 ") or problem[0].endswith(NOT_TEXT)


def text_lines(path: str) -> Iterator[tuple[int, str]]:
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


def looks_like(text: str) -> str | None:
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


def stem(path: str) -> str:
    """A file's name without folder, compression suffix and extension: runs/x.jsonl.gz -> x."""
    name = os.path.basename(path)
    for suffix in COMPRESSED:
        name = name.removesuffix(suffix)
    return os.path.splitext(name)[0]


def decompressed(path: str, raw: io.BufferedIOBase) -> io.BufferedIOBase:
    """The bytes of PATH read from RAW, its open binary file: decompressed when PATH ends in .gz or .bz2."""
    if path.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw)
    return bz2.BZ2File(raw) if path.endswith(".bz2") else raw


def block_lines(path: str, raw: io.RawIOBase, limit: int = MAX_LINE) -> Iterator[tuple[int, str]]:
    """(line number, text with its line end) of each line of PATH (plain, .gz, .bz2; UTF-8, a BOM accepted;
    lines end at LF), read from RAW, its open binary file (unbuffered: a reader that hashes or counts the bytes).
    The text is decoded in blocks (fast) and no line is checked for control characters (unlike text_lines).
    A line over LIMIT bytes (of its text) is raw_lines' TextProblem; an invalid byte a TextProblem naming its
    line and byte, or the file's encoding (the file is read again line by line to find it); a damaged
    compressed file `FILE:LINE: cannot read the file`."""
    binary: Any = decompressed(path, io.BufferedReader(raw, 1 << 20))  # GzipFile, BZ2File or BufferedReader
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="\n")
    n, short = 0, limit // 4  # a line of at most LIMIT / 4 characters has at most LIMIT bytes
    try:
        while line := text.readline(limit + 1):
            n += 1
            if len(line) > short and len(line.removesuffix("\n").encode("utf-8")) > limit:
                raise too_long(path, n, limit)
            yield n, line
    except UnicodeDecodeError:
        raise _first_bad_byte(path) from None
    except READ_ERRORS as e:
        raise at(path, n + 1, f"cannot read the file ({e})") from None


def _first_bad_byte(path: str) -> TextProblem:
    """The problem naming the line and byte of PATH's first invalid UTF-8 byte, or the file's encoding when it
    is in another one (GBK...: not_utf8)."""
    utf8 = False
    with open_binary(path) as f:
        for n, line in raw_lines(f, path):
            try:
                line.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as e:
                return TextProblem(path, n, *not_utf8(line.rstrip(b"\r\n"), e, utf8))
            utf8 = utf8 or not line.isascii()
    return TextProblem(path, 1, "not valid UTF-8", "save the file as UTF-8")
