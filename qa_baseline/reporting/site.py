"""The results page of a shared task as a static site (`score --submissions ... --html DIR`, `report --html DIR`).

A leaderboard (`write_site`) gives index.html (every run with its measures, their 95% intervals, letter groups,
p (next) and wins/ties/losses against the first baseline; baselines marked), one page per run (its measures,
its files' sha256 checksums, its per-question values of the ranking measure beside the first baseline's, with
win/tie/loss), stats.html (the ANOVA table, every pair of runs with p and effect size, a heat map of p),
figure.svg (plot.py) and manifest.json (the command, the package version, the input files and their checksums,
the site's files and theirs). Baseline rows (`write_report`) give index.html with one table per task, the
figure and the manifest.

Plain HTML tables, readable without JavaScript; site.js only sorts a table by a clicked column and filters a
run's questions. Nothing comes from the network: the pages open from file:// or any static host. Every text is
escaped (team names are user input). The same input gives the same bytes; the folder is built beside DIR and
swapped into place in one step (fileio.build_dir, replace_dir)."""
from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from string import Template
from typing import Any

from .. import ROOT, __version__
from ..core.errors import UserError
from ..core.fileio import build_dir, replace_dir, sha256_file
from ..core.hints import plural
from ..scoring.significance import ALPHA
from . import leaderboard as lb
from . import render
from .plot import Panel, save
from .rows import corpus_parts, method_heading

SHORT = ("data_sha256", "index_fingerprint")  # shown as their first 12 characters, whole in a tooltip
CSS = """body { font: 15px/1.45 system-ui, sans-serif; color: #222; max-width: 75em; margin: 1.5em auto;
  padding: 0 1em; }
nav a { margin-right: 1.2em; }
h1 { font-size: 1.5em; margin: .6em 0 .3em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; }
.caption { color: #555; max-width: 60em; margin-bottom: 0; }
th, td { padding: .3em .7em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
thead th { border-bottom: 2px solid #999; white-space: nowrap; }
.n { text-align: right; font-variant-numeric: tabular-nums; }
td small { display: block; color: #777; font-size: .8em; }
tr.baseline { background: #fdf4ec; }
.tag { font-size: .75em; color: #b34700; border: 1px solid #b34700; border-radius: 3px; padding: 0 .3em;
  margin-left: .4em; }
.sortable th { cursor: pointer; }
th button { font: inherit; font-weight: bold; color: inherit; background: none; border: 0; padding: 0;
  cursor: pointer; text-align: inherit; }
th[aria-sort=ascending] button::after { content: " \\25B2"; }
th[aria-sort=descending] button::after { content: " \\25BC"; }
button[aria-pressed=true] { font-weight: bold; }
.win { color: #1a7f37; } .loss { color: #b42318; }
.heat td { text-align: center; min-width: 3.5em; }
code { font-size: .85em; overflow-wrap: anywhere; } code.id { white-space: nowrap; }
img { width: 54em; max-width: 100%; }
details { margin: .4em 0; } details code { display: block; margin: .2em 0 .2em 1.5em; }
"""
JS = """// Sorts a table.sortable by the column whose heading is clicked (again: the other way); shows only a run's
// questions of one outcome. Without JavaScript the tables read the same, unsorted and unfiltered.
function key(cell) {
  var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
  return v === "" ? null : isNaN(Number(v)) ? v : Number(v);
}
document.querySelectorAll("table.sortable th").forEach(function (th) {
  var button = document.createElement("button");
  button.type = "button";
  while (th.firstChild) button.appendChild(th.firstChild);
  th.appendChild(button);
  th.addEventListener("click", function () {  // the button's clicks (and Enter keys) too
    var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    var up = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x === null || y === null) return (x === null) - (y === null);  // blanks last
      var c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
document.querySelectorAll("[data-filter]").forEach(function (bar) {
  var table = document.getElementById(bar.getAttribute("data-filter"));
  bar.hidden = false;
  bar.querySelectorAll("button").forEach(function (button) {
    button.addEventListener("click", function () {
      bar.querySelectorAll("button").forEach(function (b) { b.setAttribute("aria-pressed", b === button); });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.hidden = button.value !== "all" && r.getAttribute("data-outcome") !== button.value;
      });
    });
  });
});
"""
PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<link rel="stylesheet" href="site.css">
</head>
<body>
<nav>$nav</nav>
<h1>$title</h1>
$body
<script src="site.js"></script>
</body>
</html>
""")


def cell(text: object = "", value: object = None, num: bool = False, raw: bool = False) -> str:
    """A <td>: TEXT escaped (RAW: already HTML), VALUE the key it sorts by (data-v), NUM right-aligned."""
    sort = "" if value is None else f' data-v="{escape(str(value))}"'
    return f'<td{sort}{" class=n" if num else ""}>{text if raw else escape(str(text))}</td>'


def table(header: Sequence[str], rows: Iterable[str], caption: str = "", sortable: bool = True,
          numeric: Sequence[bool] = (), attrs: str = "") -> str:
    """An HTML table: HEADER escaped, ROWS finished <tr> lines; NUMERIC: which columns are right-aligned."""
    heads = "".join(f'<th{" class=n" if i < len(numeric) and numeric[i] else ""}>{escape(h)}</th>'
                    for i, h in enumerate(header))
    return ((f'<p class="caption">{escape(caption)}</p>\n' if caption else "")
            + f'<table{" class=sortable" if sortable else ""}{attrs}>\n<thead><tr>{heads}</tr></thead>\n<tbody>\n'
            + "\n".join(rows) + "\n</tbody>\n</table>")


def estimate(metric: str, value: float, interval: Sequence[float] | None = None) -> str:
    """A measure's cell: the value as the papers print it, its interval `[low, high]` under it, sorted by value."""
    s = render.estimate(metric, value, (interval[0], interval[1]) if interval else None)
    return cell(escape(s.main) + (f"<small>{escape(s.note)}</small>" if s.note else ""), repr(value), True, True)


