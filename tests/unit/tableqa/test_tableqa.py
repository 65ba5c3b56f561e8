"""Table question answering (qa_baseline/tableqa) on one tiny table, values worked out by hand: the typed view,
the shared operations, question analysis, linking, each operator of the engine and one whole answer."""
import pytest

from qa_baseline.collection.table import Table
from qa_baseline.tableqa import answer, engine, linking, operators
from qa_baseline.tableqa.linking import Mention
from qa_baseline.tableqa.question import analyse
from qa_baseline.tableqa.view import TableView

RANK, ATHLETE, NATION, DATE, TIME, POINTS = range(6)
# times: 2:05:10 = 7510 s, 2:06:00 = 7560 s, 2:10:30 = 7830 s; the Total row is a summary row
TINY = Table(["Rank", "Athlete", "Nation", "Date", "Time", "Points"], [
    ["1", "Ann Lee", "Kenya", "June 10, 1985", "2:05:10", "30"],
    ["2", "Bo Chen", "China", "3 May 1990", "2:06:00", "25"],
    ["3", "Cy Diaz", "Kenya", "1979-07-01", "n/a", "25"],
    ["4", "Di Eko", "Spain", "21 August 1988", "2:10:30", "12"],
    ["Total", "", "", "", "", "92"]], source="tiny.csv")


@pytest.fixture(scope="module")
def view():
    return TableView(TINY)


def test_the_view_types_columns_and_leaves_the_total_row_out(view):
    assert view.summary == [False, False, False, False, True] and view.body == [0, 1, 2, 3]
    kinds = [(c.numeric, c.date, c.rank, c.distinct) for c in view.columns]
    assert kinds == [(True, False, True, 4), (False, False, False, 4), (False, False, False, 3),
                     (False, True, False, 4), (True, False, False, 4), (True, False, False, 3)]  # n/a: 3 of 4 times
    assert view.key_column() == ATHLETE  # the text column with the most distinct values
    assert view.value(0, DATE) == 19850610 and view.value(2, DATE) == 19790701
    assert view.value(1, TIME) == 7560 and view.value(2, TIME) is None and view.value(4, POINTS) == 92


def test_the_operations_the_operators_share(view):
    assert operators.values(view, view.body, TIME) == [(0, 7510), (1, 7560), (3, 7830)]  # n/a has no value
    assert operators.arg_extreme(view, view.body, POINTS, "max") == 0
    assert operators.arg_extreme(view, view.body, POINTS, "min") == 3
    assert operators.arg_extreme(view, [2, 1], POINTS, "max") == 2  # a tie: the first of ROWS
    assert operators.arg_extreme(view, [2], TIME, "max") is None
    assert operators.threshold(view, view.body, POINTS, ">=", 25) == [0, 1, 2]
    assert operators.threshold(view, view.body, POINTS, "<", 25) == [3]
    assert operators.most_common(view, view.body, NATION) == 0  # Kenya twice: its first row
    assert operators.most_common(view, view.body, NATION, "min") == 1  # China and Spain once: China's row
    assert [operators.fmt(x) for x in (3.0, 10.8, 2 / 3, None)] == ["3", "10.8", "0.6667", ""]


def test_the_direction_of_a_superlative(view):
    cols = view.columns
    assert operators.direction("max", cols[RANK]) == "min"  # the best rank is the smallest
    assert operators.direction("best", cols[POINTS]) == "max" and operators.direction("worst", cols[RANK]) == "max"
    assert operators.direction("old", cols[DATE]) == "min" and operators.direction("young", cols[DATE]) == "max"
    assert operators.direction("fast", cols[TIME]) == "min" and operators.direction("slow", cols[TIME]) == "max"
    age, speed = TableView(Table(["Age", "Speed (km/h)"], [["30", "12"], ["25", "15"]])).columns
    assert operators.direction("old", age) == "max" and operators.direction("fast", speed) == "max"


def test_question_analysis():
    q = analyse("How many athletes from Kenya scored more than 20 points?")
    assert (q.wh, q.target, q.count, q.thresholds, q.numbers) == ("count", ("athlete",), True, [(">", 20.0)], [20.0])
    assert q.superlative == ""  # `more than N` is a threshold, not a superlative
    q = analyse("Which athlete was the fastest?")
    assert (q.wh, q.target, q.superlative, q.super_word) == ("which", ("athlete",), "fast", "fastest")
    q = analyse("How many more points did Ann Lee get than Di Eko?")
    assert q.difference and not q.count
    q = analyse("How many different nations are there?")
    assert q.count and q.distinct and q.target == ("nation",)
    q = analyse("What is the average time of athletes other than Cy Diaz?")
    assert q.average and q.exclude and q.wh == "what"
    assert analyse("Who came after Bo Chen?").neighbour == 1 and analyse("Who was before Bo Chen?").neighbour == -1
    q = analyse("Who ran after 1988?")  # a year after `after`: a threshold, not the next row
    assert (q.neighbour, q.thresholds) == (0, [(">", 1988.0)])
    assert analyse("Which athlete is listed last?").ordinal == "last"
    assert analyse("Who was faster, Bo Chen or Di Eko?").compare


