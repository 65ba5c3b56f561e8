"""Shared plumbing of the strict submission validators (one per task module in qa_baseline/tasks).

A validator reads the whole submission and records every problem (file, line, message, fix) in an `Errors`
collector instead of stopping at the first; scoring happens only when there is none. A problem that makes the
rest meaningless (an empty file, a file in UTF-16, GBK or another encoding than UTF-8, a binary file, a line of
many megabytes, a file in another task's submission format: `Shape`) is reported once and ends the checks of
that file. Files are read line by line (at most
textio.MAX_LINE bytes held), never whole. Gold files are the organisers' own: a problem there is a one-line
UserError (`gold_lines`)."""
from __future__ import annotations

import codecs
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import UserError, at
from ..core.hints import plural
from ..core.textio import READ_ERRORS, TextProblem, open_binary, raw_lines, text_problem, whole_file

CAP = 20  # errors shown; the rest are counted
SHAPE_LINES = 5  # the first non-empty lines of a submission whose shape tells its format
# first fields that make a first line a header row rather than an answer (column names of the formats)
Report = Callable[[int, str, str], None]  # report(line, message, fix)
HEADER_WORDS = {"id", "qid", "question_id", "questionid", "query_id", "score", "scores", "label", "prediction",
                "probability"}


class Errors:
    def __init__(self, cap: int = CAP) -> None:
        self.cap = cap
        self.items: list[tuple[str, int | None, str, str]] = []

    def add(self, path: str, line: int | None, message: str, fix: str, first: bool = False) -> None:
        """Record a problem; FIRST puts it before the others (a hint that explains them)."""
        self.items.insert(0 if first else len(self.items), (path, line, message, fix))

    def __len__(self) -> int:
        return len(self.items)

    def lines(self) -> list[str]:
        shown = [f"{path}:{line}: {message} (fix: {fix})" if line else f"{path}: {message} (fix: {fix})"
                 for path, line, message, fix in self.items[:self.cap]]
        if len(self.items) > self.cap:
            shown.append(f"... and {len(self.items) - self.cap} more")
        return shown


@dataclass(frozen=True)
class Shape:
    """What the submissions of a format look like, to tell one given to another task: NAME, the format (dbqa,
    qac...); WHAT, its lines in a few words (`one score per line`); MATCHES(lines), whether the first non-empty
    lines of a file (at most SHAPE_LINES, without line ends) are in it. Each task's formats module declares its
    own once with `shape`."""
    name: str
    what: str
    matches: Callable[[list[str]], bool]


SHAPES: dict[str, Shape] = {}  # name -> Shape of every format whose module is imported (score imports them all)


def shape(name: str, what: str, matches: Callable[[list[str]], bool]) -> Shape:
    """Declare the Shape of the format NAME (listed in SHAPES)."""
    SHAPES[name] = Shape(name, what, matches)
    return SHAPES[name]


class Invalid(Exception):
    """A submission with errors; str() lists them."""

    def __init__(self, errors: Errors) -> None:
        super().__init__("\n".join(errors.lines()))
        self.errors = errors


def check(read_submission: Callable[..., Any], path: str, gold: Any, **options: Any) -> Any:
    """The submission read by a task's read_submission, or Invalid with all its errors."""
    errors = Errors()
    submission = read_submission(path, gold, errors, **options)
    if errors:
        raise Invalid(errors)
    return submission


