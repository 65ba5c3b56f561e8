"""The figure (reporting/plot.py, report.panels, leaderboard.panels): one column (3.3 in) or a page (7 in) wide, entries
in the order of their table, one x-range per measure, chance and answer-nothing lines, nothing cut or
overlapping however long the labels, the same bytes for the same input."""
import dataclasses
import itertools
import json
import os

import pytest
from conftest import FIXTURES
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from qa_baseline import report as report_cli, score, tasks
from qa_baseline.reporting import leaderboard as lb, plot, report

PLOT = os.path.join(FIXTURES, "plot")
QAC_GOLD, QAC_SUBMISSIONS = os.path.join(PLOT, "qac-2-gold.tsv"), os.path.join(PLOT, "qac-2-submissions")
# qac-2-gold.tsv: 5 questions, Q3 and Q5 without a gold answer. exact.txt answers all right; guess.txt gets
# Q1 and Q5 right (F 1), Q4 half (P 1, R 1/2: F 2/3), Q2 and Q3 wrong
BOARD = os.path.join(FIXTURES, "leaderboard")
MCQA_GOLD, MCQA_SUBMISSIONS = os.path.join(BOARD, "gold.csv"), os.path.join(BOARD, "submissions")
AI2, CK12 = "ai2-science-ai2-8thgr-ndmc-feb2016-dev.csv", "ck12-science-8th-grade-test.csv"
DBQA, KBQA = "nlpcc-iccpol-2016.dbqa.testing-data", "nlpcc-iccpol-2016.kbqa.testing-data"
QAC = "ntcir3-qac1-task2-formalrun-questions.tsv"


def rec(task, data, variant, value, metric, corpus="-", width=0.05):
    """A record as report.records() gives it (the keys report.panels reads)."""
    return {"task": task, "data": data, "corpus": corpus, "retriever": variant.split()[0], "variant": variant,
            "questions": 100, "metric": metric, "value": value, "ci_low": max(0.0, value - width),
            "ci_high": min(1.0, value + width)}


# 13 rows over four tasks, in the order of the table, with long file names and labels
THIRTEEN = [
    rec("dbqa", DBQA, "bm25", 0.52, "MRR"), rec("dbqa", DBQA, "bm25 k1=1.2 b=0.75", 0.55, "MRR"),
    rec("dbqa", DBQA, "learned train=nlpcc-iccpol-2016.dbqa.training-data", 0.71, "MRR"),
    rec("dbqa", DBQA, "dense encoder=BAAI/bge-m3", 0.80, "MRR"),
    rec("kbqa", KBQA, "rules", 0.41, "F1", "nlpcc-iccpol-2016.kbqa.kb"),
    rec("kbqa", KBQA, "rules mention=longest", 0.47, "F1", "nlpcc-iccpol-2016.kbqa.kb"),
    rec("mcqa-en", AI2, "bm25", 0.354, "accuracy", "vital-en", 0.108),
    rec("mcqa-en", AI2, "bm25 analyzer=default n=5", 0.31, "accuracy", "vital-en", 0.1),
    rec("mcqa-en", AI2, "hybrid fusion=rrf", 0.42, "accuracy", "/data/corpora/enwiki-20181220-paragraphs.jsonl", 0.1),
    rec("mcqa-en", CK12, "bm25", 0.46, "accuracy", "vital-en"),
    rec("mcqa-en", CK12, "dense", 0.62, "accuracy", "vital-en"),
    rec("qac-2", QAC, "bm25 passages=5 max_list=5", 0.18, "AFM", "mainichi-1998-1999"),
    rec("qac-2", QAC, "dense passages=10", 0.22, "AFM", "mainichi-1998-1999"),
]


# the same with labels as long as the old ones (settings and observations mixed, defaults spelled out)
LONG = [dict(r, variant=f"{r['variant']} analyzer=None trace=False") for r in THIRTEEN]


