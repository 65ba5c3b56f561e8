"""`qa-baseline COMMAND [OPTIONS]` (the console script) or `python -m qa_baseline COMMAND [OPTIONS]`.

Each command is also its own module, `python -m qa_baseline.COMMAND [OPTIONS]`; `COMMAND --help` lists its
options, its usage line naming the command as it was called (`qa-baseline run`, `python -m qa_baseline run` or
`python -m qa_baseline.run`)."""
import importlib
import os
import sys
from collections.abc import Sequence

from . import __version__
from .core import hints

COMMANDS = {  # command -> (module, what it does); modules are imported only when their command runs
    "run": ("qa_baseline.run", "run a task's baseline: submission, scores, row.json"),
    "index": ("qa_baseline.index", "build BM25 and dense indexes of a corpus"),
    "search": ("qa_baseline.search", "search a corpus, write a TREC run file"),
    "score": ("qa_baseline.score", "validate and score a submission, or rank many (the leaderboard)"),
    "report": ("qa_baseline.report", "the overview paper's baseline table and figure from runs/"),
    "eval": ("qa_baseline.eval", "trec_eval for a TREC run file and qrels"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    return "\n".join(["usage: qa-baseline COMMAND [OPTIONS]   (or: python -m qa_baseline COMMAND [OPTIONS])", "",
                      "commands:", *(f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()), "",
                      "`qa-baseline COMMAND --help` lists a command's options; --version prints the version."])


def called() -> str:
    """How this entry point was called: `python -m qa_baseline`, else the console script `qa-baseline`."""
    return "python -m qa_baseline" if os.path.basename(sys.argv[0]) == "__main__.py" else "qa-baseline"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"qa_baseline {__version__}")
        return 0
    if argv[0] not in COMMANDS:
        print(f"error: unknown command {argv[0]!r} (fix: choose one of {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[argv[0]][0])
    hints.ENTRY.append(called())  # each command's parser names itself as called (hints.prog)
    try:
        return module.main(argv[1:]) or 0
    finally:
        hints.ENTRY.pop()


if __name__ == "__main__":
    sys.exit(main())
