"""Shared plumbing of the strict submission validators (one per task module in qa_baseline/tasks).

A validator reads the whole submission and records every problem (file, line, message, fix) in an `Errors`
collector instead of stopping at the first; scoring happens only when there is none. Gold files are the
organisers' own: a problem there is a one-line UserError (`gold_lines`)."""
import codecs
import math

from .errors import UserError, at

CAP = 20  # errors shown; the rest are counted


class Errors:
    def __init__(self, cap=CAP):
        self.cap, self.items = cap, []

    def add(self, path, line, message, fix):
        self.items.append((path, line, message, fix))

    def __len__(self):
        return len(self.items)

    def lines(self):
        shown = [f"{path}:{line}: {message} (fix: {fix})" if line else f"{path}: {message} (fix: {fix})"
                 for path, line, message, fix in self.items[:self.cap]]
        if len(self.items) > self.cap:
            shown.append(f"... and {len(self.items) - self.cap} more")
        return shown


class Invalid(Exception):
    """A submission with errors; str() lists them."""

    def __init__(self, errors):
        super().__init__("\n".join(errors.lines()))
        self.errors = errors


def check(read_submission, path, gold, **options):
    """The submission read by a task's read_submission, or Invalid with all its errors."""
    errors = Errors()
    submission = read_submission(path, gold, errors, **options)
    if errors:
        raise Invalid(errors)
    return submission


class SubmissionFile:
    """One submission being validated: its lines, field checks, and the ids it answers against the gold ids."""

    def __init__(self, path, errors, ids=()):
        self.path, self.errors, self.ids, self.seen = path, errors, set(ids), {}
        self.order = list(ids)

    def error(self, line, message, fix):
        self.errors.add(self.path, line, message, fix)

    def lines(self):
        """(number, text) of each line; a byte-order mark is an error here."""
        return decoded_lines(self.path, self.error, bom_ok=False)

    def fields(self, n, text, count, layout, sep="\t"):
        """The line's fields, or None (and an error) when there are not exactly COUNT."""
        parts = text.split(sep)
        if len(parts) == count:
            return parts
        what = "tab" if sep == "\t" else repr(sep)
        self.error(n, f"expected {count} {what}-separated fields ({layout}), found {len(parts)}"
                   if text else "empty line", f"write the line as {layout}" if text else "remove the line")
        return None

    def number(self, n, text, what="score"):
        """A finite float, or None (and an error)."""
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            self.error(n, f"{what} {text!r} is not a finite number", "write a decimal number such as 0.5")
            return None
        return value

    def count(self, n, text, limit=None):
        """The N field of a ranked-list line: an integer 0..limit, or None (and an error)."""
        if not text.isascii() or not text.isdigit():
            self.error(n, f"answer count N={text!r} is not a whole number", "write the number of answers that follow")
            return None
        if limit is not None and int(text) > limit:
            self.error(n, f"N={text} answers, at most {limit} allowed", f"keep only the best {limit}")
            return None
        return int(text)

    def ranked(self, n, fields, layout, width=1, limit=None):
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

    def take(self, n, qid):
        """True for the first line of a known id; an unknown or repeated id is an error."""
        if qid not in self.ids:
            self.error(n, f"unknown id {qid!r} (not in the test file)", "answer only the test file's ids")
        elif qid in self.seen:
            self.error(n, f"duplicate id {qid!r} (first on line {self.seen[qid]})", "answer each id once")
        else:
            self.seen[qid] = n
            return True
        return False

    def missing(self):
        """Report every gold id that no line answered, in gold order."""
        for qid in self.order:
            if qid not in self.seen:
                self.error(None, f"no answer for id {qid!r}", "answer every id of the test file exactly once")


def decoded_lines(path, report, bom_ok):
    """(number, text) of each line of PATH, LF or CRLF. A byte-order mark (unless BOM_OK) and bytes that are
    not UTF-8 go to report(line, message, fix); the line is still given (bad bytes as U+FFFD), so that later
    checks and line counts stay right."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UserError(f"{path}: cannot read it ({e.strerror})") from None
    if data.startswith(codecs.BOM_UTF8):
        if not bom_ok:
            report(1, "the file starts with a UTF-8 byte-order mark (BOM)", "save it as UTF-8 without BOM")
        data = data[len(codecs.BOM_UTF8):]
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    for n, line in enumerate(raw, 1):
        line = line[:-1] if line.endswith(b"\r") else line
        try:
            yield n, line.decode("utf-8")
        except UnicodeDecodeError as e:
            report(n, f"not valid UTF-8 (byte {e.start + 1} of the line: {e.reason})", "save the file as UTF-8")
            yield n, line.decode("utf-8", "replace")


def gold_lines(path):
    """(number, text) of each line of a gold file (BOM or not); the first problem is a UserError."""
    return decoded_lines(path, gold_error(path), bom_ok=True)


def gold_error(path):
    """A reporter for shared parsers: in a gold file the first problem stops with a UserError."""
    def report(n, message, fix):
        raise at(path, n, f"{message} (fix: {fix})")
    return report