def short(v: float) -> str:
    """A per-question value: 1, 0, 0.5, 0.333."""
    return f"{v:.3f}".rstrip("0").rstrip(".")


def page(title: str, body: str, links: Sequence[tuple[str, str]]) -> str:
    nav = " ".join(f'<a href="{escape(href)}">{escape(text)}</a>' for href, text in links)
    return PAGE.substitute(title=escape(title), nav=nav, body=body)


def slug(i: int, name: str) -> str:
    """The page of the I-th run: run-I-NAME.html with NAME's characters that are not [A-Za-z0-9._-] as `-`."""
    return f"run-{i}-{re.sub(r'[^A-Za-z0-9._-]+', '-', name).strip('-')[:60]}.html"


def command_line(argv: Sequence[str] | None = None) -> str:
    """ARGV (default sys.argv) shell-quoted, as the manifest records it; a module of this package as
    `python -m qa_baseline.NAME`."""
    argv = list(sys.argv if argv is None else argv)
    if argv and argv[0].endswith(".py") and os.path.abspath(argv[0]).startswith(
            os.path.join(ROOT, "qa_baseline", "")):
        module = os.path.relpath(os.path.abspath(argv[0]), ROOT)[:-3].replace(os.sep, ".")
        argv[:1] = ["python", "-m", module.removesuffix(".__main__")]
    return shlex.join(argv)


def outcome(a: float, b: float) -> str:
    return "win" if a > b else "tie" if a == b else "loss"