class SubmissionFile:
    """One submission being validated: its lines, field checks, and the ids it answers against the gold ids.
    LINE: what one line of the format looks like (`id,X`), for the fix of an empty file; SHAPE: the format's,
    to tell a file in another format (`foreign`)."""

    def __init__(self, path: str, errors: Errors, ids: Iterable[str] = (), line: str | None = None,
                 shape: Shape | None = None) -> None:
        self.path, self.errors, self.ids = path, errors, set(ids)
        self.seen: dict[str, int] = {}
        self.line, self.shape = line, shape
        self.order = list(ids)
        self.unknown = 0  # lines whose id the gold does not have
        self.stopped = False  # a problem after which nothing else is worth listing

    def error(self, line: int | None, message: str, fix: str) -> None:
        if not self.stopped:
            self.errors.add(self.path, line, message, fix)

    def stop(self, line: int | None, message: str, fix: str) -> None:
        """Report a problem that makes the rest of the file meaningless; later problems are not listed."""
        self.error(line, message, fix)
        self.stopped = True

    def lines(self) -> Iterator[tuple[int, str]]:
        """(number, text) of each line; a byte-order mark is dropped (Excel writes one). An empty file, a file in
        another encoding (UTF-16, GBK...), a binary file (gzip, PDF, PNG...), an overlong line or a file in another
        task's format (`foreign`) is one problem and ends the checks (no error per missing id after it); a first
        line that looks like a header row (its first field a column name, not an id) is one problem and is
        skipped."""
        n, answered = 0, False
        start = len(self.errors)
        try:
            lines = decoded_lines(self.path, self.error)
            head = ahead(lines, SHAPE_LINES)
            other = self.foreign([text for _, text in head if text.strip()])
            if other and self.shape:
                del self.errors.items[start:]  # the read-ahead lines' own problems say nothing more
                self.stop(None, f"looks like a submission of {other.name} ({other.what}), not of {self.shape.name}",
                          f"give a submission of {self.shape.name}: {self.line or self.shape.what}; or score the "
                          f"file as {other.name}")
                return
            for n, text in itertools.chain(head, lines):
                first = re.split("[\t,]", text, maxsplit=1)[0].strip()
                if not answered and n <= 2 and first.lower() in HEADER_WORDS and first not in self.ids:
                    self.error(n, f"this looks like a header row ({text[:40]!r}), not an answer",
                               "remove the header line: the format has none")
                    continue
                answered = answered or first in self.ids
                yield n, text
        except TextProblem as e:
            self.stop(e.line, e.what, e.fix)
            return
        if n == 0:
            self.stop(None, "the file is empty", f"write one line per question: {self.line}" if self.line else
                      "write one line per question, as the task's submission format says")

    def foreign(self, head: list[str]) -> Shape | None:
        """The Shape of another format that HEAD, the first non-empty lines, are in when they are not in this
        submission's own; None when they are, when no shape fits, and without a SHAPE of its own."""
        if self.shape is None or not head or self.shape.matches(head):
            return None
        return next((s for s in SHAPES.values() if s is not self.shape and s.matches(head)), None)

    def fields(self, n: int, text: str, count: int, layout: str, sep: str = "\t") -> list[str] | None:
        """The line's fields, or None (and an error) when there are not exactly COUNT."""
        parts = text.split(sep)
        if len(parts) == count:
            return parts
        what = "tab" if sep == "\t" else repr(sep)
        self.error(n, f"expected {count} {what}-separated fields ({layout}), found {len(parts)}"
                   if text else "empty line", f"write the line as {layout}" if text else "remove the line")
        return None

    def number(self, n: int, text: str, what: str = "score") -> float | None:
        """A finite float, or None (and an error)."""
        try:
            value: float | None = float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            self.error(n, f"{what} {text!r} is not a finite number", "write a decimal number such as 0.5")
            return None
        return value

    def count(self, n: int, text: str, limit: int | None = None) -> int | None:
        """The N field of a ranked-list line: an integer 0..limit, or None (and an error)."""
        if not text.isascii() or not text.isdigit():
            self.error(n, f"answer count N={text!r} is not a whole number", "write the number of answers that follow")
            return None
        if limit is not None and int(text) > limit:
            self.error(n, f"N={text} answers, at most {limit} allowed", f"keep only the best {limit}")
            return None
        return int(text)

    def ranked(self, n: int, fields: list[str], layout: str, width: int = 1,
               limit: int | None = None) -> list[list[str]] | None:
        """A ranked answer list `N, answer 1, ..., answer N` (each answer WIDTH fields) as N lists of WIDTH
        fields; None (and an error) for a bad N, a wrong number of fields after it, or an empty answer."""
        count = self.count(n, fields[0], limit)
        rest = fields[1:]
        if count is None:
            return None
        if len(rest) != count * width:
            self.error(n, f"N={count} but {len(rest)} fields follow, not {count * width}", f"write {layout}")
            return None
        answers = [rest[i:i + width] for i in range(0, len(rest), width)]
        if not all(a[0].strip() for a in answers):
            self.error(n, "empty answer", "remove it and lower N")
            return None
        return answers

    def take(self, n: int, qid: str) -> bool:
        """True for the first line of a known id; an unknown or repeated id is an error."""
        if qid not in self.ids:
            self.unknown += 1
            self.error(n, f"unknown id {qid!r} (not in the test file)", "answer only the test file's ids")
        elif qid in self.seen:
            self.error(n, f"duplicate id {qid!r} (first on line {self.seen[qid]})", "answer each id once")
        else:
            self.seen[qid] = n
            return True
        return False

    def missing(self) -> None:
        """Report every gold id that no line answered, in gold order. When most of the submission's ids are
        unknown to the gold, a hint that the gold file may be the wrong one (another task's, the training file)
        comes first."""
        if self.stopped:
            return
        for qid in self.order:
            if qid not in self.seen:
                self.error(None, f"no answer for id {qid!r}", "answer every id of the test file exactly once")
        if self.unknown > len(self.seen):
            self.errors.add(self.path, None, f"{self.unknown:,} of the submission's "
                            f"{plural(self.unknown + len(self.seen), 'id')} {'is' if self.unknown == 1 else 'are'} not "
                            "in the gold file: is this the right gold file?", "give the gold (test) "
                            "file of this task and of these questions as --gold, not the training file or another "
                            "task's", first=True)


