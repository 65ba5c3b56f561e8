"""User-facing errors: one line on stderr, no traceback, exit status 2; `unread`, the one check that input
holds no ids or answers under names its reader does not read."""
from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")


class UserError(Exception):
    """Bad input or set-up that the user can fix; the message is the whole story."""


class NoGold(UserError):
    """A data file without gold answers at all (a test file): a run writes its submission and no scores. A
    file that has gold with a malformed row is a plain UserError at FILE:LINE, never this."""


def at(path: object, line: int | str | None, reason: str, fix: str | None = None) -> UserError:
    """A UserError located at FILE:LINE, in the one style of every message that says how to mend the input:
    `FILE:LINE: what (fix: how)` (LINE None: `FILE: what (fix: how)`)."""
    where = f"{path}:{line}" if line is not None else f"{path}"
    return UserError(f"{where}: {reason}" + (f" (fix: {fix})" if fix else ""))


ID_NAMES = {"id", "qid", "questionid", "uid", "idx", "exampleid", "itemid"}  # lower case, letters and digits only
GOLD_PARTS = ("answer", "label", "gold", "correct", "solution", "target")  # in a name: it looks like the gold


def unread(path: object, line: int | Mapping[str, int] | None, what: str, found: Sequence[str], reads: Collection[str],
           ids: Sequence[str], gold: Sequence[str], known: str) -> UserError | None:
    """The error for input whose WHAT (columns, elements) FOUND hold ids or answers under names its reader does
    not read, else None: a name like an id (qid, question_id) when none of IDS is found (the questions would be
    numbered by row), a name like an answer (answer, label, correct...) when none of GOLD is (a run without
    scores). READS: the other names the reader reads; IDS, GOLD: the names it reads ids and answers by, the
    first the one the fix renames to (() when it reads none by name); KNOWN: the schemas it knows. LINE: the
    line of the error, or {name: its first line} (the line of the first name refused)."""
    present = set(found)
    renames: dict[str, str] = {}
    for name in found:
        plain = re.sub(r"[^a-z0-9]", "", name.lower())
        if name in reads or name in ids or name in gold:
            continue
        if ids and not present & set(ids) and plain in ID_NAMES:
            renames[name] = ids[0]
        elif gold and not present & set(gold) and (plain == "key" or any(p in plain for p in GOLD_PARTS)):
            renames[name] = gold[0]
    if not renames:
        return None
    loses = [*(["number the questions by row"] if set(renames.values()) & set(ids) else []),
             *(["score nothing"] if set(renames.values()) & set(gold) else [])]
    where = line.get(next(iter(renames))) if isinstance(line, Mapping) else line
    return at(path, where, f"{what} {', '.join(found)}: {', '.join(renames)} not read, so a run would "
              f"{' and '.join(loses)} (known: {known})",
              "rename " + ", ".join(f"{name} to {to}" for name, to in renames.items()))


def cli(main: Callable[[Sequence[str] | None], T]) -> Callable[..., T]:
    """Wrap a CLI main(): a UserError becomes one line on stderr and exit status 2."""
    @functools.wraps(main)
    def wrapper(argv: Sequence[str] | None = None) -> T:
        try:
            return main(argv)
        except UserError as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(2)
        except OSError as e:  # permission denied, disk full, a folder where a file should be...
            print(f"error: {e.filename or ''}: {e.strerror or e}".lstrip(": "), file=sys.stderr)
            sys.exit(2)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            sys.exit(130)
    return wrapper


class Problems:
    """Bad-record policy: 'stop' raises at the first problem, 'skip' counts and keeps going."""

    def __init__(self, policy: str = "stop", keep: int = 5) -> None:
        if policy not in ("stop", "skip"):
            raise UserError(f"unknown bad-record policy {policy!r} (fix: use stop or skip)")
        self.policy, self.keep, self.count = policy, keep, 0
        self.examples: list[str] = []

    def report(self, path: str, line: int | str | None, reason: str) -> None:  # LINE: a number or `entry 5`
        if self.policy == "stop":
            raise at(path, line, reason, "correct the record, or pass --on-bad-record skip to skip such records")
        self.count += 1
        if len(self.examples) < self.keep:
            self.examples.append(f"{path}:{line}: {reason}")

    def summary(self) -> str:
        if not self.count:
            return ""
        more = f" (first {len(self.examples)} shown)" if self.count > len(self.examples) else ""
        return f"skipped {self.count} bad record{'s' * (self.count != 1)}{more}:\n  " + "\n  ".join(self.examples)