def write_site(board: lb.Board, out: str, command: str | None = None, width: str = "page") -> str:
    """Write the site of BOARD into the folder OUT (replaced in one step); COMMAND: the command line in the
    manifest (default: command_line()); WIDTH: the figure's (plot.py). Returns OUT."""
    check_dir(out)
    entries, measure = board.entries, board.measure
    pages = {e.name: slug(i, e.name) for i, e in enumerate(entries, 1)}
    baseline = next((e for e in entries if e.kind == "baseline"), None)
    metrics = list(dict.fromkeys(m for e in entries for m in e.metrics))
    letters = any(e.letters for e in entries)
    p_next = any(e.p_next is not None for e in entries)
    wtl = baseline is not None and any(e.wtl for e in entries)
    header = ["#", "Run", *map(render.heading, metrics), *["Group"] * letters, *["p (next)"] * p_next,
              *[f"W/T/L vs {baseline.name if baseline else ''}"] * wtl]
    numeric = [True, False, *[True] * len(metrics), *[False] * letters, *[True] * p_next, *[True] * wtl]
    rows = []
    for e in entries:
        tag = '<span class="tag">baseline</span>' if e.kind == "baseline" else ""
        rows.append(f'<tr{" class=baseline" if tag else ""}>' + cell(e.rank or "", e.rank or "", True)
                    + cell(f'<a href="{pages[e.name]}">{escape(e.name)}</a>{tag}', e.name, raw=True)
                    + "".join(estimate(m, e.metrics[m], e.ci.get(m) if board.intervals else None)
                              if m in e.metrics else cell() for m in metrics)
                    + (cell(e.letters) if letters else "")
                    + (cell(lb.p_text(e.p_next), "" if e.p_next is None else e.p_next, True) if p_next else "")
                    + (cell("/".join(map(str, e.wtl)) if e.wtl else "", e.wtl[0] - e.wtl[2] if e.wtl else "", True)
                       if wtl else "") + "</tr>")
    body = [table(header, rows, lb.caption(board), numeric=numeric)]
    panels = lb.panels(board)
    if any(p.points for p in panels):
        body.append(f'<h2>Figure</h2>\n<p><a href="figure.svg"><img src="figure.svg" alt="{escape(measure)} of '
                    'every run with its 95% interval"></a></p>')
    if board.invalid:
        body.append("<h2>Left out (invalid)</h2>\n" + "\n".join(
            f"<details><summary>{escape(e.name)} ({escape(', '.join(map(os.path.basename, e.files)))}): "
            f"{e.count} problem{'s' * (e.count != 1)}</summary>"
            + "".join(f"<code>{escape(line)}</code>" for line in e.problems) + "</details>" for e in board.invalid))
    for label, names in (("Not ranked (one run per team)", [e.name for e in board.others]),
                         ("Ignored", board.ignored), ("Renamed", board.renamed)):
        if names:
            body.append(f"<p>{label}: {escape(', '.join(names))}</p>")
    links = [("index.html", "Leaderboard"), ("stats.html", "Statistics"), ("manifest.json", "Manifest")]
    files = {"index.html": page(f"Leaderboard of {board.task}", "\n".join(body), links),
             "stats.html": page(f"Statistics of {board.task}", stats_body(board), links)}
    for e in entries:
        files[pages[e.name]] = page(e.name, run_body(board, e, baseline), links)
    inputs = [*board.gold, *(f for e in [*entries, *board.others, *board.invalid] for f in e.files)]
    return build(out, files, panels, inputs, command, width)


def run_body(board: lb.Board, e: lb.Entry, baseline: lb.Entry | None) -> str:
    """A run's page: its facts, measures, files with checksums, and its per-question values of the ranking
    measure beside the first baseline's with win/tie/loss (buttons filter them)."""
    facts = [("Kind", e.kind), ("Team", e.team), ("Run", e.run), ("Rank", str(e.rank or "")), ("Group", e.letters)]
    out = ["<p>" + " &middot; ".join(f"{k}: {escape(v)}" for k, v in facts if v) + "</p>"]
    out.append(table(["Measure", "Value", "95% CI"], [
        f"<tr>{cell(render.heading(m))}{cell(render.number(m, v), v, True)}"
        f"{cell(render.estimate(m, v, e.ci.get(m)).note, num=True)}</tr>" for m, v in e.metrics.items()],
        sortable=False, numeric=[False, True, True]))
    out.append(table(["File", "sha256"], [f"<tr>{cell(os.path.basename(f))}<td><code>{sha256_file(f)}</code></td></tr>"
                                          for f in e.files], sortable=False))
    values = e.per_question.get(board.measure, [])
    ids, gold = zip(*board.gold_rows) if board.gold_rows else ([str(i) for i in range(1, len(values) + 1)],
                                                                 [""] * len(values))
    versus = baseline.per_question.get(board.measure) if baseline is not None and baseline is not e else None
    out.append(f"<h2>Per question: {escape(board.measure)}</h2>")
    if versus is None or baseline is None:
        rows = [f"<tr>{cell(q, i)}{cell(g)}{cell(short(v), v, True)}</tr>"
                for i, (q, g, v) in enumerate(zip(ids, gold, values))]
        out.append(table(["Question", "Gold", e.name], rows, numeric=[False, False, True], attrs=' id="questions"'))
        return "\n".join(out)
    outcomes = [outcome(a, b) for a, b in zip(values, versus)]
    out.append(f"<p>Against {escape(baseline.name)}: {plural(outcomes.count('win'), 'win')}, "
               f"{plural(outcomes.count('tie'), 'tie')}, {plural(outcomes.count('loss'), 'loss', 'losses')}.</p>")
    out.append('<p data-filter="questions" hidden>Show: ' + " ".join(
        f'<button type="button" value="{v}" aria-pressed="{str(v == "all").lower()}">{text}</button>'
        for v, text in (("all", "all"), ("win", "wins"), ("tie", "ties"), ("loss", "losses"))) + "</p>")
    rows = [f'<tr data-outcome="{o}">{cell(q, i)}{cell(g)}{cell(short(v), v, True)}{cell(short(b), b, True)}'
            f'<td class="{o}">{o}</td></tr>'
            for i, (q, g, v, b, o) in enumerate(zip(ids, gold, values, versus, outcomes))]
    out.append(table(["Question", "Gold", e.name, baseline.name, "Outcome"], rows,
                     numeric=[False, False, True, True, False], attrs=' id="questions"'))
    return "\n".join(out)


