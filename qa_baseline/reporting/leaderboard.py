"""The leaderboard of a shared task: every team's submission validated, scored, ranked, with confidence
intervals and significance tests (`python -m qa_baseline.score --task T --gold G --submissions DIR|FILE ...`).

Runs. --submissions DIR holds flat files, each a team that sent one run (TEAM.ext, TEAM_en.csv: TEAM, less a
`_PART` ending that every file shares), and one folder per team holding its runs (TEAM/RUN.ext). A run is
named `TEAM/RUN`, or `TEAM` when the team sent one; two files that would share a name are two runs with
names of their own (find_runs). README*, *.md, *.pdf and hidden files are ignored and listed once. With
several --gold files (a multi-file task such as mcqa-all), a run is one file per gold file, named
RUN_PART.EXT (RUN_en.csv, RUN_zh.csv): its files, sorted by name, pair with the --gold files in the order
given. By default every run is ranked (as NTCIR and TREC overviews do); --primary best|first ranks one run
per team.

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
import fnmatch
import math
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from ..core.errors import UserError
from ..core.hints import plural
from ..core.textio import stem
from ..scoring import tukey
from ..scoring.significance import ALPHA, PERMUTATIONS, RESAMPLES, SEED, bootstrap_ci, holm, randomisation_test
from ..scoring.tukey import TRIALS, Anova
from ..scoring.validate import Errors
from . import render
from .plot import Panel, Point, entry_label, references
from .rows import labels, newest, read_rows

if TYPE_CHECKING:
    from ..tasks.base import Task
    from .plot import Panel

PAIRS = ("next", "all")  # --pairs: each run with the next run, or every pair of runs
TESTS = ("randomisation", "tukey")  # --test of --pairs all: paired randomisation (Holm), randomised Tukey HSD
PRIMARY = ("all", "best", "first")  # --primary: every run ranked, or one per team
IGNORED = ("readme*", "*.md", "*.pdf")  # files teams send beside their runs (and hidden ones): listed, never scored


@dataclass
class Entry:
    """One row of the leaderboard: a team's run or a baseline (or a left-out run when PROBLEMS is not empty).
    NAME is what the comparisons refer to: `TEAM/RUN`, `TEAM`, or `baseline LABEL`."""
    name: str
    kind: str  # team or baseline
    files: list
    team: str = ""
    run: str = ""
    metrics: dict = field(default_factory=dict)
    per_question: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)  # the validator's lines (capped)
    count: int = 0  # problems found
    ci: dict = field(default_factory=dict)
    rank: int | None = None
    p_next: float | None = None
    letters: str = ""  # --test tukey: the compact letter display (a letter shared: not significantly different)
    wtl: tuple[int, int, int] | None = None  # per-question wins, ties, losses against the first baseline


@dataclass(frozen=True)
class Run:
    """One run found under --submissions: NAME is what the table and the comparisons call it (`TEAM/RUN`, or
    `TEAM` when the team sent one run); FILES pair with the --gold files in order."""
    team: str
    run: str
    files: tuple[str, ...]
    origin: str  # the folder named on the command line ("" for a file named there)
    name: str = ""


@dataclass
class Found:
    """What --submissions holds: the runs, the files ignored by rule, team folders without a run, and how names
    that would have collided were told apart."""
    runs: list[Run]
    ignored: list[str]
    empty: list[str]
    renamed: list[str]


def ignored(name: str) -> bool:
    return name.startswith(".") or any(fnmatch.fnmatch(name.lower(), p) for p in IGNORED)


def grouped(files: Sequence[str], n_golds: int) -> dict[str, list[str]]:
    """{key: [files]}: a file's name without extension, less a `_PART` ending when there are several gold files
    or when every file has the same one (TEAM_en.csv: TEAM)."""
    endings = {stem(p).rsplit("_", 1)[-1] if "_" in stem(p) else None for p in files}
    cut = n_golds > 1 or (len(files) > 1 and len(endings) == 1 and None not in endings)
    out: dict[str, list[str]] = {}
    for path in files:
        name = stem(path)
        out.setdefault(name.rsplit("_", 1)[0] if cut and "_" in name else name, []).append(path)
    return {key: sorted(paths, key=os.path.basename) for key, paths in out.items()}


def runs_of(files: Sequence[str], n_golds: int, origin: str, team: str | None = None) -> list[Run]:
    """The runs of FILES: each a team (flat files, TEAM None) or each a run of TEAM (a team's folder). A key
    with more files than one run takes (alpha.txt and alpha.tsv for one gold file) is a run per file."""
    out = []
    for key, paths in grouped(files, n_golds).items():
        split = n_golds == 1 and len(paths) > 1
        for group in ([[p] for p in paths] if split else [paths]):
            run = os.path.basename(group[0]) if split else key
            out.append(Run(team or key, run if team or split else "", tuple(group), origin))
    return out


def find_runs(paths: Iterable[str], n_golds: int = 1) -> Found:
    """Every run under PATHS: a folder holds flat files (TEAM.ext, TEAM_en.csv: a team with one run) and one
    folder per team (TEAM/RUN.ext); a file named on the command line is a flat file. Names are unique: runs
    that would share one are told apart by the folder they came from, then by their file names."""
    found = Found([], [], [], [])
    flat: dict[str, list[str]] = {}
    for path in {os.path.abspath(p): p for p in paths}.values():  # a folder or file named twice is read once
        if os.path.isfile(path):
            flat.setdefault("", []).append(os.path.abspath(path))
            continue
        if not os.path.isdir(path):
            raise UserError(f"{path}: no such file or folder")
        origin, before = os.path.abspath(path), len(found.runs)
        for name in sorted(os.listdir(path)):
            full = os.path.join(origin, name)
            if ignored(name):
                found.ignored.append(os.path.join(path, name))
            elif os.path.isdir(full):
                found.runs += team_folder(path, name, n_golds, found)
            else:
                flat.setdefault(origin, []).append(full)
        if not flat.get(origin) and len(found.runs) == before and not any(
                e.startswith(os.path.join(path, "")) for e in found.empty):
            shown = f" (ignored: {', '.join(map(os.path.basename, found.ignored))})" if found.ignored else ""
            raise UserError(f"{path}: no submission files in this folder{shown} (fix: put TEAM.ext files or "
                            "TEAM/RUN.ext folders there)")
    seen = {f for origin, files in flat.items() if origin for f in files} | {f for r in found.runs for f in r.files}
    for origin, files in flat.items():  # a file named itself and in a folder named is read in the folder
        found.runs += runs_of([f for f in dict.fromkeys(files) if origin or f not in seen], n_golds, origin)
    found.runs = named(found.runs, found.renamed)
    return found


def team_folder(root: str, team: str, n_golds: int, found: Found) -> list[Run]:
    """The runs in ROOT/TEAM; a folder inside it is one error, a folder without runs is an empty team."""
    folder, files = os.path.join(root, team), []
    for name in sorted(os.listdir(folder)):
        full = os.path.join(folder, name)
        if ignored(name):
            found.ignored.append(full)
        elif os.path.isdir(full):
            raise UserError(f"{full}: a folder inside a team's folder (fix: runs lie one level down, as "
                            f"{os.path.join(root, team, 'RUN.ext')}: move its files up or make it a team "
                            f"folder of {root})")
        else:
            files.append(os.path.abspath(full))
    if not files:
        found.empty.append(os.path.join(folder, ""))
    return runs_of(files, n_golds, os.path.abspath(root), team)


def named(runs: Sequence[Run], renamed: list[str]) -> list[Run]:
    """RUNS with unique names: `TEAM` for a team's only run, else `TEAM/RUN`. Runs that would share a name and
    come from different folders named on the command line take their folder's name as team (`teams/*`); any
    still shared are named by their file's path in its folder. Each renaming is noted in RENAMED."""
    per_team = Counter((r.origin, r.team) for r in runs)
    out = [replace(r, name=f"{r.team}/{r.run}" if r.run and per_team[r.origin, r.team] > 1 else r.team)
           for r in runs]
    for step in ("folder", "file"):
        same: dict[str, list[int]] = {}
        for i, r in enumerate(out):
            same.setdefault(r.name, []).append(i)
        for name, group in same.items():
            if len(group) < 2 or step == "folder" and len({out[i].origin for i in group}) < len(group):
                continue
            for i in group:
                r = out[i]
                if step == "folder":
                    r = replace(r, team=os.path.basename(r.origin) or r.team, run=r.name)
                    r = replace(r, name=f"{r.team}/{r.run}")
                else:
                    rel = os.path.relpath(r.files[0], r.origin or os.path.dirname(r.files[0]))
                    r = replace(r, run=rel, name=rel)
                renamed.append(f"{', '.join(r.files)}: named {r.name} ({name} names another run too)")
                out[i] = r
    return out


def score_entry(task: "Task[Any]", golds: Sequence[tuple[str, Any]], entry: Entry, max_errors: int) -> Entry:
    """Validate and score ENTRY's files against GOLDS [(path, gold)]; problems go to entry.problems."""
    if len(entry.files) != len(golds):  # several --gold files only: with one, each file is a run (runs_of)
        entry.count = 1
        entry.problems = [f"{plural(len(entry.files), 'file')} for {plural(len(golds), 'gold file')}: "
                          f"{', '.join(map(os.path.basename, entry.files))} "
                          "(fix: one file per --gold file, named RUN_PART.EXT)"]
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
        name = f"baseline {label}"  # the label names the corpus where the task's runs differ in it
        entry = score_entry(task, golds, Entry(name, "baseline", [row["files"]["submission"]]), max_errors)
        if entry.problems:
            print(f"note: {paths[id(row)]}: a run on other data "
                  f"({plural(entry.count, 'problem')} against the gold): left out", file=sys.stderr)
        else:
            out.append(entry)
    return out


@dataclass
class Comparison:
    """One pair of runs (--pairs all): A above B in the table, the mean difference of the ranking measure, the
    test's p (randomised Tukey HSD, or the paired randomisation test with its Holm-Bonferroni value) and the
    effect size ES_E = DIFF / sqrt(V_E)."""
    a: str
    b: str
    diff: float
    p: float
    p_holm: float | None = None
    effect: float | None = None


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
    pairs: str = "next"  # PAIRS: next (each run with the next run) or all (every pair of runs)
    comparisons: list = field(default_factory=list)  # --pairs all: every pair, in table order
    test: str = "randomisation"  # TESTS
    trials: int = TRIALS  # --test tukey
    primary: str = "all"  # PRIMARY
    ignored: list = field(default_factory=list)  # files ignored by rule (README.md, hidden files)
    renamed: list = field(default_factory=list)  # runs named apart from another run of the same name
    others: list = field(default_factory=list)  # --primary: the runs not ranked (valid, not in the table)
    anova: Anova | None = None  # --test tukey or --power: runs x questions
    power: float | None = None  # --power: the minimum difference the question set detects
    intervals: bool = True  # --ci none: no intervals in the table
    gold_rows: list = field(default_factory=list)  # (question id, gold answer) in the per-question values' order

    @property
    def questions(self) -> int:
        return len(next(iter(self.entries[0].per_question.values()))) if self.entries else 0

    @property
    def teams(self) -> list[Entry]:
        """The ranked runs (every run of a team, or one per team with --primary)."""
        return [e for e in self.entries if e.kind == "team"]

    @property
    def compared(self) -> list[Entry]:
        """The entries the pairwise tests compare: every run in the table for Tukey HSD, the teams' runs else."""
        return self.entries if self.test == "tukey" else self.teams

    def comparison(self, a: str, b: str) -> Comparison | None:
        """The comparison of runs A and B (named, either order); None for A with itself."""
        return next((c for c in self.comparisons if {c.a, c.b} == {a, b} and a != b), None)

    def p_holm(self, a: str, b: str) -> float | None:
        """--pairs all: the corrected p-value of runs A and B (named, either order); None for A with itself."""
        c = self.comparison(a, b)
        return None if c is None else c.p_holm if c.p_holm is not None else c.p

    def summary(self) -> str:
        """The last stderr line: what was scored, left out and ignored."""
        teams = len({e.team for e in self.teams + self.others})
        baselines = len(self.entries) - len(self.teams)
        text = f"scored {plural(len(self.teams) + len(self.others), 'run')} of {plural(teams, 'team')}"
        text += f" and {plural(baselines, 'baseline')}" if baselines else ""
        text += f" (ranked the {self.primary} run of each team)" if self.primary != "all" else ""
        text += f"; left out {len(self.invalid)} invalid" if self.invalid else ""
        shown = ", ".join(map(os.path.basename, self.ignored[:5])) + (" ..." if len(self.ignored) > 5 else "")
        return text + (f"; ignored {shown}" if self.ignored else "")


def primary_runs(entries: list[Entry], measure: str, primary: str) -> tuple[list[Entry], list[Entry]]:
    """(ranked, others): with PRIMARY best or first, one run per team (its best by MEASURE, ties by name, or
    its first by name); every run with `all`."""
    if primary == "all":
        return entries, []
    chosen: dict[str, Entry] = {}
    for e in sorted(entries, key=lambda e: e.run):
        if e.team not in chosen or primary == "best" and e.metrics[measure] > chosen[e.team].metrics[measure]:
            chosen[e.team] = e
    keep = {id(e) for e in chosen.values()}
    return [e for e in entries if id(e) in keep], [e for e in entries if id(e) not in keep]


def build(task: "Task[Any]", gold_paths: Sequence[str], submissions: Iterable[str], baselines: str | None = None,
          measure: str | None = None, resamples: int = RESAMPLES, permutations: int = PERMUTATIONS, seed: int = SEED,
          max_errors: int = 20, pairs: str = "next", test: str = "randomisation", trials: int = TRIALS,
          primary: str = "all", power: bool = False, intervals: bool = True) -> Board:
    """The Board of TASK: gold files, submission files/folders, optionally the baseline runs under BASELINES.
    PAIRS `next` tests each run against the next run down, `all` every pair: TEST `randomisation` (paired,
    Holm-corrected) or `tukey` (randomised Tukey HSD over every run in the table, with letter groups)."""
    for value, allowed, option in ((pairs, PAIRS, "--pairs"), (test, TESTS, "--test"), (primary, PRIMARY, "--primary")):
        if value not in allowed:
            raise UserError(f"{option} {value}: choose one of {', '.join(allowed)}")
    if test == "tukey" and pairs != "all":
        raise UserError("--test tukey compares every pair of runs (fix: add --pairs all)")
    measure = measure or task.main_measure
    golds = [(path, task.read_gold(path)) for path in gold_paths]
    if len(golds) > 1 and not task.multi_file:
        raise UserError(f"--task {task.id} takes one --gold file")
    found = find_runs(submissions, len(golds))
    entries = [score_entry(task, golds, Entry(r.name, "team", list(r.files), r.team, r.run), max_errors)
               for r in found.runs]
    entries += [Entry(os.path.basename(os.path.dirname(path)), "team", [path], os.path.basename(os.path.dirname(path)),
                      problems=[f"{path}: no run in this team's folder (fix: put its runs there as RUN.ext)"], count=1)
                for path in found.empty]
    if baselines:
        entries += baseline_entries(task, golds, baselines, max_errors)
    valid = [e for e in entries if not e.problems]
    if valid and measure not in valid[0].metrics:
        raise UserError(f"--measure {measure}: task {task.id} reports {', '.join(valid[0].metrics)}")
    ranked, others = primary_runs([e for e in valid if e.kind == "team"], measure, primary)
    valid = ranked + [e for e in valid if e.kind != "team"]
    valid.sort(key=lambda e: (-e.metrics[measure], e.kind != "team", e.name))
    board = Board(task.id, list(gold_paths), measure, valid, [e for e in entries if e.problems], resamples,
                  permutations, seed, pairs, test=test, trials=trials, primary=primary, ignored=found.ignored,
                  renamed=found.renamed, others=others, intervals=intervals,
                  gold_rows=[row for _, gold in golds for row in task.gold_rows(gold)])
    if valid and len(board.gold_rows) != board.questions:
        raise AssertionError(f"task {task.id}: {len(board.gold_rows)} gold rows for {board.questions} questions")
    rank, previous = 0, None
    for i, e in enumerate(board.teams):
        if e.metrics[measure] != previous:
            rank, previous = i + 1, e.metrics[measure]
        e.rank = rank
    for e in valid:
        e.ci = {m: bootstrap_ci(v, resamples, seed) for m, v in e.per_question.items()} if intervals else {}
    first = next((e for e in valid if e.kind == "baseline"), None)
    for e in valid:
        e.wtl = tukey.wins_ties_losses(e.per_question[measure], first.per_question[measure]) if first else None
    compare(board)
    if power and len(board.compared) > 1:
        anova = board.anova or tukey.anova(matrix(board.compared, measure))
        board.anova = anova
        board.power = tukey.min_detectable_difference(anova.v_e, board.questions, len(board.compared))
    return board


def matrix(entries: Sequence[Entry], measure: str) -> np.ndarray:
    """Runs x questions: each entry's per-question values of MEASURE."""
    return np.array([e.per_question[measure] for e in entries], dtype=float)


def compare(board: Board) -> None:
    """The board's tests: each run against the next (--pairs next), or every pair (--pairs all) by the paired
    randomisation test (Holm-corrected) or randomised Tukey HSD (with letter groups); effect sizes from the
    two-way ANOVA of the runs compared."""
    runs, measure = board.compared, board.measure

    def test(upper, lower):
        return randomisation_test(upper.per_question[measure], lower.per_question[measure], board.permutations,
                                  board.seed)
    if board.pairs == "next":  # baselines stay outside the chain: a run is tested against the next run
        for upper, lower in zip(runs, runs[1:]):
            upper.p_next = test(upper, lower)
        return
    if len(runs) < 2:
        return
    x = matrix(runs, measure)
    pairs = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    if board.test == "tukey":
        result = tukey.tukey_hsd(x, board.trials, board.seed)
        board.anova = result.anova
        board.comparisons = [Comparison(runs[i].name, runs[j].name, float(x[i].mean() - x[j].mean()),
                                        float(result.p[i, j]), None, float(result.effect[i, j])) for i, j in pairs]
        for e, letters in zip(runs, tukey.letters(x.mean(axis=1), result.p, ALPHA)):
            e.letters = letters
        return
    v_e = tukey.residual_variance(x)
    scale = math.sqrt(v_e) if v_e > 0 else math.nan
    tested = [(i, j, test(runs[i], runs[j])) for i, j in pairs]
    board.comparisons = [Comparison(runs[i].name, runs[j].name, float(x[i].mean() - x[j].mean()), p, p_holm,
                                    float((x[i].mean() - x[j].mean()) / scale))
                         for (i, j, p), p_holm in zip(tested, holm([p for *_, p in tested]))]


def caption(board: Board) -> str:
    """The leaderboard's caption, a sentence: what was ranked, the intervals and the tests."""
    teams, baselines = len(board.teams), len(board.entries) - len(board.teams)
    what = plural(teams, "run") + (f" and {plural(baselines, 'baseline')} (unranked)" if baselines else "")
    if board.primary != "all":
        what += f" (the {board.primary} run of each team; {plural(len(board.others), 'other run')} not ranked)"
    left = f"; {plural(len(board.invalid), 'invalid run')} left out" if board.invalid else ""
    gold = ", ".join(os.path.basename(g) for g in board.gold)
    interval = (f", shown with its 95% bootstrap confidence interval ({board.resamples:,} resamples, seed "
                f"{board.seed})" if board.intervals else "")
    test = (f"paired approximate randomisation test on {board.measure} ({board.permutations:,} permutations, "
            f"two-sided, seed {board.seed})")
    if board.pairs == "next":
        tests = f" p (next): {test} of each run with the next run, not corrected for multiple comparisons; * p < {ALPHA}."
    elif board.test == "tukey":
        tests = (f" Group: runs that share a letter do not differ significantly (randomised Tukey HSD on "
                 f"{board.measure}, {board.trials:,} trials, seed {board.seed}, α = {ALPHA}).")
    else:
        tests = " The next table compares every pair of runs."
    wtl = (f" W/T/L: questions won, tied and lost against {first_baseline(board)}." if first_baseline(board)
           else "")
    return (f"Leaderboard of {board.task} on {gold} ({plural(board.questions, 'question')}): {what} ranked "
            f"by {board.measure}{interval}{left}.{tests}{wtl}")


def first_baseline(board: Board) -> str:
    return next((e.name for e in board.entries if e.kind == "baseline"), "")


def p_text(p: float | None) -> str:
    """A p-value as the tables print it: three decimals or `<0.001`, `*` when below ALPHA."""
    return "" if p is None else f"{p:.3f}{'*' if p < ALPHA else ''}" if p >= 0.001 else "<0.001*"


def pairs_matrix(board: Board) -> tuple[list[str], list[list[str]]]:
    """--pairs all --test randomisation: (header, rows) of the runs x runs matrix of Holm-corrected p-values;
    the rows and columns are numbered by the runs' places in the table."""
    names = [e.name for e in board.compared]
    header = ["#", "Run", *map(str, range(1, len(names) + 1))]
    return header, [[str(i), a, *(p_text(board.p_holm(a, b)) for b in names)] for i, a in enumerate(names, 1)]


def pairs_list(board: Board) -> tuple[list[str], list[list[str]]]:
    """--test tukey: (header, rows) of every pair with the difference, the effect size and p."""
    header = ["Run", "Run", f"Δ {render.heading(board.measure)}", "ES_E", "p"]
    scale = 100 if render.is_percent(board.measure) else 1
    return header, [[c.a, c.b, f"{scale * c.diff:.{1 if scale == 100 else 3}f}", f"{c.effect:.2f}", p_text(c.p)]
                    for c in board.comparisons]


def pairs_caption(board: Board) -> str:
    n = len(board.comparisons)
    if board.test == "tukey":
        return (f"Every pair of the {plural(len(board.compared), 'run')} of the {board.task} leaderboard on "
                f"{board.measure}: the difference of means, the effect size ES_E (the difference over the residual "
                f"standard deviation of the two-way ANOVA) and p of the randomised Tukey HSD test ({board.trials:,} "
                f"trials, seed {board.seed}); * p < {ALPHA}.")
    return (f"Pairwise comparisons of the {plural(len(board.compared), 'run')} of the {board.task} "
            f"leaderboard on {board.measure}: p-values of the paired approximate randomisation test "
            f"({board.permutations:,} permutations, two-sided, seed {board.seed}), Holm-Bonferroni corrected over "
            f"the {plural(n, 'pair')}; * p < {ALPHA}. Rows and columns are numbered by the runs' places "
            "in the leaderboard.")


def anova_table(board: Board) -> tuple[list[str], list[list[str]]]:
    """The two-way ANOVA (runs x questions) as (header, rows)."""
    assert board.anova is not None
    rows = []
    for source in ("runs", "questions", "residual", "total"):
        r = getattr(board.anova, source)
        rows.append([source, f"{r.ss:.4f}", str(r.df), "" if r.ms is None else f"{r.ms:.5f}",
                     "" if r.f is None else f"{r.f:.2f}", "" if r.p is None else p_text(r.p).rstrip("*")])
    return ["Source", "SS", "df", "MS", "F", "p"], rows


def power_text(board: Board) -> str:
    """--power: the minimum detectable difference, a sentence under the table."""
    if board.power is None:
        return ""
    value = render.number(board.measure, board.power) + (" points" if render.is_percent(board.measure) else "")
    return (f"With {plural(board.questions, 'question')} and {plural(len(board.compared), 'run')}, a difference of "
            f"{value} in {board.measure} between the best and the worst run is detected with power 0.8 at "
            f"α = {ALPHA} (one-way ANOVA, V_E = {board.anova.v_e:.4g}; Sakai's topic set size design): the question "
            f"set's minimum detectable difference." if board.anova else "")


def entry_json(e: Entry) -> dict[str, Any]:
    return {"rank": e.rank, "name": e.name, "team": e.team, "run": e.run, "kind": e.kind, "files": e.files,
            "metrics": e.metrics, "ci": {m: list(v) if v else None for m, v in e.ci.items()}, "p_next": e.p_next,
            "letters": e.letters, "wtl": list(e.wtl) if e.wtl else None}


def show(board: Board, fmt: str, width: str = "column") -> str:
    """The leaderboard as md, LaTeX, CSV or JSON (JSON: everything, also the left-out runs' problems); WIDTH:
    LaTeX's column or page. With --pairs all, md and LaTeX add the pairs (a matrix of corrected p-values, or
    for Tukey HSD a list with effects) and the ANOVA table, CSV a column of p-values per run, JSON every
    comparison."""
    metrics = list(dict.fromkeys(m for e in board.entries for m in e.metrics))
    tukey_test = board.test == "tukey"
    if fmt == "json":
        import json
        return json.dumps({
            "task": board.task, "gold": board.gold, "measure": board.measure, "questions": board.questions,
            "resamples": board.resamples, "permutations": board.permutations, "seed": board.seed,
            "pairs": board.pairs, "alpha": ALPHA, "primary": board.primary,
            "test": ("randomised Tukey HSD, every pair of runs in the table" if tukey_test else
                     "paired approximate randomisation, two-sided, " + (
                         "each run with the next run, uncorrected" if board.pairs == "next" else
                         "every pair of runs, Holm-Bonferroni corrected")),
            **({"trials": board.trials} if tukey_test else {}),
            "entries": [entry_json(e) for e in board.entries],
            "comparisons": [vars(c) for c in board.comparisons],
            "anova": ({s: vars(getattr(board.anova, s)) for s in ("runs", "questions", "residual", "total")}
                      | {"v_e": board.anova.v_e} if board.anova else None),
            "power": board.power,
            "not_ranked": [entry_json(e) for e in board.others],
            "invalid": [{"name": e.name, "team": e.team, "run": e.run, "files": e.files, "problems": e.problems}
                        for e in board.invalid],
            "ignored": board.ignored,
        }, indent=2, ensure_ascii=False)
    wtl = bool(first_baseline(board))
    if fmt == "csv":
        names = [e.name for e in board.compared]
        tests = (["p_next"] if board.pairs == "next" else [f"p[{n}]" for n in names])
        header = ["rank", "name", "team", "run", "kind", *metrics, *(["ci_low", "ci_high"] if board.intervals else []),
                  *(["group"] if tukey_test else []), *(["wins", "ties", "losses"] if wtl else []), *tests, "files"]
        rows = [[e.rank if e.rank is not None else "", e.name, e.team, e.run, e.kind,
                 *(e.metrics.get(m, "") for m in metrics),
                 *((e.ci.get(board.measure) or ("", "")) if board.intervals else ()),
                 *([e.letters] if tukey_test else []), *(e.wtl or ("", "", "") if wtl else ()),
                 *("" if p is None else p for p in ([e.p_next] if board.pairs == "next" else
                                                   [board.p_holm(e.name, n) for n in names])), " ".join(e.files)]
                for e in board.entries]
        return render.render(header, rows, "csv")

    def value(e, m):
        interval = e.ci.get(m) if m == board.measure and board.intervals else None
        return render.estimate(m, e.metrics[m], interval) if m in e.metrics else ""
    ci = "[95% CI]" if board.intervals else ""
    header = ["Rank", "Run", *(render.Stacked(render.heading(m), ci * (m == board.measure)) for m in metrics),
              *(["Group"] if tukey_test else []), *(["W/T/L"] if wtl else []),
              *(["p (next)"] if board.pairs == "next" else [])]
    rows = [["" if e.rank is None else e.rank, e.name, *(value(e, m) for m in metrics),
             *([e.letters] if tukey_test else []), *(["/".join(map(str, e.wtl)) if e.wtl else ""] if wtl else []),
             *([p_text(e.p_next)] if board.pairs == "next" else [])] for e in board.entries]
    text = render.render(header, rows, fmt, caption=caption(board), align="rl" + "r" * (len(header) - 2),
                         label=f"tab:leaderboard-{board.task}", width=width)
    if board.invalid and fmt == "md":
        text += "\n\nLeft out (invalid): " + ", ".join(f"{e.name} ({plural(e.count, 'problem')})"
                                                       for e in board.invalid)
    if board.comparisons:
        header, rows = pairs_list(board) if tukey_test else pairs_matrix(board)
        text += "\n\n" + render.render(header, rows, fmt, caption=pairs_caption(board),
                                       align=("ll" if tukey_test else "rl") + "r" * (len(header) - 2),
                                       label=f"tab:leaderboard-{board.task}-pairs", width=width)
    if board.anova and (board.comparisons or board.power is not None):
        header, rows = anova_table(board)
        text += "\n\n" + render.render(
            header, rows, fmt, caption=f"Two-way ANOVA without replication of {board.measure} (runs x questions) "
                                       f"over the {plural(len(board.compared), 'run')} compared.",
            align="l" + "r" * 5, label=f"tab:leaderboard-{board.task}-anova", width=width)
    if board.power is not None:
        text += "\n\n" + (render.latex_escape(power_text(board)) if fmt == "latex" else power_text(board))
    return text


def report_invalid(board: Board, out: TextIO | None = None) -> None:
    """Every left-out run with its problems, the runs renamed apart and the --primary runs not ranked, on
    stderr; then the summary line."""
    out = out or sys.stderr
    for line in board.renamed:
        print(f"note: {line}", file=out)
    for e in board.invalid:
        print(f"left out: {e.name} ({', '.join(e.files)}): {plural(e.count, 'problem')}", file=out)
        for line in e.problems:
            print(f"  {line}", file=out)
    for e in board.others:
        print(f"not ranked (--primary {board.primary}): {e.name}", file=out)
    print(board.summary(), file=out)


def panels(board: Board) -> list["Panel"]:
    """The board as one figure panel (reporting/plot.py): the entries in table order (the first row at the top)
    and the task's reference levels (chance for MCQA; for qac-2/3 the AFM of answering nothing, from the gold)."""
    points = []
    for e in board.entries:
        low, high = e.ci.get(board.measure) or (None, None)
        points.append(Point(entry_label(e.name, e.rank, e.kind), e.metrics[board.measure], low, high, e.kind))
    return [Panel(f"{board.task}: {', '.join(os.path.basename(g) for g in board.gold)}", board.measure, points,
                  references(board.task, board.measure, board.gold))]
