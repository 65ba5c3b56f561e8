"""User-facing errors: one line on stderr, no traceback, exit status 2."""
import functools
import sys


class UserError(Exception):
    """Bad input or set-up that the user can fix; the message is the whole story."""


def at(path, line, reason):
    """A UserError located at FILE:LINE."""
    return UserError(f"{path}:{line}: {reason}")


def cli(main):
    """Wrap a CLI main(): a UserError becomes one line on stderr and exit status 2."""
    @functools.wraps(main)
    def wrapper(argv=None):
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

    def __init__(self, policy="stop", keep=5):
        if policy not in ("stop", "skip"):
            raise UserError(f"unknown bad-record policy {policy!r}: use stop or skip")
        self.policy, self.keep, self.count, self.examples = policy, keep, 0, []

    def report(self, path, line, reason):
        if self.policy == "stop":
            raise at(path, line, reason + " (use --on-bad-record skip to skip such records)")
        self.count += 1
        if len(self.examples) < self.keep:
            self.examples.append(f"{path}:{line}: {reason}")

    def summary(self):
        if not self.count:
            return ""
        more = f" (first {len(self.examples)} shown)" if self.count > len(self.examples) else ""
        return f"skipped {self.count} bad records{more}:\n  " + "\n  ".join(self.examples)
