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

Ranking and statistics (significance.py). Entries are ordered by the ranking measure (--measure;
default the task's main one: its `primary` measure, else its first), teams get competition ranks (equal
scores share a rank); baselines are listed where their score puts them, unranked and outside the tests.
Every measure gets a 95% percentile bootstrap interval (--resamples resamples of the questions, default
1,000, seed --seed). The paired approximate randomisation test on the ranking measure's per-question values
(--permutations, default 10,000, two-sided, seed --seed) compares, with --pairs next (the default), each team
with the next team down (`p (next)`, not corrected for multiple comparisons: whether that step of the
ranking is real), and with --pairs all every pair of teams, the p-values Holm-Bonferroni corrected over all
pairs and shown as a teams x teams matrix (md, LaTeX), one column per team (CSV) or a list (JSON); `*` marks
p < 0.05."""
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import UserError
from ..hints import plural
from ..reporting import render
from ..reporting.rows import labels, newest, read_rows
from ..textio import stem
from .significance import ALPHA, PERMUTATIONS, RESAMPLES, SEED, bootstrap_ci, holm, randomisation_test
from .validate import Errors

if TYPE_CHECKING:
    from ..reporting.plot import Panel
    from ..tasks.base import Task

PAIRS = ("next", "all")  # --pairs: each team with the next team, or every pair of teams


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


def submission_files(paths: Iterable[str]) -> list[str]:
    """The files named by PATHS: a folder gives its visible files (sorted), a file itself."""
    files: list[str] = []
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


def teams(files: Sequence[str], n_golds: int) -> dict[str, list[str]]:
    """{team: [files]}: a file's name without extension, without the `_PART` ending when all files share it or
    when there are several gold files."""
    endings = {stem(p).rsplit("_", 1)[-1] if "_" in stem(p) else None for p in files}
    cut = n_golds > 1 or (len(files) > 1 and len(endings) == 1 and None not in endings)
    out: dict[str, list[str]] = {}
    for path in files:
        name = stem(path)
        if cut and "_" in name:
            name = name.rsplit("_", 1)[0]
        out.setdefault(name, []).append(path)
    return {name: sorted(paths, key=os.path.basename) for name, paths in out.items()}


def score_entry(task: "Task[Any]", golds: Sequence[tuple[str, Any]], entry: Entry, max_errors: int) -> Entry:
    """Validate and score ENTRY's files against GOLDS [(path, gold)]; problems go to entry.problems."""
    if len(entry.files) != len(golds):
        what = "same name" if len(golds) == 1 else "one file per --gold file, named TEAM_PART.EXT"
        entry.count = 1
        entry.problems = [f"{plural(len(entry.files), 'file')} for {plural(len(golds), 'gold file')}: "
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


def baseline_entries(task: "Task[Any]", golds: Sequence[tuple[str, Any]], folder: str,
                     max_errors: int) -> list[Entry]:
    """Entries of the runs of TASK under FOLDER whose submission validates against GOLDS (one gold file)."""
    if len(golds) != 1:
        print(f"note: --baselines joins runs only for one --gold file, not {len(golds)}", file=sys.stderr)
        return []
    found = []
    for path, row in read_rows(folder):
        submission = (row.get("files") or {}).get("submission")
        if row["task"] != task.id:
            continue
        if not submission or not os.path.isfile(submission):
            print(f"note: {path}: its submission {submission} is missing: left out", file=sys.stderr)
        else:
            found.append((path, row))
    out, paths = [], {id(row): path for path, row in found}
    rows = newest(found)  # reruns of the same settings: the newest
    for row, label in zip(rows, labels(rows)):  # labels from the runs' settings, as the report's
        name = f"baseline {label}" if row["corpus"] == "-" else f"baseline {row['corpus']} {label}"
        entry = score_entry(task, golds, Entry(name, "baseline", [row["files"]["submission"]]), max_errors)
        if entry.problems:
            print(f"note: {paths[id(row)]}: a run on other data "
                  f"({plural(entry.count, 'problem')} against the gold): left out", file=sys.stderr)
        else:
            out.append(entry)
    return out


@dataclass
class Comparison:
    """One pair of teams (--pairs all): A above B in the table, the test's p and its Holm-Bonferroni value."""
    a: str
    b: str
    p: float
    p_holm: float


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
    pairs: str = "next"  # PAIRS: next (each team with the next team) or all (every pair of teams, Holm)
    comparisons: list = field(default_factory=list)  # --pairs all: every pair of teams, in table order

    @property
    def questions(self) -> int:
        return len(next(iter(self.entries[0].per_question.values()))) if self.entries else 0

    @property
    def teams(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == "team"]

    def p_holm(self, a: str, b: str) -> float | None:
        """--pairs all: the corrected p-value of teams A and B (named, either order); None for A with itself."""
        return next((c.p_holm for c in self.comparisons if {c.a, c.b} == {a, b} and a != b), None)


def build(task: "Task[Any]", gold_paths: Sequence[str], submissions: Iterable[str], baselines: str | None = None,
          measure: str | None = None, resamples: int = RESAMPLES, permutations: int = PERMUTATIONS, seed: int = SEED,
          max_errors: int = 20, pairs: str = "next") -> Board:
    """The Board of TASK: gold files, submission files/folders, optionally the baseline runs under BASELINES;
    PAIRS: `next` tests each team against the next team down, `all` every pair of teams (Holm-corrected)."""
    if pairs not in PAIRS:
        raise UserError(f"--pairs {pairs}: choose one of {', '.join(PAIRS)}")
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
    board = Board(task.id, list(gold_paths), measure, valid, [e for e in entries if e.problems], resamples,
                  permutations, seed, pairs)
    rank, previous = 0, None
    for i, e in enumerate(board.teams):
        if e.metrics[measure] != previous:
            rank, previous = i + 1, e.metrics[measure]
        e.rank = rank
    for e in valid:
        e.ci = {m: bootstrap_ci(v, resamples, seed) for m, v in e.per_question.items()}

    def test(upper, lower):
        return randomisation_test(upper.per_question[measure], lower.per_question[measure], permutations, seed)
    if pairs == "next":  # baselines stay outside the chain: a team is tested against the next team
        for upper, lower in zip(board.teams, board.teams[1:]):
            upper.p_next = test(upper, lower)
    else:
        tested = [(a, b, test(a, b)) for i, a in enumerate(board.teams) for b in board.teams[i + 1:]]
        board.comparisons = [Comparison(a.name, b.name, p, p_holm)
                             for (a, b, p), p_holm in zip(tested, holm([p for *_, p in tested]))]
    return board


def caption(board: Board) -> str:
    """The leaderboard's caption, a sentence: what was ranked, the intervals and the tests."""
    teams, baselines = len(board.teams), len(board.entries) - len(board.teams)
    what = plural(teams, "team") + (f" and {plural(baselines, 'baseline')} (unranked)"
                                           if baselines else "")
    left = f"; {plural(len(board.invalid), 'invalid submission')} left out" if board.invalid else ""
    gold = ", ".join(os.path.basename(g) for g in board.gold)
    test = (f"paired approximate randomisation test on {board.measure} ({board.permutations:,} permutations, "
            f"two-sided, seed {board.seed})")
    tests = (f" p (next): {test} of each team with the next team, not corrected for multiple comparisons;"
             f" * p < {ALPHA}." if board.pairs == "next" else " The next table compares every pair of teams.")
    return (f"Leaderboard of {board.task} on {gold} ({plural(board.questions, 'question')}): {what} ranked "
            f"by {board.measure}, shown with its 95% bootstrap confidence interval ({board.resamples:,} resamples, "
            f"seed {board.seed}){left}.{tests}")


def p_text(p: float | None) -> str:
    """A p-value as the tables print it: three decimals or `<0.001`, `*` when below ALPHA."""
    return "" if p is None else f"{p:.3f}{'*' if p < ALPHA else ''}" if p >= 0.001 else "<0.001*"


def pairs_matrix(board: Board) -> tuple[list[str], list[list[str]]]:
    """--pairs all: (header, rows) of the teams x teams matrix of Holm-corrected p-values; the rows and columns
    are numbered by the teams' places in the table."""
    names = [e.name for e in board.teams]
    header = ["#", "Team", *map(str, range(1, len(names) + 1))]
    return header, [[str(i), a, *(p_text(board.p_holm(a, b)) for b in names)] for i, a in enumerate(names, 1)]


def pairs_caption(board: Board) -> str:
    n = len(board.comparisons)
    return (f"Pairwise comparisons of the {plural(len(board.teams), 'team')} of the {board.task} "
            f"leaderboard on {board.measure}: p-values of the paired approximate randomisation test "
            f"({board.permutations:,} permutations, two-sided, seed {board.seed}), Holm-Bonferroni corrected over "
            f"the {plural(n, 'pair')}; * p < {ALPHA}. Rows and columns are numbered by the teams' places "
            "in the leaderboard.")


def show(board: Board, fmt: str, width: str = "column") -> str:
    """The leaderboard as md, LaTeX, CSV or JSON (JSON: everything, also the left-out submissions' problems);
    WIDTH: LaTeX's column or page. With --pairs all, md and LaTeX add the matrix of pairs, CSV a column of
    corrected p-values per team, JSON every comparison."""
    metrics = list(dict.fromkeys(m for e in board.entries for m in e.metrics))
    if fmt == "json":
        import json
        return json.dumps({
            "task": board.task, "gold": board.gold, "measure": board.measure, "questions": board.questions,
            "resamples": board.resamples, "permutations": board.permutations, "seed": board.seed,
            "pairs": board.pairs, "alpha": ALPHA,
            "test": "paired approximate randomisation, two-sided, " + (
                "each team with the next team, uncorrected" if board.pairs == "next" else
                "every pair of teams, Holm-Bonferroni corrected"),
            "entries": [{"rank": e.rank, "name": e.name, "kind": e.kind, "files": e.files, "metrics": e.metrics,
                         "ci": {m: list(v) if v else None for m, v in e.ci.items()}, "p_next": e.p_next}
                        for e in board.entries],
            "comparisons": [vars(c) for c in board.comparisons],
            "invalid": [{"name": e.name, "files": e.files, "problems": e.problems} for e in board.invalid],
        }, indent=2, ensure_ascii=False)
    if fmt == "csv":
        names = [e.name for e in board.teams]
        tests = ["p_next"] if board.pairs == "next" else [f"p_holm[{n}]" for n in names]
        header = ["rank", "name", "kind", *metrics, "ci_low", "ci_high", *tests, "files"]
        rows = [[e.rank if e.rank is not None else "", e.name, e.kind, *(e.metrics.get(m, "") for m in metrics),
                 *(e.ci.get(board.measure) or ("", "")),
                 *("" if p is None else p for p in ([e.p_next] if board.pairs == "next" else
                                                   [board.p_holm(e.name, n) for n in names])), " ".join(e.files)]
                for e in board.entries]
        return render.render(header, rows, "csv")

    def value(e, m):
        return render.estimate(m, e.metrics[m], e.ci.get(m) if m == board.measure else None) if m in e.metrics else ""
    header = ["Rank", "Team", *(render.Stacked(render.heading(m), "[95% CI]" * (m == board.measure)) for m in metrics),
              *(["p (next)"] if board.pairs == "next" else [])]
    rows = [["" if e.rank is None else e.rank, e.name, *(value(e, m) for m in metrics),
             *([p_text(e.p_next)] if board.pairs == "next" else [])] for e in board.entries]
    text = render.render(header, rows, fmt, caption=caption(board), align="rl" + "r" * (len(header) - 2),
                         label=f"tab:leaderboard-{board.task}", width=width)
    if board.invalid and fmt == "md":
        text += "\n\nLeft out (invalid): " + ", ".join(f"{e.name} ({plural(e.count, 'problem')})"
                                                       for e in board.invalid)
    if board.comparisons:
        header, rows = pairs_matrix(board)
        text += "\n\n" + render.render(header, rows, fmt, caption=pairs_caption(board),
                                       align="rl" + "r" * (len(header) - 2),
                                       label=f"tab:leaderboard-{board.task}-pairs", width=width)
    return text


def report_invalid(board: Board, out: TextIO | None = None) -> None:
    """Every left-out submission with its problems (the validator's lines), on stderr."""
    out = out or sys.stderr
    for e in board.invalid:
        print(f"left out: {e.name} ({', '.join(e.files)}): {plural(e.count, 'problem')}", file=out)
        for line in e.problems:
            print(f"  {line}", file=out)


def panels(board: Board) -> list["Panel"]:
    """The board as one figure panel (reporting/plot.py): the entries in table order (the first row at the top)
    and the task's reference levels (chance for MCQA; for qac-2/3 the AFM of answering nothing, from the gold)."""
    from ..reporting.plot import Panel, Point, entry_label, references
    points = []
    for e in board.entries:
        low, high = e.ci.get(board.measure) or (None, None)
        points.append(Point(entry_label(e.name, e.rank, e.kind), e.metrics[board.measure], low, high, e.kind))
    return [Panel(f"{board.task}: {', '.join(os.path.basename(g) for g in board.gold)}", board.measure, points,
                  references(board.task, board.measure, board.gold))]