def test_linking(view):
    q = analyse("How many points did Ann Lee get?")
    assert linking.mentions(q, view) == [Mention(0, ATHLETE, 1.2, True)]  # a phrase of 2 words: 1 + 0.1 x 2
    assert linking.header_score(q, view.columns[POINTS]) == 3  # `points` named (1), the target noun (2)
    assert linking.header_score(q, view.columns[NATION]) == 0
    assert linking.table_match(q, view) == pytest.approx(1.2 + 0.5 * 3)
    # half the content stems of a cell: 0.8 x 1/2; a number the question names; the year of a date cell
    assert linking.mentions(analyse("How many points did Lee get?"), view) == [Mention(0, ATHLETE, 0.4, False)]
    assert linking.mentions(analyse("Which athlete scored 12 points?"), view) == [Mention(3, POINTS, 1.1, True)]
    assert linking.mentions(analyse("Who ran in 1988?"), view) == [Mention(3, DATE, 0.6, False)]
    # a threshold's number mentions no cell
    assert linking.mentions(analyse("Who scored more than 25 points?"), view) == []


@pytest.mark.parametrize("question, text, operator", [
    ("How many more points did Ann Lee get than Di Eko?", "18", "difference"),       # |30 - 12|
    ("Who was faster, Bo Chen or Di Eko?", "Bo Chen", "compare"),                     # 7560 s < 7830 s
    ("What is the average time?", "7633.3333", "average"),                            # 22900 / 3; n/a left out
    ("How many points did Ann Lee get?", "30", "lookup-number"),
    ("What is the total of points?", "92", "total-row"),                              # the table's own total
    ("What is the total of points for Kenya?", "55", "sum"),                          # 30 + 25
    ("How many athletes are from Kenya?", "2", "count"),
    ("How many different nations are there?", "3", "count-distinct"),                 # Kenya, China, Spain
    ("Which athlete had the most points?", "Ann Lee", "superlative-max"),
    ("Who came after Bo Chen?", "Cy Diaz", "next"),
    ("What time came after Bo Chen?", "2:10:30", "next"),                             # n/a skipped
    ("What points came before Cy Diaz?", "30", "previous"),                           # Bo Chen's 25 = Cy Diaz's
    ("Which athlete is listed last?", "Di Eko", "last"),                              # not the Total row
    ("What nation is Di Eko from?", "Spain", "lookup"),
    ("Which athlete other than Ann Lee scored at least 25 points?", "Bo Chen", "lookup"),
])
def test_each_operator(view, question, text, operator):
    a = engine.answer_view(analyse(question), view)
    assert (a.text, a.operator) == (text, operator)


def test_an_operator_falls_through_without_its_cue_or_its_row(view):
    link = engine.Linked(analyse("Who came after Di Eko?"), view)
    assert engine.neighbour(link) is None  # Di Eko's is the last body row (Total is a summary row)
    assert engine.count(link) is None and engine.difference(link) is None and engine.average(link) is None
    assert engine.lookup(link).operator == "lookup"  # the last operator always answers


def test_an_answer_over_tables():
    """The best table's answer (its score: the link score 1.2 plus the operator's 0.6), with its trace."""
    other = Table(["Nation", "Capital"], [["Kenya", "Nairobi"], ["Spain", "Madrid"]], source="capitals.csv")
    views: dict = {}  # the datasearch pipeline's cache of table views, by id
    a = answer("How many points did Ann Lee get?", [other, TINY], views)
    assert set(views) == {id(other), id(TINY)}
    assert a.trace() == {"answer": "30", "operator": "lookup-number", "file": "tiny.csv", "rows": [0],
                         "column": "Points", "detail": ""}
    assert a.score == pytest.approx(1.8)
    # equal scores (Spain: 1.1, a lookup: 0.3): the first table's answer
    assert answer("What is the capital of Spain?", [other, TINY]).text == "Madrid"
    assert answer("What is the capital of Spain?", [TINY, other]).text == "Di Eko"
    assert answer("anything?", [Table(["A"], [])]).detail == "no table"  # no rows: no table to answer from
