"""The leaderboard of a shared task: every team's submission validated, scored, ranked, with confidence
intervals and significance tests (`python -m qa_baseline.score --task T --gold G --submissions DIR|FILE ...`).

Teams. Each submission file is a team, named by its file name without extension, less a `_PART` ending that
every file shares (TEAM_en.csv: TEAM). With several --gold files (a multi-file task such as mcqa-all), a team
sends one file per gold file, named TEAM_PART.EXT (TEAM_en.csv, TEAM_zh.csv): its files, sorted by name,
pair with the --gold files in the order given.

Validation. A submission is read by the task's own strict validator (the one `score --submission` uses); an
invalid one (or one that cannot be read at all) is left out of the table and listed with its problems, and
the others are still scored: one bad file never stops the leaderboard.

Baselines. With --baselines [RUNS] (default runs/), every run of the task saved there (row.json, written by
`python -m qa_baseline.run`) whose submission validates against the gold joins the table as
`baseline CORPUS--VARIANT`, scored like a team; runs on other data are skipped with a note.

Ranking and statistics (qa_baseline/significance.py). Entries are ordered by the ranking measure (--measure;
default the task's main one: its `primary` measure, else its first), teams get
competition ranks (equal scores share a rank), baselines none. Every measure gets a 95% percentile bootstrap
interval (--resamples resamples of the questions, default 1,000, seed --seed). Each entry is compared with the
next one down by the paired approximate randomisation test on the ranking measure's per-question values
(--permutations, default 10,000, two-sided, seed --seed); `*` marks p < 0.05. p-values are not corrected for
multiple comparisons: the test between adjacent entries says whether that step of the ranking is real."""
import os
import sys
from dataclasses import dataclass, field

from . import render
from .errors import UserError
from .fileio import stem
from .rows import read_rows
from .significance import ALPHA, PERMUTATIONS, RESAMPLES, SEED, bootstrap_ci, randomisation_test
from .validate import Errors


@dataclass
class Entry:
    """One row of the leaderboard (or a left-out submission when PROBLEMS is not empty)."""
    name: str
    kind: str  # team or baseline
    files: list
    metrics: dict = field(default_factory=dict)
    per_question: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)  # the validator's lines (capped)
    count: int = 0  # problems found
    ci: dict = field(default_factory=dict)
    rank: int | None = None
    p_next: float | None = None


def submission_files(paths):
    """The files named by PATHS: a folder gives its visible files (sorted), a file itself."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(os.path.join(path, n) for n in os.listdir(path)
                           if not n.startswith(".") and os.path.isfile(os.path.join(path, n)))
            if not found:
                raise UserError(f"{path}: no submission files in this folder")
            files += found
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise UserError(f"{path}: no such file or folder")
    return list(dict.fromkeys(os.path.abspath(f) for f in files))


def teams(files, n_golds):
    """{team: [files]}: a file's name without extension, without the `_PART` ending when all files share it or
    when there are several gold files."""
    endings = {stem(p).rsplit("_", 1)[-1] if "_" in stem(p) else None for p in files}
    cut = n_golds > 1 or (len(files) > 1 and len(endings) == 1 and None not in endings)
    out = {}
    for path in files:
        name = stem(path)
        if cut and "_" in name:
            name = name.rsplit("_", 1)[0]
        out.setdefault(name, []).append(path)
    return {name: sorted(paths, key=os.path.basename) for name, paths in out.items()}


def score_entry(task, golds, entry, max_errors):
    """Validate and score ENTRY's files against GOLDS [(path, gold)]; problems go to entry.problems."""
    if len(entry.files) != len(golds):
        what = "same name" if len(golds) == 1 else "one file per --gold file, named TEAM_PART.EXT"
        entry.count = 1
        entry.problems = [f"{len(entry.files)} files for {len(golds)} gold file{'s' * (len(golds) > 1)}: "
                          f"{', '.join(map(os.path.basename, entry.files))} (fix: {what})"]
        return entry
    errors = Errors(max_errors)
    try:
        pairs = [(gold_path, path, gold, task.read_submission(path, gold, errors))
                 for (gold_path, gold), path in zip(golds, entry.files)]
        if not errors:
            result = task.score_files(pairs)
            entry.metrics, entry.per_question = result["metrics"], result["per_question"]
            return entry
    except UserError as e:
        errors.add(entry.files[0], None, str(e), "make the file follow the task's format")
    except Exception as e:  # a submission must never stop the leaderboard, whatever is in it
        errors.add(entry.files[0], None, f"cannot be read ({type(e).__name__}: {e})", "check the file's format")
    entry.problems, entry.count = errors.lines(), len(errors)
    return entry


def baseline_entries(task, golds, folder, max_errors):
    """Entries of the runs of TASK under FOLDER whose submission validates against GOLDS (one gold file)."""
    if len(golds) != 1:
        print(f"note: --baselines joins runs only for one --gold file, not {len(golds)}", file=sys.stderr)
        return []
    out = []
    for path, row in read_rows(folder):
        if row["task"] != task.id:
            continue
        submission = (row.get("files") or {}).get("submission")
        if not submission or not os.path.isfile(submission):
            print(f"note: {path}: its submission {submission} is missing: left out", file=sys.stderr)
            continue
        run = os.path.basename(os.path.dirname(path))
        label = "--".join(run.split("--")[1:]) or run
        entry = score_entry(task, golds, Entry(f"baseline {label}", "baseline", [submission]), max_errors)
        if entry.problems:
            print(f"note: {path}: a run on other data ({entry.count} problems against the gold): left out",
                  file=sys.stderr)
        else:
            out.append(entry)
    return out


