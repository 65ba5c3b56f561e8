"""Score a submission: `python -m qa_baseline.score --task T --gold G --submission S [--format md|latex|csv|json]`;
check one without the gold: `--questions TEST --submission S`; or rank every run of a campaign:
`--gold G --submissions DIR ... [--baselines [RUNS]] [--pairs all --test tukey] [--plot F] [--html DIR]`
(the leaderboard: reporting/leaderboard.py; the results page: reporting/site.py).

Exit status 0: scored (or valid, with --questions), the metrics are printed; 1: the submission is invalid, its
problems are listed on stderr (each with file, line and fix; the first --max-errors, then a count); 2: usage
error. The leaderboard lists invalid runs on stderr and leaves them out, then a summary line; it exits 1 only
when no run is valid, or with --strict when any is left out.

Tasks that score several files together (mcqa-en, mcqa-zh, mcqa-all) take repeated --gold and --submission;
they pair up in order (the first --gold with the first --submission). For mcqa-all the language of a pair
comes from the submission's official name, TEAMID_en.csv or TEAMID_zh.csv. Printed: accuracy over all
questions; accuracy[en] and accuracy[zh] when both languages are there; accuracy[GOLD-FILE-STEM] per file
when a language has several files. Formats and metrics of each task: qa_baseline/tasks/*/formats.py; the
measures: metrics.py (MEASURES).

Md and LaTeX print each measure as the task's papers do (accuracy and EM in per cent with one decimal, 75.0;
MRR, MAP, F1 as fractions with three decimals, 0.842), as the report and the leaderboard do; CSV and JSON
give the raw fractions. LaTeX: a booktabs table (`table`, or `table*` with --latex-width page)."""
import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import tasks
from .core.errors import UserError, cli
from .core.hints import plural, prog
from .reporting import leaderboard as lb, render, site
from .reporting.leaderboard import PAIRS, PRIMARY, TESTS
from .reporting.plot import check_path, save
from .reporting.rows import RUNS
from .scoring.significance import PERMUTATIONS, RESAMPLES, SEED
from .scoring.tukey import TRIALS
from .scoring.validate import CAP, Errors, gold_hint

if TYPE_CHECKING:
    from .tasks.base import Task


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog("score"), description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", required=True, choices=tasks.ids())
    given = ap.add_mutually_exclusive_group(required=True)
    given.add_argument("--gold", action="append", help="gold file (repeatable for mcqa-*)")
    given.add_argument("--questions", action="append", metavar="TEST",
                       help="without the gold: check each --submission against its test file (ids, line count, "
                            "options) and print no metrics (repeatable for mcqa-*)")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--submission", action="append", help="submission (repeatable for mcqa-*)")
    what.add_argument("--submissions", nargs="+", metavar="DIR|FILE",
                      help="the leaderboard: every file of these folders (or these files) is a team's submission")
    ap.add_argument("--format", choices=render.FORMATS, default="md", help="output format (default md)")
    ap.add_argument("--max-errors", type=int, default=CAP, help=f"problems listed per submission (default {CAP})")
    ap.add_argument("--latex-width", choices=render.WIDTHS, default="column",
                    help="LaTeX: a table for one column (table, the default) or for the page (table*)")
    board = ap.add_argument_group("leaderboard (--submissions)")
    board.add_argument("--baselines", nargs="?", const=RUNS, metavar="RUNS",
                       help="add the task's baseline runs saved under RUNS (default runs/) to the table")
    board.add_argument("--measure", help="rank by this measure (default: the task's main measure)")
    board.add_argument("--resamples", type=int, default=RESAMPLES,
                       help=f"bootstrap resamples for the 95%% intervals (default {RESAMPLES})")
    board.add_argument("--permutations", type=int, default=PERMUTATIONS,
                       help=f"permutations of the randomisation test (default {PERMUTATIONS})")
    board.add_argument("--seed", type=int, default=SEED, help=f"seed of both (default {SEED})")
    board.add_argument("--pairs", choices=PAIRS, default="next",
                       help="test each run against the next run (next, the default) or every pair of runs (all)")
    board.add_argument("--test", choices=TESTS, default="randomisation",
                       help="with --pairs all: the paired randomisation test, Holm-Bonferroni corrected "
                            "(randomisation, the default), or randomised Tukey HSD over every run in the table with "
                            "effect sizes, the ANOVA table and letter groups (tukey)")
    board.add_argument("--trials", type=int, default=TRIALS, help=f"trials of Tukey HSD (default {TRIALS:,})")
    board.add_argument("--power", action="store_true",
                       help="print the minimum difference the question set detects (alpha 0.05, power 0.8)")
    board.add_argument("--primary", choices=PRIMARY, default="all",
                       help="rank every run (all, the default) or one per team: its best or its first by name")
    board.add_argument("--strict", action="store_true", help="exit 1 when any run is left out as invalid")
    board.add_argument("--ci", choices=("below", "none"), default="below",
                       help="the ranking measure's 95%% interval under its value (below, the default) or none")
    board.add_argument("--html", metavar="DIR", help="also write the results page (a static site) to DIR")
    board.add_argument("--plot", metavar="FILE.png|.pdf|.svg", help="also draw the leaderboard as a figure")
    board.add_argument("--plot-width", choices=("column", "page"), default="column",
                       help="the figure's width: one column (3.3 in, default) or a page (7 in)")
    return ap