def heat(p: float) -> str:
    """A p-value's cell colour: white at 1, darker blue the smaller (log scale, darkest from 0.001 down)."""
    light = round(97 - 57 * min(1.0, max(0.0, -math.log10(max(p, 1e-12)) / 3)))
    return f"background: hsl(212, 65%, {light}%)" + ("; color: #fff" if light < 60 else "")


def stats_body(board: lb.Board) -> str:
    """The statistics page: the test's settings, the ANOVA table, every pair with p and effect, the heat map."""
    measure, tukey = board.measure, board.test == "tukey"
    settings = [("Measure", measure), ("Questions", board.questions), ("Test", board.test), ("Pairs", board.pairs),
                ("Trials" if tukey else "Permutations", board.trials if tukey else board.permutations),
                ("Bootstrap resamples", board.resamples), ("Seed", board.seed), ("Ranked runs", board.primary),
                (f"Minimum detectable difference in {render.heading(measure)}",
                 None if board.power is None else render.number(measure, board.power))]
    out = ["<p>" + " &middot; ".join(f"{k}: {escape(f'{v:,}' if isinstance(v, int) else str(v))}"
                                     for k, v in settings if v is not None) + "</p>"]
    if board.anova is not None:
        def num(x: float | None, fmt: str) -> str:
            return "" if x is None else format(x, fmt)
        rows = [f"<tr>{cell(name)}" + "".join(cell(num(v, f), v, True) for v, f in (
                    (s.ss, ".4f"), (s.df, "d"), (s.ms, ".4f"), (s.f, ".3f")))
                + cell(lb.p_text(s.p), s.p, True) + "</tr>"
                for name in ("runs", "questions", "residual", "total") for s in [getattr(board.anova, name)]]
        out.append("<h2>ANOVA</h2>\n" + table(
            ["Source", "SS", "df", "MS", "F", "p"], rows, f"Two-way ANOVA without replication (runs x questions) of "
            f"{measure}; V_E = {board.anova.v_e:.4f}.", False, [False, *[True] * 5]))
    out.append("<h2>Pairs</h2>")
    if not board.comparisons:
        out.append("<p>No pairwise comparisons (p (next) is on the leaderboard; every pair: --pairs all).</p>")
        return "\n".join(out)
    holm, effect = (any(getattr(c, k) is not None for c in board.comparisons) for k in ("p_holm", "effect"))
    rows = [f"<tr>{cell(c.a)}{cell(c.b)}{cell(render.number(measure, c.diff), c.diff, True)}"
            + cell(lb.p_text(c.p), c.p, True) + (cell(lb.p_text(c.p_holm), c.p_holm, True) if holm else "")
            + (cell("" if c.effect is None else f"{c.effect:.2f}", c.effect, True) if effect else "") + "</tr>"
            for c in board.comparisons]
    out.append(table(["A", "B", f"Difference in {render.heading(measure)}", "p", *["p (Holm)"] * holm,
                      *["Effect (ES_E)"] * effect], rows, f"Every compared pair of runs (A above B); * p < {ALPHA}.",
                     numeric=[False, False, *[True] * 4]))
    p = {frozenset((c.a, c.b)): c.p if c.p_holm is None else c.p_holm for c in board.comparisons}
    names = [e.name for e in board.entries if any(e.name in pair for pair in p)]
    rows = [f"<tr><th>{i}. {escape(a)}</th>" + "".join(
        f'<td style="{heat(p[pair])}">{escape(lb.p_text(p[pair]))}</td>' if pair in p else "<td></td>"
        for b in names for pair in [frozenset((a, b))]) + "</tr>" for i, a in enumerate(names, 1)]
    out.append("<h2>Heat map of p</h2>\n" + table(["", *map(str, range(1, len(names) + 1))], rows,
                                                 "p of each pair (Holm-corrected where given); darker: smaller p.",
                                                 False, attrs=' class="heat"'))
    return "\n".join(out)


