"""Paper tables (results, leaderboards, manifests) as Markdown, LaTeX (booktabs), CSV or JSON: one renderer
for the scorer, the leaderboard and the report.

LaTeX. Every table is a float with a caption and a label: `table` for one column of a two-column paper (or
the text of a one-column one), `table*` across the page of a two-column paper (WIDTHS, `--latex-width`). It
is set in \\small with 4 pt between columns; a value's interval goes under it in \\scriptsize, a text cell
longer than CELL_CHARS (per width) breaks into lines between words or after one of BREAK_AFTER (a nested
`tabular` either way); a table still wider than the line (many measures in one column) is scaled down to the
line width, never up (`\\resizebox`). The packages a table needs (PACKAGES, in Debian's texlive-latex-base
and texlive-latex-recommended) are named in a comment above it. Characters that LaTeX's default OT1 font
encoding prints wrongly are escaped (`<`, `>`, `|` in math mode: a raw `<` prints as "¡"; `--` stays two
hyphens), and every source line is wrapped at WRAP characters (between words: LaTeX reads a line break as a
space)."""
from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from ..scoring.metrics import measure

FORMATS = ("md", "latex", "csv", "json")
WIDTHS = ("column", "page")  # LaTeX: `table` (one column) or `table*` (the page of a two-column paper)
PACKAGES = ("booktabs", "graphicx")  # \toprule..., \resizebox
WRAP = 100  # characters per LaTeX source line
CELL_CHARS = {"column": 16, "page": 30}  # characters per line of a LaTeX text cell
LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": "$<$", ">": "$>$", "|": "$|$", "[": "{[}", "]": "{]}", '"': r"\texttt{\symbol{34}}",
                  "α": r"$\alpha$", "Δ": r"$\Delta$"}
BREAK_AFTER = "-_./,=:;"  # where a long word may break in LaTeX (else after 16 characters without one)


def is_percent(metric: str) -> bool:
    """Whether papers give METRIC (also NAME[part]) in per cent (metrics.MEASURES' `percent` flag)."""
    try:
        return measure(metric).percent
    except KeyError:
        return False


def number(metric: str, value: float) -> str:
    """A measure's value as the task's papers print it: per cent with one decimal (accuracy 75.0, EM), else a
    fraction with three decimals (MRR 0.750, MAP, F1)."""
    return f"{100 * value:.1f}" if is_percent(metric) else f"{value:.3f}"


def heading(metric: str) -> str:
    """A measure's column heading: `accuracy (%)` for per-cent measures, else its name."""
    return f"{metric} (%)" if is_percent(metric) else metric


def measure_list(metrics: list[str]) -> str:
    """`MRR, MAP and ACC@1`; per-cent measures as `accuracy (%)`."""
    names = [heading(m) for m in metrics]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


@dataclass(frozen=True)
class Stacked:
    """A cell of a main text and a note under it (a value and its interval): md, CSV and JSON print
    `main note`, LaTeX the note under the main text in \\scriptsize."""
    main: str
    note: str = ""

    def __str__(self) -> str:
        return f"{self.main} {self.note}".strip()


@dataclass(frozen=True)
class Heading:
    """A row that heads the rows below it (a data file of a table of several), across every column."""
    text: str


def estimate(metric: str, value: float, interval: tuple[float, float] | None = None) -> Stacked:
    """A measure's value as the papers print it (number), with its interval `[low, high]` as the note."""
    note = f"[{number(metric, interval[0])}, {number(metric, interval[1])}]" if interval else ""
    return Stacked(number(metric, value), note)


def latex_escape(text: object) -> str:
    return re.sub("-(?=-)", "-{}", "".join(LATEX_SPECIALS.get(c, c) for c in str(text)))


def breakable(text: object, longer: int = 30) -> str:
    """TEXT as LaTeX whose words longer than LONGER characters (paths, JSON, checksums) may break after one
    of BREAK_AFTER and after every 16 characters without one, in the PDF and in the source (a line break after
    \\allowbreak is no space in the output)."""
    chars = re.escape(BREAK_AFTER)

    def mark(word: str) -> str:  # NUL marks a break: no escape makes one
        if len(word) <= longer:
            return word
        return re.sub(rf"([^{chars}\0]{{16}})(?=[^{chars}\0])", "\\1\0", re.sub(rf"([{chars}])(?=.)", "\\1\0", word))
    return latex_escape(" ".join(map(mark, str(text).split(" ")))).replace("\0", r"\allowbreak ")


def latex_label(text: str) -> str:
    """A \\label key: letters, digits and `:.-` only."""
    return re.sub(r"[^A-Za-z0-9:.-]+", "-", text).strip("-")


def wrap(line: str, indent: str = "  ") -> str:
    """A LaTeX source line broken between words into lines of at most WRAP characters (longer words stay whole)."""
    return "\n".join(textwrap.wrap(line, WRAP, subsequent_indent=indent, break_long_words=False,
                                   break_on_hyphens=False)) or line


