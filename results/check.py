"""Rerun the figures of results/results.yaml and compare each with what the file expects (OK, OKish, FAIL,
SKIP); generate docs/results.md and the README's results table from the same file.

  .venv/bin/python results/check.py [--quick] [--only ID...] [--build [MINUTES]]
  .venv/bin/python results/check.py --list
  .venv/bin/python results/check.py --write-docs        (or --markdown: docs/results.md on stdout)

Each row's command runs from the repository root with `--out` a temporary folder; its row.json's `metrics`
are compared with the row's `expected` figures: OK when every figure equals the expected one at the precision a
run prints (4 decimals), OKish when each is within the row's tolerance, else FAIL (also when the command fails:
its last line of error output is shown). SKIP: ../shared/data or an index the row needs is missing (the line
names the command that builds it; `--build` builds missing indexes first, `--build MINUTES` only those that take
at most MINUTES). Exit status 1 when any row FAILs. Needs only the standard library and PyYAML."""
from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from typing import Any

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results", "results.yaml")
DOCS = os.path.join(ROOT, "docs", "results.md")
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
DATA = "../shared/data"
STATUSES = ("OK", "OKish", "FAIL", "SKIP")  # in order of precedence for a row's figures, SKIP apart
PLACEHOLDER = re.compile(r"\{([^{}@:]+)(?:@([^{}:]+))?(:%)?\}")


class ResultsError(Exception):
    """A results file that cannot be used: `FILE:LINE: what is wrong (fix: how)`."""


@dataclasses.dataclass(frozen=True)
class Need:
    """An index a row needs: a shell pattern under the index root, the commands that build it, their minutes."""
    name: str
    index: str
    build: tuple[str, ...]
    minutes: float
    file: str | None = None  # a file (from the repository root) the index is built from and runs read too


@dataclasses.dataclass(frozen=True)
class Row:
    """One run of results.yaml and the figures it must give."""
    id: str
    task: str
    table: str
    label: str
    command: str
    expected: dict[str, float]
    tolerance: float
    needs: tuple[str, ...]
    quick: bool
    why: str | None = None  # what varies, when tolerance > 0
    checked: str | None = None  # where and when check.py last reproduced the expected figures
    measured: str | None = None  # where the figures come from when check.py has not reproduced them
    line: int = 0


@dataclasses.dataclass(frozen=True)
class Table:
    id: str
    title: str
    text: str


@dataclasses.dataclass(frozen=True)
class ReadmeRow:
    task: str
    data: str
    baseline: str
    score: str
    line: int = 0


@dataclasses.dataclass(frozen=True)
class Results:
    path: str
    digits: int
    percent: frozenset[str]
    needs: dict[str, Need]
    tables: tuple[Table, ...]
    readme: tuple[ReadmeRow, ...]
    rows: tuple[Row, ...]

    def row(self, rid: str) -> Row:
        return next(r for r in self.rows if r.id == rid)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a rerun of a row gave: its status, the line's text, the metrics read and the seconds it took."""
    status: str
    detail: str
    metrics: dict[str, float] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0