def ahead(lines: Iterator[tuple[int, str]], count: int) -> list[tuple[int, str]]:
    """The first of LINES up to the COUNT-th non-empty one (at most 10 * COUNT lines)."""
    head: list[tuple[int, str]] = []
    full = 0
    for n, text in lines:
        head.append((n, text))
        full += bool(text.strip())
        if full >= count or len(head) >= 10 * count:
            break
    return head


def decoded_lines(path: str, report: Report) -> Iterator[tuple[int, str]]:
    """(number, text) of each line of PATH without its line end (LF or CRLF), read line by line; a UTF-8
    byte-order mark is dropped. Bytes that are not UTF-8 and control characters go to report(line, message,
    fix); the line is still given (bad bytes as U+FFFD), so that later checks and line counts stay right. A file
    in another encoding (UTF-16; GBK, Big5, Shift_JIS... when no line before the first bad one held UTF-8 beyond
    ASCII: textio.guess_encoding), a binary file (textio.binary) or a line over textio.MAX_LINE bytes is a
    TextProblem: reading stops there, one problem instead of one per line. A missing file, a folder or a device
    (/dev/zero) is a UserError."""
    n, utf8 = 0, False
    try:
        with open_binary(path) as f:
            for n, line in raw_lines(f, path):
                line = line[:-1] if line.endswith(b"\n") else line
                line = line[:-1] if line.endswith(b"\r") else line
                if n == 1 and line.startswith(codecs.BOM_UTF8):
                    line, utf8 = line[len(codecs.BOM_UTF8):], True
                problem = text_problem(n, line, utf8)
                if problem and whole_file(problem):
                    raise TextProblem(path, n, *problem)
                if problem:
                    report(n, *problem)
                utf8 = utf8 or not line.isascii() and not problem
                yield n, line.decode("utf-8", "replace")
    except READ_ERRORS as e:
        raise UserError(f"{path}:{n + 1}: cannot read it ({getattr(e, 'strerror', None) or e})") from None


def gold_lines(path: str) -> Iterator[tuple[int, str]]:
    """(number, text) of each line of a gold file (BOM or not); the first problem is a UserError."""
    return decoded_lines(path, gold_error(path))


def gold_hint(gold_paths: Iterable[str], metrics: Mapping[str, float], floor: float = 0.05) -> str | None:
    """A hint line when every measure is below FLOOR (0 or near it), as when the gold file is the questions,
    the training file or another task's file, or has no answers; else None."""
    if metrics and all(v < floor for v in metrics.values()):
        return (f"hint: every measure is below {floor}: is {', '.join(gold_paths)} the gold file of these "
                "questions, with their answers (not the questions, the training file or another task's file)?")
    return None


def gold_error(path: str) -> Report:
    """A reporter for shared parsers: in a gold file the first problem stops with a UserError."""
    def report(n: int, message: str, fix: str) -> None:
        raise at(path, n, f"{message} (fix: {fix})")
    return report