def evaluate(task: "Task[Any]", golds: Sequence[str], submissions: Sequence[str],
             errors: Errors) -> dict[str, Any] | None:
    """The scored result, or None when the submissions have problems (they are in ERRORS)."""
    if len(golds) != len(submissions):
        raise UserError(f"{len(golds)} --gold but {len(submissions)} --submission: give one of each per file")
    if len(golds) > 1 and not task.multi_file:
        raise UserError(f"--task {task.id} takes one --gold and one --submission")
    pairs = []
    for gold_path, path in zip(golds, submissions):
        gold = task.read_gold(gold_path)
        pairs.append((gold_path, path, gold, task.read_submission(path, gold, errors)))
    return None if errors else task.score_files(pairs)


def show(task: str, result: dict, fmt: str, submissions: Iterable[str] = (), width: str = "column") -> str:
    """The scores as md or LaTeX (as the papers print each measure), CSV or JSON (raw fractions)."""
    questions = max(map(len, result["per_question"].values()))
    if fmt == "json":
        return json.dumps({"task": task, "questions": questions, "metrics": result["metrics"]}, indent=2)
    if fmt == "csv":
        return render.render(["metric", "value"], [[k, v] for k, v in result["metrics"].items()], fmt)
    names = ", ".join(os.path.basename(s) for s in submissions)
    return render.render(["Measure", "Value"],
                         [[render.heading(k), render.number(k, v)] for k, v in result["metrics"].items()], fmt,
                         caption=f"Scores of {names or 'the submission'} ({task}, "
                                 f"{plural(questions, 'question')}).", align="lr", width=width)


@cli
def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.max_errors < 1:
        raise UserError(f"--max-errors must be at least 1, not {args.max_errors}")
    for task_id in tasks.ids():  # every task's formats: a file in another task's format is named (validate.SHAPES)
        tasks.get(task_id)
    if args.questions and args.submissions:
        raise UserError("--questions checks --submission files, not a leaderboard (fix: give --submission FILE, "
                        "or --gold with --submissions)")
    if args.submissions:
        return leaderboard(args, None if argv is None else ["python", "-m", "qa_baseline.score", *argv])
    board_only = [o for o, v in (("--plot", args.plot), ("--baselines", args.baselines), ("--measure", args.measure),
                                 ("--resamples", args.resamples != RESAMPLES),
                                 ("--permutations", args.permutations != PERMUTATIONS), ("--seed", args.seed != SEED),
                                 ("--pairs", args.pairs != "next"), ("--test", args.test != "randomisation"),
                                 ("--trials", args.trials != TRIALS), ("--power", args.power),
                                 ("--primary", args.primary != "all"), ("--strict", args.strict),
                                 ("--ci", args.ci != "below"), ("--html", args.html))
                  if v]
    if board_only:
        raise UserError(f"{board_only[0]} is for the leaderboard: give --submissions DIR|FILE ...")
    errors = Errors(args.max_errors)
    task = tasks.get(args.task)
    if args.questions:  # no gold: each submission against the items of its test file
        if len(args.questions) != len(args.submission) or len(args.submission) > 1 and not task.multi_file:
            raise UserError(f"{len(args.questions)} --questions and {len(args.submission)} --submission (fix: give "
                            f"one of each{' per file' if task.multi_file else ''})")
        items = [task.read_input(path) for path in args.questions]
        for reference, path in zip(items, args.submission):
            task.read_submission(path, reference, errors)
        if not errors:
            print("\n".join(f"valid: {path} answers all {plural(len(reference), 'question')} of {questions}"
                            for questions, path, reference in zip(args.questions, args.submission, items)))
            return 0
    elif (result := evaluate(task, args.gold, args.submission, errors)) is not None:
        print(show(args.task, result, args.format, args.submission, args.latex_width))
        if hint := gold_hint(args.gold, result["metrics"]):
            print(hint, file=sys.stderr)
        return 0
    print(f"invalid submission: {plural(len(errors), 'problem')}", file=sys.stderr)
    print("\n".join(errors.lines()), file=sys.stderr)
    return 1


def leaderboard(args: argparse.Namespace, argv: Sequence[str] | None = None) -> int:
    """Validate, score and rank every run; print the table; on stderr the left-out runs and a summary line.
    Exit 1 when no run is valid, or with --strict when any is left out."""
    if min(args.resamples, args.permutations, args.trials) < 1:
        raise UserError("--resamples, --permutations and --trials must be at least 1")
    if args.plot:
        check_path(args.plot)
    if args.html:
        site.check_dir(args.html)
    board = lb.build(tasks.get(args.task), args.gold, args.submissions, args.baselines, args.measure,
                     args.resamples, args.permutations, args.seed, args.max_errors, args.pairs, args.test,
                     args.trials, args.primary, args.power, args.ci != "none")
    lb.report_invalid(board)
    if not board.entries:
        print(f"no valid run among {len(board.invalid)}", file=sys.stderr)
        return 1
    print(lb.show(board, args.format, args.latex_width))
    if args.plot:
        save(lb.panels(board), args.plot, args.plot_width)
    if args.html:
        site.write_site(board, args.html, site.command_line(argv))
    return 1 if args.strict and board.invalid else 0


if __name__ == "__main__":
    sys.exit(main())