@dataclass
class Board:
    task: str
    gold: list
    measure: str
    entries: list  # valid, in table order
    invalid: list
    resamples: int
    permutations: int
    seed: int

    @property
    def questions(self):
        return len(next(iter(self.entries[0].per_question.values()))) if self.entries else 0


def build(task, gold_paths, submissions, baselines=None, measure=None, resamples=RESAMPLES,
          permutations=PERMUTATIONS, seed=SEED, max_errors=20):
    """The Board of TASK: gold files, submission files/folders, optionally the baseline runs under BASELINES."""
    measure = measure or task.main_measure
    golds = [(path, task.read_gold(path)) for path in gold_paths]
    if len(golds) > 1 and not task.multi_file:
        raise UserError(f"--task {task.id} takes one --gold file")
    entries = [score_entry(task, golds, Entry(name, "team", files), max_errors)
               for name, files in teams(submission_files(submissions), len(golds)).items()]
    if baselines:
        entries += baseline_entries(task, golds, baselines, max_errors)
    valid = [e for e in entries if not e.problems]
    if valid and measure not in valid[0].metrics:
        raise UserError(f"--measure {measure}: task {task.id} reports {', '.join(valid[0].metrics)}")
    valid.sort(key=lambda e: (-e.metrics[measure], e.kind != "team", e.name))
    rank, previous = 0, None
    for i, e in enumerate(x for x in valid if x.kind == "team"):
        if e.metrics[measure] != previous:
            rank, previous = i + 1, e.metrics[measure]
        e.rank = rank
    for e in valid:
        e.ci = {m: bootstrap_ci(v, resamples, seed) for m, v in e.per_question.items()}
    for upper, lower in zip(valid, valid[1:]):
        a, b = upper.per_question.get(measure), lower.per_question.get(measure)
        if a and b and len(a) == len(b):
            upper.p_next = randomisation_test(a, b, permutations, seed)
    return Board(task.id, list(gold_paths), measure, valid, [e for e in entries if e.problems], resamples,
                 permutations, seed)


def caption(board):
    left = len(board.invalid)
    return (f"{board.task} leaderboard: {len(board.entries)} entries ({left} invalid submission{'s' * (left != 1)} "
            f"left out), ranked by {board.measure}; value [95% bootstrap CI, {board.resamples} resamples of the "
            f"{board.questions} questions, seed {board.seed}]; p: paired approximate randomisation test with the "
            f"next row on {board.measure} ({board.permutations} permutations, two-sided, seed {board.seed}), "
            f"* p < {ALPHA}")


def p_text(p):
    return "" if p is None else f"{p:.3f}{'*' if p < ALPHA else ''}" if p >= 0.001 else "<0.001*"


def show(board, fmt):
    """The leaderboard as md, LaTeX, CSV or JSON (JSON: everything, also the left-out submissions' problems)."""
    metrics = list(dict.fromkeys(m for e in board.entries for m in e.metrics))
    if fmt == "json":
        import json
        return json.dumps({
            "task": board.task, "gold": board.gold, "measure": board.measure, "questions": board.questions,
            "resamples": board.resamples, "permutations": board.permutations, "seed": board.seed,
            "test": "paired approximate randomisation, two-sided, with the next entry", "alpha": ALPHA,
            "entries": [{"rank": e.rank, "name": e.name, "kind": e.kind, "files": e.files, "metrics": e.metrics,
                         "ci": {m: list(v) if v else None for m, v in e.ci.items()}, "p_next": e.p_next}
                        for e in board.entries],
            "invalid": [{"name": e.name, "files": e.files, "problems": e.problems} for e in board.invalid],
        }, indent=2, ensure_ascii=False)
    if fmt == "csv":
        header = ["rank", "name", "kind", *metrics, "ci_low", "ci_high", "p_next", "files"]
        rows = [[e.rank if e.rank is not None else "", e.name, e.kind, *(e.metrics.get(m, "") for m in metrics),
                 *(e.ci.get(board.measure) or ("", "")), "" if e.p_next is None else e.p_next, " ".join(e.files)]
                for e in board.entries]
        return render.render(header, rows, "csv")

    def value(e, m):
        v = render.number(m, e.metrics[m]) if m in e.metrics else ""
        ci = e.ci.get(m)
        return f"{v} [{render.number(m, ci[0])}, {render.number(m, ci[1])}]" if m == board.measure and ci else v
    header = ["Rank", "Team", *(render.heading(m) + (" [95% CI]" if m == board.measure else "") for m in metrics),
              "p (next)"]
    rows = [["" if e.rank is None else e.rank, e.name, *(value(e, m) for m in metrics), p_text(e.p_next)]
            for e in board.entries]
    text = render.render(header, rows, fmt, caption=caption(board), align="rl" + "r" * len(metrics) + "r",
                         label=f"tab:leaderboard-{board.task}")
    if board.invalid and fmt == "md":
        text += "\n\nLeft out (invalid): " + ", ".join(f"{e.name} ({e.count} problem{'s' * (e.count != 1)})"
                                                       for e in board.invalid)
    return text


def report_invalid(board, out=None):
    """Every left-out submission with its problems (the validator's lines), on stderr."""
    out = out or sys.stderr
    for e in board.invalid:
        print(f"left out: {e.name} ({', '.join(e.files)}): {e.count} problem{'s' * (e.count != 1)}", file=out)
        for line in e.problems:
            print(f"  {line}", file=out)


def panels(board):
    """The board as one figure panel (plot.py)."""
    from .plot import Panel, Point
    points = [Point(e.name if e.rank is None else f"{e.rank}. {e.name}", e.metrics[board.measure],
                    *(e.ci.get(board.measure) or (None, None)), e.kind) for e in board.entries]
    return [Panel(f"{board.task}: {', '.join(os.path.basename(g) for g in board.gold)}", board.measure, points)]