def mcqa_board():
    """The mcqa-en leaderboard of tests/fixtures/leaderboard (alpha 1.0, beta and gamma tied at 0.75, delta
    1/3) with a baseline tied with beta and gamma, listed between them (as a table may list it)."""
    board = lb.build(tasks.get("mcqa-en"), [MCQA_GOLD], [MCQA_SUBMISSIONS])
    alpha, beta, gamma, delta = board.entries
    baseline = dataclasses.replace(beta, name="baseline vital-en--bm25", kind="baseline", rank=None)
    return dataclasses.replace(board, entries=[alpha, beta, baseline, gamma, delta])


def axes_of(fig, xlabel):
    return [ax for ax in fig.axes if ax.get_xlabel() == xlabel]


def y_labels(ax):
    """An axes' y tick labels, top first."""
    return [t.get_text() for t in sorted(ax.get_yticklabels(), key=lambda t: -t.get_position()[1])]


def drawn(fig):
    """FIG laid out and drawn with Agg; its renderer."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def texts(fig):
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def test_a_column_or_a_page_wide(tmp_path):
    for width, inches in (("column", 3.3), ("page", 7.0)):
        assert plot.figure(report.panels(THIRTEEN), width).get_size_inches()[0] == pytest.approx(inches)
    assert report_cli.parser().parse_args(["runs", "--plot", "x.png"]).plot_width == "column"
    assert report_cli.parser().parse_args(["runs", "--plot", "x.png", "--plot-width", "page"]).plot_width == "page"
    for width, pixels in (("column", 990), ("page", 2100)):  # 300 dpi
        png = tmp_path / f"{width}.png"
        assert score.main(["--task", "qac-2", "--gold", QAC_GOLD, "--submissions", QAC_SUBMISSIONS, "--plot", str(png),
                           "--plot-width", width]) == 0
        assert int.from_bytes(png.read_bytes()[16:20], "big") == pixels  # the IHDR width


def test_entries_in_the_order_of_the_table():
    # the leaderboard: its table's order, ties as listed, teams as RANK. NAME, baselines by their name
    [panel] = lb.panels(mcqa_board())
    [ax] = plot.figure([panel]).axes
    assert y_labels(ax) == ["1. alpha", "2. beta", "vital-en--bm25", "2. gamma", "4. delta"]
    # the report: the order records() gives; the corpus where the task's rows differ in it (as its table names it)
    fig = plot.figure(report.panels(THIRTEEN))
    dbqa, kbqa, ai2, ck12, _ = fig.axes
    assert y_labels(dbqa)[:2] == ["bm25", "bm25 k1=1.2 b=0.75"] and y_labels(dbqa)[3] == "dense\nencoder=BAAI/bge-m3"
    assert y_labels(kbqa) == ["rules", "rules mention=longest"]  # not sorted by score (0.41 < 0.47)
    assert [x.replace("\n", " ") for x in y_labels(ai2)][:2] == ["vital-en bm25", "vital-en bm25 analyzer=default n=5"]
    assert y_labels(ck12) == ["vital-en bm25", "vital-en dense"]


def test_a_leaderboard_joined_to_the_runs_is_ordered_as_a_leaderboard(tmp_path):
    recs = [rec("mcqa-en", "set_1.csv", "bm25", 0.5, "accuracy"),
            rec("mcqa-en", "set_1.csv", "dense", 0.75, "accuracy")]
    board = tmp_path / "board.json"
    board.write_text(json.dumps({"task": "mcqa-en", "gold": ["/g/set_1.csv"], "measure": "accuracy", "entries": [
        {"rank": 1, "name": "team-a", "kind": "team", "metrics": {"accuracy": 0.75}, "ci": {"accuracy": [0.5, 1.0]}},
        {"rank": None, "name": "baseline vital-en--dense", "kind": "baseline", "metrics": {"accuracy": 0.75},
         "ci": {"accuracy": [0.5, 1.0]}},
        {"rank": 2, "name": "team-b", "kind": "team", "metrics": {"accuracy": 0.4}, "ci": {"accuracy": [0.1, 0.7]}}]}))
    [panel] = report.panels(recs, [str(board)])
    [ax] = plot.figure([panel]).axes
    assert y_labels(ax) == ["1. team-a", "dense", "bm25", "2. team-b"]  # best first, a team before a tied baseline


def test_panels_of_one_measure_share_the_x_range():
    fig = plot.figure(report.panels(THIRTEEN))
    ai2, ck12 = axes_of(fig, "accuracy (%)")
    assert ai2.get_xlim() == ck12.get_xlim()
    low, high = ai2.get_xlim()
    values = [100 * v for r in THIRTEEN if r["metric"] == "accuracy" for v in (r["ci_low"], r["ci_high"])]
    assert low <= min(values) and max(values) <= high  # the CK12 panel's range covers the AI2 intervals
    assert [t.get_text() for t in ai2.get_xticklabels()] == [t.get_text() for t in ck12.get_xticklabels()]
    # other measures keep their own range
    [mrr] = axes_of(fig, "MRR")
    assert mrr.get_xlim() != ai2.get_xlim()


def dashed_at(ax, x):
    return [line for line in ax.lines if list(line.get_xdata()) == [x, x] and line.get_linestyle() == "--"]


def test_a_chance_line_for_mcqa():
    fig = plot.figure(report.panels(THIRTEEN))
    for ax in axes_of(fig, "accuracy (%)"):
        assert dashed_at(ax, 25)
        assert "chance" in [t.get_text() for t in ax.texts]
    [mrr] = axes_of(fig, "MRR")
    assert not mrr.texts and not [line for line in mrr.lines if line.get_linestyle() == "--"]
    [panel] = lb.panels(mcqa_board())
    assert panel.references == [("chance", 0.25)]
    assert dashed_at(plot.figure([panel]).axes[0], 25)


def test_the_answer_nothing_level_of_afm(tmp_path):
    # by hand: an empty submission scores 1 on Q3 and Q5 (no gold answer, no answer) and 0 on Q1, Q2, Q4
    nothing = 2 / 5
    board = lb.build(tasks.get("qac-2"), [QAC_GOLD], [QAC_SUBMISSIONS])
    assert [(e.name, e.metrics["AFM"]) for e in board.entries] == [("exact", 1.0), ("guess", pytest.approx(8 / 15))]
    [panel] = lb.panels(board)
    assert panel.references == [("answer nothing", pytest.approx(nothing))]
    [ax] = plot.figure([panel]).axes
    [line] = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert list(line.get_xdata()) == pytest.approx([nothing, nothing])  # AFM is drawn as a fraction
    assert "answer nothing" in [t.get_text() for t in ax.texts]
    # report --leaderboard: the leaderboard's gold gives the level; without a readable gold there is none
    path = tmp_path / "board.json"
    path.write_text(lb.show(board, "json"))
    [joined] = report.panels([rec("qac-2", "qac-2-gold.tsv", "bm25", 0.2, "AFM")], [str(path)])
    assert joined.references == [("answer nothing", pytest.approx(nothing))] and len(joined.points) == 3
    [alone] = report.panels([rec("qac-2", "qac-2-gold.tsv", "bm25", 0.2, "AFM")])
    assert not alone.references


def test_the_task_gives_its_reference_levels():
    """Task.references: MCQA's chance is 1 / the options of each question, averaged (A-D without gold: 25%);
    qac-2/3's the AFM of an empty submission, with the gold; other tasks none. plot.references asks the task
    for its main measure only."""
    from qa_baseline.tasks.base import Reference
    from qa_baseline.tasks.mcqa.formats import Question
    mcqa = tasks.get("mcqa-en")
    assert mcqa.references(None) == [Reference("chance", 0.25)]
    assert mcqa.references(mcqa.read_gold(MCQA_GOLD)) == [Reference("chance", 0.25)]  # 12 questions of 4 options
    three_and_two = [Question("1", "?", ["a", "b", "c"], "A", 1), Question("2", "?", ["a", "b"], "B", 2)]
    assert mcqa.references(three_and_two) == [Reference("chance", pytest.approx((1 / 3 + 1 / 2) / 2))]
    qac2 = tasks.get("qac-2")
    gold = qac2.read_gold(QAC_GOLD)
    assert qac2.references(gold) == [Reference("answer nothing", pytest.approx(2 / 5))]  # Q3, Q5 of 5: no answer
    assert qac2.references(None) == [] and tasks.get("qac-1").references(gold) == []
    assert tasks.get("dbqa").references(None) == []
    assert plot.references("mcqa-all", "accuracy[en]") == [("chance", 0.25)]
    assert plot.references("qac-2", "AFM", [QAC_GOLD]) == [("answer nothing", pytest.approx(2 / 5))]
    assert plot.references("qac-2", "AFM", ["/no/such/gold.tsv"]) == []
    assert plot.references("mcqa-en", "MRR") == [] and plot.references("no-such-task", "accuracy") == []


@pytest.mark.parametrize("width", ["column", "page"])
@pytest.mark.parametrize("recs", [THIRTEEN, LONG], ids=["short", "long"])
def test_nothing_is_cut_or_overlaps(width, recs):
    panels = report.panels(recs) + lb.panels(mcqa_board())
    fig = plot.figure(panels) if width == "column" else plot.figure(panels, width)
    renderer = drawn(fig)
    frame = fig.bbox
    shown = texts(fig)
    assert len(shown) > 13 + 6 + 12  # the labels, the titles, the tick labels...
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in shown]
    for text, box in boxes:
        assert frame.x0 - 0.5 <= box.x0 and box.x1 <= frame.x1 + 0.5, f"{text!r} cut at the side"
        assert frame.y0 - 0.5 <= box.y0 and box.y1 <= frame.y1 + 0.5, f"{text!r} cut at the top or bottom"
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        assert not box_a.overlaps(box_b), f"{a!r} overlaps {b!r}"
    for ax in fig.axes:  # the y tick labels above all (one per entry, none on another)
        labels = [t.get_window_extent(renderer) for t in ax.get_yticklabels() if t.get_text()]
        assert len(labels) == len(ax.get_yticks())
        assert not any(a.overlaps(b) for a, b in itertools.combinations(labels, 2))
    titles = [t.get_text() for t in fig.texts]
    assert any(DBQA in t for t in titles) and any(KBQA in t for t in titles)  # short enough to stay whole
    assert not any(KBQA[:30] in t and KBQA not in t.replace("\n", "") and "\u2026" not in t for t in titles)


def test_thirteen_rows_do_not_squeeze_the_panels():
    for recs in (THIRTEEN, LONG):
        fig = plot.figure(report.panels(recs))
        drawn(fig)
        assert len(fig.axes) == 5
        for ax in fig.axes:
            assert ax.get_window_extent().width >= 0.4 * fig.bbox.width
    fig = plot.figure(report.panels(LONG), "page")  # two stacks of panels side by side
    drawn(fig)
    for ax in fig.axes:
        assert ax.get_window_extent().width >= 0.4 * fig.bbox.width / 2
    # the height follows the entries: 13 rows fit a column of an A4/letter page, 2 entries take little
    heights = [plot.figure(report.panels(THIRTEEN)).get_size_inches()[1],
               plot.figure(report.panels(THIRTEEN[:2])).get_size_inches()[1]]
    assert heights[0] < 7.5 and heights[1] < 1.5


def test_long_labels_are_shortened_in_the_middle():
    long = "baseline-run-with-a-very-long-name-ai2-science-ai2-8thgr-ndmc-feb2016-dev.csv"
    panel = plot.Panel(f"mcqa-en: {long}", "accuracy", [plot.Point(long, 0.5, 0.4, 0.6, "baseline"),
                                                         plot.Point("bm25", 0.3, 0.2, 0.4, "baseline")])
    fig = plot.figure([panel])
    [ax] = fig.axes
    label = y_labels(ax)[0]
    assert "\u2026" in label and label.startswith("baseline-r") and label.endswith("dev.csv")
    assert ax.get_window_extent().width >= 0.4 * fig.bbox.width
    [title] = fig.texts
    assert title.get_text().startswith("mcqa-en:") and title.get_text().endswith("dev.csv")


def test_the_same_input_gives_the_same_file(tmp_path, capsys):
    [panel] = lb.panels(mcqa_board())
    for ext in ("png", "pdf"):
        first = tmp_path / f"a.{ext}"
        plot.save([panel], str(first), "page")
        again = tmp_path / f"b.{ext}"
        plot.save([panel], str(again), "page")
        assert first.read_bytes() == again.read_bytes()
    pdf = (tmp_path / "a.pdf").read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType fonts, as ACL's PDF checks want
    assert sorted(os.listdir(tmp_path)) == ["a.pdf", "a.png", "b.pdf", "b.png"]  # no temporary file left
    one = plot.Panel("dbqa: wikiqa.tsv", "MRR", [plot.Point("bm25", 0.5, None, None, "baseline")])
    plot.save([one], str(tmp_path / "one.png"))
    assert capsys.readouterr().err.splitlines()[-1].startswith(f"{tmp_path / 'one.png'}: 1 entry in 1 panel, 3.3 x ")


SVG = "{http://www.w3.org/2000/svg}"


def svg_points(path):
    """{group id: dots} of an SVG figure, parsed as XML: each panel's dots of a kind are one group (teams-N,
    baselines-N) of <use> marks."""
    import xml.etree.ElementTree as ET
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return root, {g.get("id"): len(g.findall(f".//{SVG}use")) for g in root.iter(f"{SVG}g")
                  if g.get("id", "").startswith(("teams-", "baselines-"))}


def test_svg_from_score_and_report(tmp_path, capsys):
    svg = tmp_path / "board.svg"
    assert score.main(["--task", "qac-2", "--gold", QAC_GOLD, "--submissions", QAC_SUBMISSIONS, "--plot", str(svg)]) == 0
    root, points = svg_points(svg)
    assert points == {"teams-0": 2} and root.get("width") == "237.6pt"  # exact and guess; 3.3 in
    from test_report import CROSS, dbqa_row, save
    runs = save(tmp_path / "runs", [dbqa_row("auto", {"reranker": "cross", **CROSS}), dbqa_row("bm25"),
                                    dbqa_row("bm25", data="/d/other.tsv")])
    overview = tmp_path / "overview.svg"
    assert report_cli.main([runs, "--plot", str(overview), "--plot-width", "page"]) == 0
    root, points = svg_points(overview)
    assert points == {"baselines-0": 1, "baselines-1": 2} and root.get("width") == "504pt"  # other.tsv, wikiqa.tsv
    again = tmp_path / "again.svg"
    assert report_cli.main([runs, "--plot", str(again), "--plot-width", "page"]) == 0
    assert again.read_bytes() == overview.read_bytes()  # no date, seeded ids
    assert b"<dc:date>" not in overview.read_bytes() and b"Matplotlib v" not in overview.read_bytes()
    from qa_baseline.core.errors import UserError
    with pytest.raises(UserError, match=r"x.jpg: the figure is written as .png, .pdf or .svg"):
        plot.check_path("x.jpg")


def test_the_figure_labels_a_run_as_its_table_and_leaderboard(tmp_path):
    """The report's figure labels the DBQA run of `--reranker auto` as the table does, auto (cross), and so
    does the leaderboard's figure of the baseline it names `baseline LABEL` (rows.labels)."""
    from test_report import CROSS, dbqa_row, save
    from qa_baseline.reporting.rows import labels
    rows = report.load_rows(save(tmp_path / "runs", [dbqa_row("auto", {"reranker": "cross", **CROSS}),
                                                      dbqa_row("bm25", values=(0, 0, 0, 1))]))
    [ax] = plot.figure(report.panels(report.records(rows, 10))).axes
    assert y_labels(ax) == ["auto (cross)", "bm25"] == [plot.entry_label(f"baseline {label}", None, "baseline")
                                                          for label in labels(rows)]