def write_report(recs: Sequence[Mapping[str, Any]], panels: Sequence[Panel], out: str, inputs: Sequence[str] = (),
                 command: str | None = None, width: str = "page") -> str:
    """Write the site of baseline rows RECS (report.records) into the folder OUT: index.html with one table per
    task and the reproducibility manifest, the figure of PANELS, manifest.json (INPUTS: the files read)."""
    check_dir(out)
    body = []
    for task in dict.fromkeys(r["task"] for r in recs):
        mine = [r for r in recs if r["task"] == task]
        metrics = list(dict.fromkeys(r["metric"] for r in mine))
        runs: dict[tuple[Any, ...], dict[str, Mapping[str, Any]]] = {}
        for r, corpus in zip(mine, corpus_parts(mine)):  # the report's labeller: a corpus only where runs differ
            runs.setdefault((r["data"], corpus, r["variant"], r["questions"]), {})[r["metric"]] = r
        rows = [f"<tr>{cell(data)}{cell(corpus)}{cell(variant)}{cell('' if q is None else q, q, True)}"
                + "".join(estimate(m, x["value"], None if x["ci_low"] is None else (x["ci_low"], x["ci_high"]))
                          if (x := cells.get(m)) else cell() for m in metrics)
                + "</tr>" for (data, corpus, variant, q), cells in runs.items()]
        body.append(f"<h2>{escape(task)}</h2>\n" + table(
            ["Data", "Corpus", method_heading(task), "#Q", *map(render.heading, metrics)], rows,
            f"Baseline results of {task}: {render.measure_list(metrics)} with 95% bootstrap confidence intervals.",
            numeric=[False, False, False, True, *[True] * len(metrics)]))
    seen = {(r["task"], r["data"], r["corpus"], r["variant"]): r for r in recs}
    body.append("<h2>Reproducibility manifest</h2>\n" + table(
        ["Run", "Commit", "Data SHA-256", "Index", "Versions", "Settings"],
        [f"<tr>{cell(' / '.join(k for k in key if k != '-'))}" + "".join(
            cell(f'<code class=id title="{escape(v)}">{escape(v[:12])}</code>' if k in SHORT else
                 f"<code>{escape(v)}</code>" if k == "git_commit" else escape(v), raw=True)
            for k in ("git_commit", "data_sha256", "index_fingerprint", "versions", "settings")
            for v in [str(r.get(k) or "")]) + "</tr>"
         for key, r in seen.items()]))
    if any(p.points for p in panels):
        body.append('<h2>Figure</h2>\n<p><a href="figure.svg"><img src="figure.svg" '
                    'alt="every baseline\'s main measure with its 95% interval"></a></p>')
    links = [("index.html", "Baselines"), ("manifest.json", "Manifest")]
    return build(out, {"index.html": page("Baseline results", "\n".join(body), links)}, panels, inputs, command,
                 width)


def check_dir(out: str) -> None:
    """Fail before any work when OUT is something else than a site written here (a link to one, an empty
    folder or nothing): replacing it would remove what it holds."""
    if os.path.lexists(out) and not os.path.islink(out) and (
            not os.path.isdir(out) or os.listdir(out) and not os.path.isfile(os.path.join(out, "manifest.json"))):
        raise UserError(f"{out}: exists and is not a results site (fix: name a new folder for --html)")


def build(out: str, pages: Mapping[str, str], panels: Sequence[Panel], inputs: Sequence[str],
          command: str | None, width: str) -> str:
    """PAGES {name: html}, site.css, site.js, figure.svg (PANELS with points) and manifest.json, built in a
    folder beside OUT and swapped into place."""
    check_dir(out)
    tmp = build_dir(out)
    try:
        files = {**pages, "site.css": CSS, "site.js": JS}
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        if any(p.points for p in panels):
            save(panels, os.path.join(tmp, "figure.svg"), width, say=False)
        manifest = {"command": command_line() if command is None else command, "version": __version__,
                    "inputs": [{"path": p, "sha256": sha256_file(p)} for p in dict.fromkeys(inputs)],
                    "site": [{"path": n, "sha256": sha256_file(os.path.join(tmp, n))}
                             for n in sorted(os.listdir(tmp))]}
        with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    print(f"{out}: {len(pages)} page{'s' * (len(pages) != 1)}, open {os.path.join(out, 'index.html')}",
          file=sys.stderr)
    return out
