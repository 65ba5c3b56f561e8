"""Paper tables (results, leaderboards, manifests) as Markdown, LaTeX (booktabs), CSV or JSON: one renderer
for the scorer and the report."""
import csv
import io
import json

FORMATS = ("md", "latex", "csv", "json")
LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text):
    return "".join(LATEX_SPECIALS.get(c, c) for c in str(text))


def render(header, rows, fmt, caption="", align=""):
    """The table as text. ALIGN: one of l/r per column (default all l); CAPTION: md and LaTeX only."""
    align = align or "l" * len(header)
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
            return " & ".join(latex_escape(c) for c in cells) + r" \\"
        return "\n".join([r"\begin{table}[ht]", r"\centering", r"\small",
                          *([rf"\caption{{{latex_escape(caption)}}}"] if caption else []),
                          rf"\begin{{tabular}}{{{align}}}", r"\toprule", line(header), r"\midrule",
                          *map(line, rows), r"\bottomrule", r"\end{tabular}", r"\end{table}"])
    raise ValueError(f"unknown table format {fmt!r}")
