"""Each metric on hand-computed cases; MRR and MAP against trec_eval (Anserini's jtreceval) where the
definitions coincide, and where NLPCC's AveP (divided by min(m, n)) differs from trec_eval's (divided by m)."""
import os

import pytest

import conftest

from qa_baseline.scoring import metrics as M
from qa_baseline.tasks.dbqa import formats as dbqa

FIXTURES = os.path.join(conftest.FIXTURES, "scoring")


def test_mean_and_summarise():
    assert M.mean([]) == 0.0
    assert M.summarise({"MRR": [1.0, 0.0, 0.5]}) == {"metrics": {"MRR": 0.5}, "per_question": {"MRR": [1.0, 0.0, 0.5]}}
    with pytest.raises(KeyError):  # every metric is a declared measure
        M.summarise({"x": [1.0]})
    assert M.measure("accuracy[gaokao-history]") is M.MEASURES["accuracy"] and M.MEASURES["EM"].percent



def test_one_registry_shape():
    """Task measures and trec_eval's are the same Measure: a name, a function of one question, a definition."""
    for registry in (M.MEASURES, M.TREC_EVAL):
        for name, m in registry.items():
            assert isinstance(m, M.Measure) and m.name == name and m.definition
            assert m.fn is not None or name == "num_q"
    assert M.MEASURES["MRR"].fn is M.TREC_EVAL["recip_rank"].fn  # reciprocal rank, written once
    assert M.TREC_EVAL["P"].cutoffs == M.CUTOFFS and M.TREC_EVAL["P"].kind == "cut"


def test_measures_of_one_judged_question():
    q = M.Judged.binary([0, 1, 1], 4)  # 3 returned, 2 correct, 4 gold items
    assert (q.num_ret, q.num_rel, q.num_rel_ret) == (3, 4, 2)
    values = {name: m.fn(q) for name, m in M.MEASURES.items() if name not in ("EM", "token_F1")}
    assert values["MRR"] == 0.5 and values["ACC@1"] == 0.0 and values["accuracy@2"] == 1.0
    assert values["MAP"] == pytest.approx((1 / 2 + 2 / 3) / 3)                  # NLPCC: / min(m, n)
    assert M.TREC_EVAL["map"].fn(q) == pytest.approx((1 / 2 + 2 / 3) / 4)      # trec_eval: / m
    assert (values["precision"], values["recall"]) == pytest.approx((2 / 3, 1 / 2))
    assert values["AFM"] == values["F1"] and values["has_answer_accuracy"] == 1.0
    assert M.MEASURES["AFM"].fn(M.Judged.binary([], 0)) == 1.0                 # the no-answer rule
    assert M.Judged.answer_set(["a", "a", "x"], ["a", "b"]).num_rel_ret == 1
    assert M.score_questions(("EM", "token_F1"), [M.Answered("Penn State", ["penn state"]), M.Answered("x", ["y"])]) \
        == {"metrics": {"EM": 0.5, "token_F1": 0.5}, "per_question": {"EM": [1.0, 0.0], "token_F1": [1.0, 0.0]}}

def test_rank_by_score_keeps_input_order_on_ties():
    assert M.rank_by_score([0.5, 0.9, 0.5, 0.9, 0.1]) == [1, 3, 0, 2, 4]
    assert M.rank_by_score([]) == []


@pytest.mark.parametrize("rels, expected", [([1, 0], 1.0), ([0, 0, 1], 1 / 3), ([0, 0], 0.0), ([], 0.0)])
def test_reciprocal_rank(rels, expected):
    assert M.reciprocal_rank(rels) == pytest.approx(expected)


@pytest.mark.parametrize("rels, m, expected", [
    ([1, 0, 1], 2, (1 + 2 / 3) / 2),
    ([0, 1, 0, 1], 2, (1 / 2 + 2 / 4) / 2),
    ([1, 1], 3, 1.0),          # min(m, n) = 2; trec_eval would divide by 3
    ([0, 1], 5, 0.5 / 2),
    ([0, 0], 0, 0.0),          # min(m, n) = 0
    ([], 2, 0.0),
])
def test_nlpcc_average_precision(rels, m, expected):
    assert M.average_precision(rels, m) == pytest.approx(expected)


def test_hit_at():
    assert [M.hit_at([0, 0, 1], n) for n in (1, 2, 3, 5)] == [0.0, 0.0, 1.0, 1.0]
    assert M.hit_at([], 1) == 0.0


def test_set_precision_recall_f1():
    assert M.set_prf({"a", "b"}, {"b", "c"}) == pytest.approx((0.5, 0.5, 0.5))
    assert M.set_prf(["a", "a"], ["a", "b"]) == pytest.approx((1.0, 0.5, 2 / 3))
    assert M.set_prf([], ["a"]) == (0.0, 0.0, 0.0)     # empty answer set
    assert M.set_prf(["x"], ["a"]) == (0.0, 0.0, 0.0)  # disjoint


def test_qac_f_no_answer_rule():
    assert M.qac_f(0, 0, 0) == 1.0
    assert M.qac_f(2, 0, 0) == 0.0
    assert M.qac_f(0, 2, 0) == 0.0
    assert M.qac_f(3, 2, 1) == pytest.approx(0.4)  # P 1/3, R 1/2