class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping as `__line__` (for FILE:LINE errors)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = super().construct_mapping(node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping


def load(path: str = RESULTS) -> Results:
    """The results file at PATH, checked: a ResultsError `FILE:LINE: ...` names the first problem."""
    shown = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.load(f, Loader=_LineLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise ResultsError(f"{shown}:{mark.line + 1 if mark else 1}: not valid YAML: {getattr(e, 'problem', e)} "
                           "(fix: correct the YAML)") from None

    def fail(line: int, what: str, fix: str) -> ResultsError:
        return ResultsError(f"{shown}:{line}: {what} (fix: {fix})")

    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise fail(1, "no `results:` list", "list the runs under `results:`")
    needs: dict[str, Need] = {}
    for name, n in (doc.get("needs") or {}).items():
        if name == "__line__":
            continue
        if not isinstance(n, dict) or not n.get("index") or not n.get("build"):
            raise fail(doc["needs"]["__line__"], f"need {name} lacks `index` or `build`", "give both")
        needs[name] = Need(name, n["index"], tuple(n["build"]), float(n.get("minutes", 1)), n.get("file"))
    tables = tuple(Table(t["id"], t["title"], t["text"].strip()) for t in doc.get("tables") or [])
    table_ids = {t.id for t in tables}
    rows: list[Row] = []
    for r in doc["results"]:
        line = r.get("__line__", 0)
        missing = [k for k in ("id", "task", "table", "label", "command", "expected") if not r.get(k)]
        if missing:
            raise fail(line, f"row {r.get('id', '?')} lacks {', '.join(missing)}", "give every field of a row")
        if any(x.id == r["id"] for x in rows):
            raise fail(line, f"id {r['id']} is used twice", "give each row its own id")
        if r["table"] not in table_ids:
            raise fail(line, f"row {r['id']}: no table {r['table']}", f"use one of {', '.join(sorted(table_ids))}")
        unknown = [n for n in r.get("needs") or [] if n not in needs]
        if unknown:
            raise fail(line, f"row {r['id']}: unknown need {', '.join(unknown)}", "declare it under `needs:`")
        tolerance = float(r.get("tolerance") or 0)
        if tolerance < 0 or (tolerance > 0 and not r.get("why")):
            raise fail(line, f"row {r['id']}: a tolerance needs to be >= 0 and, above 0, a `why`",
                       "say what varies between machines")
        expected = {k: float(v) for k, v in r["expected"].items() if k != "__line__"}
        rows.append(Row(r["id"], r["task"], r["table"], r["label"], r["command"].strip(), expected,
                        tolerance, tuple(r.get("needs") or ()), bool(r.get("quick")), r.get("why"),
                        r.get("checked"), r.get("measured"), line))
    readme = tuple(ReadmeRow(x["task"], x["data"], x["baseline"], x["score"], x.get("__line__", 0))
                   for x in doc.get("readme") or [])
    ids = {r.id for r in rows}
    for x in readme:
        for rid, metric, _ in PLACEHOLDER.findall(x.score):
            if rid not in ids:
                raise fail(x.line, f"README row {x.task}: no result {rid}", "name a row of `results:`")
            if metric and metric not in next(r for r in rows if r.id == rid).expected:
                raise fail(x.line, f"README row {x.task}: {rid} expects no {metric}", "name one of its metrics")
    return Results(shown, int(doc.get("digits", 4)), frozenset(doc.get("percent") or ()), needs, tables, readme,
                   tuple(rows))


# ---- comparing ---------------------------------------------------------------------------------------------

def printed(value: float, digits: int) -> float:
    """VALUE as a run prints it (`{:.4f}`), back as a float."""
    return float(f"{value:.{digits}f}")


def compare(row: Row, metrics: dict[str, Any], digits: int) -> tuple[str, str]:
    """(status, text) of METRICS (a row.json's) against ROW's expected figures."""
    worst, parts = "OK", []
    for metric, want in row.expected.items():
        got = metrics.get(metric)
        if not isinstance(got, (int, float)):
            return "FAIL", f"row.json has no {metric} (it has {', '.join(sorted(metrics)) or 'no metrics'})"
        if printed(got, digits) == want:
            parts.append(f"{metric} {got:.{digits}f}")
            continue
        status = "OKish" if abs(got - want) <= row.tolerance + 1e-12 else "FAIL"
        worst = max(worst, status, key=STATUSES.index)
        plus = f" ± {row.tolerance:g}" if row.tolerance else ""
        parts.append(f"{metric} {got:.{digits}f} (expected {want:.{digits}f}{plus})")
    return worst, "  ".join(parts)


def index_root() -> str:
    """Where the package keeps indexes: $QA_BASELINE_INDEXES, else indexes/ in the checkout."""
    return os.environ.get("QA_BASELINE_INDEXES") or os.path.join(ROOT, "indexes")


def data_paths(command: str) -> list[str]:
    """The ../shared/data paths a command names."""
    return [w for w in shlex.split(command) if w.startswith(DATA)]


def missing_data(commands: Iterable[str]) -> list[str]:
    return [p for c in commands for p in data_paths(c) if not os.path.exists(os.path.join(ROOT, p))]


def need_built(need: Need) -> bool:
    return bool(glob.glob(os.path.join(index_root(), need.index))) and (
        need.file is None or os.path.exists(os.path.join(ROOT, need.file)))


def skip_reason(row: Row, results: Results) -> str | None:
    """Why ROW cannot run here (its data or an index missing, with the command that makes it), or None."""
    absent = missing_data([row.command])
    if absent:
        return f"needs {absent[0]} (the stand-in data: {DATA}, see its README)"
    for name in row.needs:
        need = results.needs[name]
        if not need_built(need):
            return f"needs the index {need.index} (~{need.minutes:g} min): {' && '.join(need.build)}"
    return None


def last_line(text: str) -> str:
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return lines[-1] if lines else "(no output)"


def run_command(command: str, extra: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    return subprocess.run([*shlex.split(command), *extra], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)


def rerun(row: Row, results: Results, workdir: str) -> Outcome:
    """Run ROW's command with --out in WORKDIR and compare its row.json with what ROW expects."""
    reason = skip_reason(row, results)
    if reason:
        return Outcome("SKIP", reason)
    out = tempfile.mkdtemp(prefix="run-", dir=workdir)
    started = time.monotonic()
    proc = run_command(row.command, ["--out", out])
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        return Outcome("FAIL", f"the command failed (exit {proc.returncode}): {last_line(proc.stderr or proc.stdout)}",
                       seconds=seconds)
    try:
        with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
            metrics = json.load(f).get("metrics") or {}
    except (OSError, ValueError) as e:
        return Outcome("FAIL", f"no readable row.json in --out: {e}", seconds=seconds)
    status, detail = compare(row, metrics, results.digits)
    return Outcome(status, detail, metrics, seconds)


def build_needs(rows: Sequence[Row], results: Results, minutes: float | None) -> dict[str, str]:
    """Build the missing needs of ROWS (those of at most MINUTES when given); {need: why its build failed}."""
    failed: dict[str, str] = {}
    for name in dict.fromkeys(n for r in rows for n in r.needs):
        need = results.needs[name]
        if need_built(need) or missing_data(need.build) or (minutes is not None and need.minutes > minutes):
            continue
        for command in need.build:
            print(f"building {name} (~{need.minutes:g} min): {command}", flush=True)
            proc = run_command(command)
            if proc.returncode != 0:
                failed[name] = f"building {name} failed: {last_line(proc.stderr or proc.stdout)}"
                break
    return failed


def select(results: Results, only: Sequence[str] | None, quick: bool) -> list[Row]:
    """The rows whose id matches one of ONLY (ids or shell patterns; all when None), quick ones only if QUICK."""
    rows = [r for r in results.rows if (not quick or r.quick)
            and (not only or any(fnmatch.fnmatchcase(r.id, pattern) for pattern in only))]
    unmatched = [p for p in only or [] if not any(fnmatch.fnmatchcase(r.id, p) for r in results.rows)]
    if unmatched:
        raise ResultsError(f"{results.path}: no row {', '.join(unmatched)} (fix: `--list` lists the ids)")
    return rows


def duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds // 60:.0f} min {seconds % 60:.0f} s"


def check(results: Results, rows: Sequence[Row], build_minutes: float | None = None, build: bool = False) -> int:
    """Rerun ROWS, one line each as it ends, then a summary; 1 when any FAILed, else 0."""
    failed_builds = build_needs(rows, results, build_minutes) if build else {}
    width = max((len(r.id) for r in rows), default=0)
    counts = dict.fromkeys(STATUSES, 0)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="qa-results-") as workdir:
        for row in rows:
            broken = next((failed_builds[n] for n in row.needs if n in failed_builds), None)
            outcome = Outcome("FAIL", broken) if broken else rerun(row, results, workdir)
            counts[outcome.status] += 1
            took = f"  ({duration(outcome.seconds)})" if outcome.seconds else ""
            print(f"{outcome.status:<5}  {row.id:<{width}}  {outcome.detail}{took}", flush=True)
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    print(f"{len(rows)} rows: {summary} in {duration(time.monotonic() - started)}")
    return 1 if counts["FAIL"] else 0


def listing(results: Results, rows: Sequence[Row]) -> str:
    lines = []
    for r in rows:
        figures = " ".join(f"{m}={v:.{results.digits}f}" for m, v in r.expected.items())
        plus = f" ±{r.tolerance:g}" if r.tolerance else ""
        lines.append(f"{r.id}\t{'quick' if r.quick else '-'}\t{figures}{plus}\t"
                     f"needs: {', '.join(r.needs) or '-'}\t{r.command}")
    return "\n".join(lines)


# ---- generating the docs -----------------------------------------------------------------------------------

def shown(results: Results, metric: str, value: float, percent: bool | None = None, decimals: int | None = None
          ) -> str:
    """VALUE of METRIC as the docs show it: percentages (2 decimals) for the `percent` metrics, else 4 decimals."""
    as_percent = metric in results.percent if percent is None else percent
    if as_percent:
        return f"{100 * value:.{2 if decimals is None else decimals}f}"
    return f"{value:.{results.digits if decimals is None else decimals}f}"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(results: Results) -> str:
    """docs/results.md, generated from RESULTS."""
    quick = sum(r.quick for r in results.rows)
    out = [
        "# Results",
        "",
        "<!-- generated by `results/check.py --write-docs` from results/results.yaml: edit that file, not this one -->",
        "",
        "Every quality figure of the project with the command that reproduces it, from",
        "[results/results.yaml](../results/results.yaml). `make results` builds the indexes the rows need and reruns",
        f"all {len(results.rows)} rows; `make results-quick` reruns the {quick} quick ones (marked ✓: under a minute "
        "each once their",
        "indexes exist); `.venv/bin/python results/check.py --only ID` reruns one. Each rerun prints **OK** (the "
        "expected",
        "figures at the 4 decimals a run prints), **OKish** (within the row's tolerance ±: dense encoders' and int8",
        "ONNX models' floats differ by CPU), **FAIL**, or **SKIP** (../shared/data or an index is missing; the line "
        "names",
        "the command that builds it). Data: the stand-ins of ../shared/data (its README). Speed and memory are "
        "bench/",
        "figures, one JSON line per run in `bench/results.jsonl` (`make bench`; `.venv/bin/python "
        "bench/speed_table.py`",
        "prints their table); the laboratory notes and earlier measurements are in",
        "[notes/results-history.md](notes/results-history.md). Back to the [README](../README.md).",
    ]
    for table in results.tables:
        rows = [r for r in results.rows if r.table == table.id]
        if not rows:
            continue
        metrics = list(dict.fromkeys(m for r in rows for m in r.expected))
        heads = [f"{m} (%)" if m in results.percent else m for m in metrics]
        out += ["", f"## {table.title}", "", table.text, "",
                "| id | run | " + " | ".join(heads) + " | ± | quick | command |",
                "|---|---|" + "---:|" * len(metrics) + "---:|---|---|"]
        whys = list(dict.fromkeys(r.why for r in rows if r.tolerance and r.why))
        letters = {why: chr(ord("a") + i) for i, why in enumerate(whys)}
        for r in rows:
            mark = "" if r.checked else " †"
            values = [shown(results, m, r.expected[m]) + mark if m in r.expected else "" for m in metrics]
            scale = 100 if next(iter(r.expected)) in results.percent else 1
            plus = f"{scale * r.tolerance:.4g} ({letters[r.why]})" if r.tolerance and r.why else ""
            out.append(f"| `{r.id}` | {cell(r.label)} | " + " | ".join(values) +
                       f" | {plus} | {'✓' if r.quick else ''} | `{r.command}` |")
        out.append("")
        out += [f"- ({letters[why]}) {why}." for why in whys]
        checked = list(dict.fromkeys(r.checked for r in rows if r.checked))
        if checked:
            out.append(f"- Rerun by results/check.py: {'; '.join(checked)}.")
        measured = {r.id: r.measured for r in rows if not r.checked and r.measured}
        if any(not r.checked for r in rows):
            out.append("- † Not yet rerun by results/check.py: the figure the docs recorded before it" +
                       "".join(f"; `{rid}`: {text}" for rid, text in measured.items()) + ".")
    return "\n".join(out) + "\n"


def score_text(results: Results, template: str) -> str:
    """A README score cell: TEMPLATE with each {ID[@METRIC][:%]} replaced by the figure as the README shows it."""
    def figure(m: re.Match[str]) -> str:
        row = results.row(m.group(1))
        metric = m.group(2) or next(iter(row.expected))
        percent = bool(m.group(3)) or metric in results.percent
        text = shown(results, metric, row.expected[metric], percent, 1 if percent else 3)
        return text + ("" if row.checked else "†")
    return PLACEHOLDER.sub(figure, template)


def readme_table(results: Results) -> str:
    """The README's results table with its note, between the markers (markers included)."""
    out = [BEGIN, "| task | data | baseline | score |", "|---|---|---|---|"]
    out += [f"| {x.task} | {x.data} | {x.baseline} | {score_text(results, x.score)} |" for x in results.readme]
    unchecked = any(not results.row(rid).checked for x in results.readme for rid, _, _ in PLACEHOLDER.findall(x.score))
    out += ["", "Generated from [results/results.yaml](results/results.yaml), where each figure has its command; "
            "`make results` reruns them all (OK within each row's tolerance: the floats of dense encoders and of "
            "the int8 cross-encoder differ by CPU)." +
            (" † Not yet rerun by `results/check.py`: the dense indexes these runs need take long to build (the "
             "commands are in docs/results.md)." if unchecked else ""), END]
    return "\n".join(out)


def readme_block(text: str) -> str:
    """The marked results block of a README's TEXT (markers included); a ResultsError when it has none."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ResultsError(f"README.md:1: no {BEGIN} ... {END} block (fix: put the markers around the results "
                           "table)")
    return text[start:end + len(END)]


def write(path: str, text: str) -> None:
    """Write TEXT to PATH atomically (a temporary file beside it, renamed)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=f".{os.path.basename(path)}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_docs(results: Results, docs: str = DOCS, readme: str = README) -> None:
    """docs/results.md and the README's results block, generated from RESULTS."""
    write(docs, markdown(results))
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    write(readme, text.replace(readme_block(text), readme_table(results)))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="results/check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=RESULTS, help="the results file (default results/results.yaml)")
    ap.add_argument("--quick", action="store_true", help="only the quick rows (under a minute once indexes exist)")
    ap.add_argument("--only", nargs="+", metavar="ID", help="only these rows (ids or shell patterns: 'dbqa/*')")
    ap.add_argument("--build", nargs="?", type=float, const=-1.0, metavar="MINUTES",
                    help="first build the missing indexes of the rows (only those of at most MINUTES)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="list the rows: id, quick, figures, needs, command")
    mode.add_argument("--markdown", action="store_true", help="print docs/results.md as generated")
    mode.add_argument("--write-docs", action="store_true", help="write docs/results.md and the README's table")
    args = ap.parse_args(argv)
    try:
        results = load(args.results)
        if args.markdown:
            sys.stdout.write(markdown(results))
            return 0
        if args.write_docs:
            write_docs(results)
            return 0
        rows = select(results, args.only, args.quick)
        if args.list:
            print(listing(results, rows))
            return 0
        build_minutes = None if args.build is None or args.build < 0 else args.build
        return check(results, rows, build_minutes, build=args.build is not None)
    except ResultsError as e:
        print(e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
