"""The baseline table for the overview paper: `python -m qa_baseline.report [RUNS_DIR] [--format md|latex|csv|json]
[--latex-width column|page] [--ci below|none] [--no-manifest] [--plot FILE.png|FILE.pdf|FILE.svg]
[--leaderboard FILE.json ...]`.

Reads every RUNS_DIR/**/row.json (default runs/, written by `python -m qa_baseline.run`): one table row per
run settings (the row's `settings`: task, data file and checksum, corpus, method and what identifies the run;
never its timings or fitted values, which are `observed`); reruns with equal settings are merged, the newest
row.json wins and stderr says so (so are a run of `--reranker auto` and one of the reranker it resolved to:
one row, `auto (cross)`); rows without metrics (data without gold) are left out. Rows are labelled by
reporting/rows.run_labels, as the figure and the leaderboard label them: the method column (Reranker for DBQA, else
Retriever) names the method (what `auto` resolved to in brackets) and the short settings whose values differ
between the task's rows, leaving out None/False and defaults (a --train file by its name; lists, tables and
checksums stay in the manifest); a corpus that is none (DBQA's given sentences) is named nowhere.
Md and LaTeX give one table per task with its metrics as `value [low, high]`: in per cent with one decimal
where the task's papers give per cent (accuracy, EM), else as fractions with three decimals (MRR, MAP, F1);
the Data, Corpus and #Q columns only when they differ between the task's rows, else the caption (a sentence:
"Baseline results on DATA (TASK, corpus C, N questions): MEASURES with 95% bootstrap confidence intervals
(1,000 resamples).") names them; --ci none leaves the intervals out. Then (unless --no-manifest: the tables
alone, e.g. for a paper's \\input) a reproducibility manifest per row:
git commit, data SHA-256, index fingerprint (these three shortened to 12 characters), package versions, the
run's settings. LaTeX (reporting/render.py): each table a float with a label (`tab:baselines-TASK`) for one
column (`table`) or, with --latex-width page, for the page of a two-column paper (`table*`), each interval
under its value in a smaller size, long labels broken into lines, a table still too wide scaled down to
the line; it needs the packages booktabs and graphicx (a comment above each table says so); the manifest is a
description list (`sec:baselines-manifest`). CSV and JSON give one record per (row, metric) with raw
fractions, manifest whole (--no-manifest: without its fields).

Confidence intervals: 95% bootstrap, percentile method (scoring/significance.py). The questions are
resampled with replacement --resamples times (default 1000) by numpy's default_rng(--seed) (default 0), the
same resamples for every metric of a row; the interval runs from the 2.5th to the 97.5th percentile of the
resampled means. It needs the row's per-question values ("per_question" in row.json); rows without them get
no interval.

--plot FILE draws the overview figure (reporting/plot.py): per task and data file, every row's main measure
with its interval, plus the teams of each --leaderboard FILE.json (written by `score --submissions ...
--format json`). --html DIR writes the tables, the figure and a manifest as a static site (reporting/site.py)."""
import argparse
import sys
from collections.abc import Sequence

from .core.errors import UserError, cli
from .core.hints import prog
from .reporting import render
from .reporting.plot import check_path, save
from .reporting.report import load_rows, manifest, paper_tables, panels, records
from .reporting.rows import RUNS, read_rows
from .reporting.site import check_dir, write_report
from .scoring.significance import RESAMPLES, SEED


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog("report"), description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="?", default=RUNS, help="folder searched for **/row.json (default runs/)")
    ap.add_argument("--format", choices=render.FORMATS, default="md", help="output format (default md)")
    ap.add_argument("--latex-width", choices=render.WIDTHS, default="column",
                    help="LaTeX: tables for one column (table, the default) or for the page (table*)")
    ap.add_argument("--ci", choices=("below", "none"), default="below",
                    help="md and LaTeX: each value's 95%% interval under it (below, the default; md: after it) "
                         "or none")
    ap.add_argument("--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples (default {RESAMPLES})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"bootstrap seed (default {SEED})")
    ap.add_argument("--no-manifest", dest="manifest", action="store_false",
                    help="leave out the reproducibility manifest (md, LaTeX: the tables alone; CSV, JSON: its fields)")
    ap.add_argument("--plot", metavar="FILE.png|FILE.pdf|FILE.svg", help="also draw the overview figure into FILE")
    ap.add_argument("--plot-width", choices=("column", "page"), default="column",
                    help="the figure's width: one column (3.3 in, default) or a page (7 in)")
    ap.add_argument("--leaderboard", action="append", default=[], metavar="FILE.json",
                    help="with --plot or --html: add the teams of a leaderboard "
                         "(score --submissions ... --format json)")
    ap.add_argument("--html", metavar="DIR", help="also write the results page (a static site: reporting/site.py) "
                                                  "to DIR")
    return ap


@cli
def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.resamples < 1:
        raise UserError(f"--resamples must be at least 1, not {args.resamples}")
    if args.leaderboard and not (args.plot or args.html):
        raise UserError("--leaderboard adds teams to the figure: give --plot FILE or --html DIR too")
    if args.plot:
        check_path(args.plot)
    if args.html:
        check_dir(args.html)
    rows = load_rows(args.runs)
    recs = records(rows, args.resamples, args.seed)
    if args.format in ("csv", "json"):
        fields = [k for k in recs[0] if args.manifest or k not in manifest(rows[0])]
        print(render.render(fields, [[r[k] for k in fields] for r in recs], args.format))
    else:
        print(paper_tables(recs, args.format, args.resamples, args.latex_width, args.ci != "none", args.manifest))
    if args.plot:
        save(panels(recs, args.leaderboard), args.plot, args.plot_width)
    if args.html:
        write_report(recs, panels(recs, args.leaderboard), args.html,
                     [path for path, _ in read_rows(args.runs)] + args.leaderboard)
    return 0


if __name__ == "__main__":
    sys.exit(main())