@pytest.mark.parametrize("text, expected", [
    ("  The   Beatles. ", "the beatles"),
    ("\u201cLimp Bizkit\u201d", "limp bizkit"),
    ("\uff21\uff22\uff23\uff11", "abc1"),        # full-width letters and digit (NFKC)
    ("$ 469,000", "$ 469,000"),                   # symbols and inner punctuation stay
    ("\u6771\u4eac\u3002", "\u6771\u4eac"),       # Japanese full stop
    ("(a)", "a"),
    ("...", ""),
])
def test_normalize(text, expected):
    assert M.normalize(text) == expected


def test_match_answers_counts_each_gold_answer_once():
    gold = [["Tokyo", "Tokyo-to"], ["Osaka"]]
    assert M.match_answers(["tokyo-to", "TOKYO", "Kyoto", "osaka."], gold) == [1, 0, 0, 1]
    assert M.match_answers([None, "Osaka"], gold) == [0, 1]
    assert M.match_answers(["x"], [[]]) == [0]


def test_exact_match_and_token_f1():
    assert M.tokens("Penn State (University)") == {"penn", "state", "university"}
    assert M.tokens(" - ") == set()
    assert M.exact_match("kim yu-na.", ["Kim Yu-na"]) == 1.0
    assert M.exact_match("Kim", ["Kim Yu-na"]) == 0.0
    assert M.token_f1("Penn State University", ["Arizona", "Penn State"]) == pytest.approx(0.8)
    assert M.token_f1("", ["1965"]) == 0.0


def test_dbqa_fixture_by_hand():
    groups = dbqa.read_gold(os.path.join(FIXTURES, "dbqa.tsv"))
    result = dbqa.score(groups, [0.9, 0.5, 0.7, 0.1, 0.2, 0.8, 0.3, 0.3, 0.3, 0.4, 0.4])
    # groups q1 [0,0,1,1] after ranking, q2 [1,0], q3 [0,0,1] (a tie), q1 again [1,0] (a tie)
    assert result["per_question"]["MRR"] == pytest.approx([1 / 3, 1, 1 / 3, 1])
    assert result["per_question"]["MAP"] == pytest.approx([5 / 12, 1, 1 / 3, 1])
    assert result["metrics"] == pytest.approx({"MRR": 2 / 3, "MAP": 33 / 48, "ACC@1": 0.5})


# --- against trec_eval --------------------------------------------------------------------------------------

def trec_eval(tmp_path, qrels, run, *measures):
    """{(measure, qid): value} from Anserini's trec_eval; qrels: (qid, docno, rel), run: (qid, docno, score)."""
    from qa_baseline.lucene import jvm
    TrecEval = jvm.start()("io.anserini.eval.TrecEval")
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} {i} {s} fixture\n" for i, (q, d, s) in enumerate(run, 1)))
    args = [x for m in measures for x in ("-m", m)] + ["-q", str(tmp_path / "qrels"), str(tmp_path / "run")]
    return {(m, q): float(v) for m, q, v in TrecEval().runAndGetOutput(args)}


def test_mrr_and_map_agree_with_trec_eval(tmp_path):
    groups = dbqa.read_gold(os.path.join(FIXTURES, "dbqa.tsv"))
    scores = [0.9, 0.5, 0.7, 0.1, 0.2, 0.8, 0.3, 0.3, 0.3, 0.4, 0.4]
    qrels, run, start = [], [], 0
    for g, group in enumerate(groups):
        for i, label in enumerate(group.labels):
            # trec_eval breaks score ties by docno, descending: docnos falling with position = input order
            doc = f"d{999 - i}"
            qrels.append((f"g{g}", doc, label))
            run.append((f"g{g}", doc, scores[start + i]))
        start += len(group.labels)
    ours = dbqa.score(groups, scores)
    theirs = trec_eval(tmp_path, qrels, run, "map", "recip_rank")
    for g in range(len(groups)):
        assert ours["per_question"]["MAP"][g] == pytest.approx(theirs[("map", f"g{g}")], abs=1e-4)
        assert ours["per_question"]["MRR"][g] == pytest.approx(theirs[("recip_rank", f"g{g}")], abs=1e-4)
    assert ours["metrics"]["MAP"] == pytest.approx(theirs[("map", "all")], abs=1e-4)
    assert ours["metrics"]["MRR"] == pytest.approx(theirs[("recip_rank", "all")], abs=1e-4)


def test_nlpcc_map_differs_from_trec_eval_when_fewer_than_m_are_ranked(tmp_path):
    qrels = [("q", "d1", 1), ("q", "d2", 1), ("q", "d3", 1)]
    run = [("q", "d1", 2.0), ("q", "d2", 1.0)]  # m = 3 correct, n = 2 ranked, both correct
    theirs = trec_eval(tmp_path, qrels, run, "map")[("map", "q")]
    assert theirs == pytest.approx(2 / 3, abs=1e-4)
    assert M.average_precision([1, 1], 3) == 1.0
