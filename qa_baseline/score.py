"""Score a submission: `python -m qa_baseline.score --task T --gold G --submission S [--format md|latex|csv|json]`.

Exit status 0: scored, the metrics are printed; 1: the submission is invalid, its problems are listed on
stderr (each with file, line and fix; the first --max-errors, then a count); 2: usage error.

mcqa-en, mcqa-zh, mcqa-all: --gold and --submission may be repeated; they pair up in order (the first --gold
with the first --submission). For mcqa-all the language of a pair comes from the submission's official name,
TEAMID_en.csv or TEAMID_zh.csv. Printed: accuracy over all questions; accuracy_en and accuracy_zh when both
languages are there; accuracy[GOLD-FILE-STEM] per file when there are several files.
qac: --qac-task 1|2|3 is required; --require-support-doc applies the QAC-2 rule.
Formats and metrics of each task: the docstrings of qa_baseline/tasks/*.py."""
import argparse
import json
import os
import sys

from . import fileio, tables
from .errors import UserError, cli
from .tasks import datasearch, dbqa, kbqa, mcqa, openqa, qac
from .validate import CAP, Errors

TASKS = {"mcqa-en": mcqa, "mcqa-zh": mcqa, "mcqa-all": mcqa, "dbqa": dbqa, "kbqa": kbqa, "openqa-en": openqa,
         "qac": qac, "datasearch": datasearch}


def parser():
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.score", description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", required=True, choices=TASKS)
    ap.add_argument("--gold", required=True, action="append", help="gold file (repeatable for mcqa-*)")
    ap.add_argument("--submission", required=True, action="append", help="submission (repeatable for mcqa-*)")
    ap.add_argument("--format", choices=tables.FORMATS, default="md", help="output format (default md)")
    ap.add_argument("--qac-task", type=int, choices=(1, 2, 3),
                    help="qac: 1 ranked answers (MRR), 2 answer lists (mean F), 3 follow-up questions (as 2)")
    ap.add_argument("--require-support-doc", action="store_true",
                    help="qac: an answer counts only with a gold supporting document id (the QAC-2 rule)")
    ap.add_argument("--max-errors", type=int, default=CAP, help=f"problems listed (default {CAP})")
    return ap


def options(args):
    """(read_submission options, score options) of the task."""
    if args.task != "qac":
        if args.qac_task or args.require_support_doc:
            raise UserError("--qac-task and --require-support-doc are for --task qac only")
        return {}, {}
    if not args.qac_task:
        raise UserError("--task qac needs --qac-task 1, 2 or 3")
    return {"task": args.qac_task}, {"task": args.qac_task, "require_doc": args.require_support_doc}


def mcqa_lang(task, path):
    if task != "mcqa-all":
        return task.split("-")[1]
    for lang in ("en", "zh"):
        if os.path.basename(path).lower().endswith(f"_{lang}.csv"):
            return lang
    raise UserError(f"{path}: cannot tell the language; name the file TEAMID_en.csv or TEAMID_zh.csv")


def evaluate(args, errors):
    """The scored result, or None when the submissions have problems (they are in ERRORS)."""
    if len(args.gold) != len(args.submission):
        raise UserError(f"{len(args.gold)} --gold but {len(args.submission)} --submission: give one of each per file")
    read_options, score_options = options(args)
    if args.task.startswith("mcqa-"):
        stems = [fileio.stem(path) for path in args.gold]
        if len(set(stems)) < len(stems):
            raise UserError(f"gold files need distinct names to be told apart: {', '.join(stems)}")
        files = []
        for gold_path, path, stem in zip(args.gold, args.submission, stems):
            lang, questions = mcqa_lang(args.task, path), mcqa.read_gold(gold_path)
            files.append((lang, stem, questions, mcqa.read_submission(path, questions, errors)))
        return None if errors else mcqa.score_files(files)
    if len(args.gold) > 1:
        raise UserError(f"--task {args.task} takes one --gold and one --submission")
    module = TASKS[args.task]
    gold = module.read_gold(args.gold[0])
    submission = module.read_submission(args.submission[0], gold, errors, **read_options)
    return None if errors else module.score(gold, submission, **score_options)


def show(task, result, fmt):
    questions = max(map(len, result["per_question"].values()))
    if fmt == "json":
        return json.dumps({"task": task, "questions": questions, "metrics": result["metrics"]}, indent=2)
    return tables.render(["metric", "value"], [[k, f"{v:.4f}"] for k, v in result["metrics"].items()], fmt,
                         caption=f"{task}, {questions} questions", align="lr")


@cli
def main(argv=None):
    args = parser().parse_args(argv)
    if args.max_errors < 1:
        raise UserError(f"--max-errors must be at least 1, not {args.max_errors}")
    errors = Errors(args.max_errors)
    result = evaluate(args, errors)
    if result is None:
        print(f"invalid submission: {len(errors)} problem{'s' * (len(errors) != 1)}", file=sys.stderr)
        print("\n".join(errors.lines()), file=sys.stderr)
        return 1
    print(show(args.task, result, args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
