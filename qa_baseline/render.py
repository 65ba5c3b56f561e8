"""Paper tables (results, leaderboards, manifests) as Markdown, LaTeX (booktabs), CSV or JSON: one renderer
for the scorer and the report.

LaTeX: every table gets a caption and a label; a column whose spec is `p{WIDTH}` wraps its text in the PDF,
and every source line is wrapped at WRAP characters (between words: LaTeX reads a line break as a space), so
no cell, however long, makes an unreadable line."""
import csv
import io
import json
import re
import textwrap

FORMATS = ("md", "latex", "csv", "json")
WRAP = 100  # characters per LaTeX source line


def is_percent(metric):
    """Whether papers give METRIC (also NAME[part]) in per cent (metrics.MEASURES' `percent` flag)."""
    from .metrics import measure
    try:
        return measure(metric).percent
    except KeyError:
        return False


def number(metric, value):
    """A measure's value as the task's papers print it: per cent with one decimal (accuracy 75.0, EM), else a
    fraction with three decimals (MRR 0.750, MAP, F1)."""
    return f"{100 * value:.1f}" if is_percent(metric) else f"{value:.3f}"


def heading(metric):
    """A measure's column heading: `accuracy (%)` for per-cent measures, else its name."""
    return f"{metric} (%)" if is_percent(metric) else metric
LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text):
    return "".join(LATEX_SPECIALS.get(c, c) for c in str(text))


def breakable(latex, longer=30):
    """Escaped LaTeX text whose words longer than LONGER characters (paths, JSON) may break after / , = ; :
    in the PDF and in the source (a line break after \\allowbreak is no space in the output)."""
    return " ".join(re.sub(r"([/,=;:])(?=.)", r"\1\\allowbreak ", w) if len(w) > longer else w
                    for w in latex.split(" "))


def latex_label(text):
    """A \\label key: letters, digits and `:.-` only."""
    return re.sub(r"[^A-Za-z0-9:.-]+", "-", text).strip("-")


def wrap(line, indent="  "):
    """A LaTeX source line broken between words into lines of at most WRAP characters (longer words stay whole)."""
    return "\n".join(textwrap.wrap(line, WRAP, subsequent_indent=indent, break_long_words=False,
                                   break_on_hyphens=False)) or line


def render(header, rows, fmt, caption="", align="", label=""):
    """The table as text. ALIGN: one column spec per column, a string of l/r or a list of l, r and p{WIDTH}
    (LaTeX wraps a p column; md aligns it left); default all l. CAPTION: md and LaTeX; LABEL: LaTeX's \\label."""
    align = list(align or "l" * len(header))
    if fmt == "json":
        return json.dumps([dict(zip(header, row)) for row in rows], ensure_ascii=False, indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows([header, *rows])
        return out.getvalue().rstrip("\n")
    if fmt == "md":
        def line(cells):
            return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
        rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
        return "\n".join(([f"**{caption}**", ""] if caption else []) + [line(header), rule, *map(line, rows)])
    if fmt == "latex":
        def line(cells):
            return wrap(" & ".join(latex_escape(c) for c in cells) + r" \\")
        return "\n".join([r"\begin{table}[ht]", r"\centering", r"\small",
                          *([wrap(rf"\caption{{{latex_escape(caption)}}}")] if caption else []),
                          *([rf"\label{{{latex_label(label)}}}"] if label else []),
                          rf"\begin{{tabular}}{{{''.join(align)}}}", r"\toprule", line(header), r"\midrule",
                          *map(line, rows), r"\bottomrule", r"\end{tabular}", r"\end{table}"])
    raise ValueError(f"unknown table format {fmt!r}")


def latex_list(title, items, label=""):
    """Records as a LaTeX description list (a manifest: long values wrap like text, no table can overflow):
    ITEMS is [(heading, [(key, value)])]."""
    out = [rf"\paragraph{{{latex_escape(title)}}}" + (rf"\label{{{latex_label(label)}}}" if label else ""),
           r"\begin{description}\small"]
    for heading, fields in items:
        out.append(wrap(rf"\item[{{{latex_escape(heading)}}}] " +
                        "; ".join(f"{latex_escape(k)}: {breakable(latex_escape(v))}" for k, v in fields
                                  if v not in ("", None)) + "."))
    return "\n".join([*out, r"\end{description}"])