def cell_lines(text: str, chars: int) -> list[str]:
    """TEXT in lines of at most CHARS characters, broken between words and, in a longer word, after one of
    BREAK_AFTER (a longer piece stays whole)."""
    pieces: list[tuple[str, bool]] = []  # (text, joined to the previous piece by a space)
    for word in text.split():
        parts = re.findall(rf"[^{re.escape(BREAK_AFTER)}]*[{re.escape(BREAK_AFTER)}]*", word)[:-1] \
            if len(word) > chars else [word]
        pieces += [(p, i == 0) for i, p in enumerate(parts)]
    out: list[str] = []
    for piece, spaced in pieces:
        joined = out[-1] + " " * spaced + piece if out else piece
        if out and len(joined) <= chars:
            out[-1] = joined
        else:
            out.append(piece)
    return out or [""]


def latex_cell(cell: object, align: str, chars: int) -> str:
    """One cell as LaTeX: a Stacked cell or a text longer than CHARS as a nested tabular of its lines."""
    if isinstance(cell, Stacked):
        lines = [latex_escape(cell.main)] + ([r"\scriptsize " + latex_escape(cell.note)] if cell.note else [])
    else:
        lines = list(map(latex_escape, cell_lines(str(cell), chars)))
    if len(lines) == 1:
        return lines[0]
    return rf"\begin{{tabular}}[t]{{@{{}}{'r' if align == 'r' else 'l'}@{{}}}}" + "\\\\ ".join(lines) + \
        r"\end{tabular}"


def render(header: Sequence[Any], rows: Iterable[Sequence[Any] | Heading], fmt: str, caption: str = "",
           align: str | Sequence[str] = "", label: str = "", width: str = "column") -> str:
    """The table as text. ALIGN: one column spec per column, a string of l/r or a list of l, r and p{WIDTH}
    (LaTeX wraps a p column; md aligns it left); default all l. CAPTION: md and LaTeX; LABEL: LaTeX's \\label;
    WIDTH: LaTeX's `column` (table) or `page` (table*). Cells are text or Stacked; a row is a list of cells or a
    Heading."""
    align, rows = list(align or "l" * len(header)), list(rows)
    if fmt == "json":
        def plain(c):
            return str(c) if isinstance(c, Stacked) else c
        return json.dumps([dict(zip(map(str, header), map(plain, row))) for row in rows
                           if not isinstance(row, Heading)], ensure_ascii=False, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows([header, *(row for row in rows if not isinstance(row, Heading))])
        return out.getvalue().rstrip("\n")
    if fmt == "md":
        def line(cells):
            if isinstance(cells, Heading):
                cells = [f"*{cells.text}*", *[""] * (len(header) - 1)]
            return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
        rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
        return "\n".join(([f"**{caption}**", ""] if caption else []) + [line(header), rule, *map(line, rows)])
    if fmt == "latex":
        if width not in WIDTHS:
            raise ValueError(f"unknown LaTeX width {width!r}")
        env, chars = "table*" if width == "page" else "table", CELL_CHARS[width]

        def line(cells):
            if isinstance(cells, Heading):  # a rule above it unless it comes first
                rule = r"\midrule " * (cells is not rows[0])
                return wrap(rf"{rule}\multicolumn{{{len(header)}}}{{@{{}}l@{{}}}}{{\itshape "
                            rf"{latex_cell(cells.text, 'l', 2 * chars)}}} \\")
            return wrap(" & ".join(latex_cell(c, a, chars) for c, a in zip(cells, align)) + r" \\")
        return "\n".join([
            rf"% needs \usepackage{{{','.join(PACKAGES)}}}", rf"\begin{{{env}}}[t]", r"\centering",
            *([wrap(rf"\caption{{{latex_escape(caption)}}}")] if caption else []),
            *([rf"\label{{{latex_label(label)}}}"] if label else []),
            r"\small", r"\setlength{\tabcolsep}{4pt}",
            r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",  # only ever smaller
            rf"\begin{{tabular}}{{@{{}}{''.join(align)}@{{}}}}", r"\toprule", line(header), r"\midrule",
            *map(line, rows), r"\bottomrule", r"\end{tabular}}", rf"\end{{{env}}}"])
    raise ValueError(f"unknown table format {fmt!r}")


def latex_list(title: str, items: Iterable[tuple[str, Iterable[tuple[str, Any]]]], label: str = "") -> str:
    """Records as a LaTeX description list (a manifest: long values wrap like text, no table can overflow):
    ITEMS is [(heading, [(key, value)])]; each heading is bold text of its item (an \\item[...] label would
    not break)."""
    out = [rf"\paragraph{{{latex_escape(title)}}}" + (rf"\label{{{latex_label(label)}}}" if label else ""),
           r"\begin{description}\small\raggedright"]
    for head, fields in items:
        out.append(wrap(rf"\item \textbf{{{breakable(head, 0)}}}: " +
                        "; ".join(f"{latex_escape(k)}: {breakable(v)}" for k, v in fields
                                  if v not in ("", None)) + "."))
    return "\n".join([*out, r"\end{description}"])
