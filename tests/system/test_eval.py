"""trec_eval in Python (qa_baseline/scoring/trec_eval.py): hand-computed figures on a tiny run, every measure against
pytrec_eval (trec_eval's own C code) on random runs with ties, unjudged and multi-level judgements, the
output format, and one-line errors."""
import math
import os
import random
import re

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline import eval as eval_cli
from qa_baseline.core.errors import UserError
from qa_baseline.retrievers import write_trec_run
from qa_baseline.scoring import metrics as M, trec_eval as trec

RUN, QRELS = os.path.join(FIXTURES, "eval", "run.trec"), os.path.join(FIXTURES, "eval", "qrels.txt")


def test_hand_computed_figures():
    run, tag = trec.read_run(RUN)
    qrels = trec.read_qrels(QRELS)
    assert tag == "test"
    # q1: d1 and d2 tie at 1.0 and trec_eval breaks ties by docno, descending: d3 (rel 2), d2 (0), d1 (1), d7 (not
    # judged); the rank column (d1 before d2) is ignored. q2: d4 (not judged), d5 (1). q3 has no run, q4 no qrels.
    q1 = trec.judge(run["q1"], qrels["q1"])
    assert q1.rels == [2, 0, 1, trec.NONPOOL] and (q1.num_rel, q1.num_nonrel) == (3, 1)
    assert M.trec_average_precision(q1) == pytest.approx((1 + 2 / 3) / 3)
    assert M.ndcg(q1) == pytest.approx((2 + 1 / 2) / (2 + 1 / math.log2(3) + 1 / 2))
    assert M.bpref(q1) == pytest.approx((1 + (1 - 1 / 1)) / 3)
    measures = trec.parse_measures(["map", "recip_rank", "P.5"])
    per_query, summary = trec.evaluate(run, qrels, measures)
    assert list(per_query) == ["q1", "q2"]
    assert summary == [("map", pytest.approx((5 / 9 + 1 / 2) / 2)), ("recip_rank", 0.75), ("P_5", pytest.approx(0.3))]
    _, complete = trec.evaluate(run, qrels, measures, complete=True)  # -c: q3 counts, with 0
    assert complete[0] == ("map", pytest.approx((5 / 9 + 1 / 2) / 3))


def test_measure_syntax():
    assert trec.parse_measures(["P.5,10", "P_20", "ndcg_cut.10", "map"]) == {
        "map": (), "P": (5, 10, 20), "ndcg_cut": (10,)}
    assert list(trec.parse_measures(None))[:5] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert trec.parse_measures(["iprec_at_recall_0.50"]) == {"iprec_at_recall": (0.5,)}
    for bad, message in [("mapp", "unknown measure 'mapp'"), ("map.5", "takes no cutoffs"),
                         ("P.x", "whole numbers"), ("P.0", "at least 1")]:
        with pytest.raises(UserError, match=message):
            trec.parse_measures([bad])


def random_case(seed, queries=60, docs=80):
    """A run with ties (scores rounded to 0.1 on odd queries) and qrels with levels 0-3 and unjudged (-1)."""
    rng = random.Random(seed)
    run, qrels = {}, {}
    for qi in range(queries):
        qid = f"q{qi}"
        ranked = list(dict.fromkeys(f"d{rng.randrange(docs)}" for _ in range(rng.randrange(1, 40))))
        if qi % 7 != 3:
            run[qid] = {d: round(rng.random() * 3, 1) if qi % 2 else rng.random() for d in ranked}
        if qi % 11 != 5:
            judged = list(dict.fromkeys(f"d{rng.randrange(docs)}" for _ in range(rng.randrange(1, 30))))
            qrels[qid] = {d: rng.choice([0, 0, 1, 2, 3, -1]) if qi % 3 else rng.choice([0, 1]) for d in judged}
    # scores equal as 32-bit floats but not as doubles: trec_eval stores scores as C floats, so these tie
    run["q0"] = {"a": 1.0, "b": 1.0 + 1e-9, "c": 0.5}
    qrels["q0"] = {"a": 1, "b": 0, "c": 1}
    return run, qrels


@pytest.mark.parametrize("seed, level", [(1, 1), (2, 2)])
def test_every_measure_matches_pytrec_eval(seed, level):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is not installed ([test] extra)")
    run, qrels = random_case(seed)
    measures = trec.parse_measures(["all_trec"])
    per_query, summary = trec.evaluate({q: list(d.items()) for q, d in run.items()}, qrels, measures, level)
    names = {n for n in measures if n != "num_q"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=level).evaluate(run)
    assert sorted(per_query) == sorted(reference)
    compared = 0
    for qid, values in per_query.items():
        for name, value in values:
            assert value == pytest.approx(reference[qid][name], abs=1e-12), (qid, name)
            compared += 1
    assert compared == len(per_query) * 59  # 3 counts, 6 single figures, 11 recall levels, 4 x 9 cutoffs, 3 success
    for name, value in summary[1:]:
        agg = pytrec_eval.compute_aggregated_measure(name, [v[name] for v in reference.values()])
        assert value == pytest.approx(agg, abs=1e-12), name


def test_cli_output_is_trec_eval_format(tmp_path):
    done = cli("eval", RUN, QRELS)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:6] == ["runid                 \tall\ttest", "num_q                 \tall\t2",
                         "num_ret               \tall\t6", "num_rel               \tall\t4",
                         "num_rel_ret           \tall\t3", "map                   \tall\t0.5278"]
    assert "iprec_at_recall_0.00  \tall\t0.7500" in lines and lines[-1] == "P_1000                \tall\t0.0015"
    per_query = cli("eval", RUN, QRELS, "-m", "map", "-m", "ndcg", "-q", "-c")
    assert per_query.stdout.splitlines() == [
        "map                   \tq1\t0.5556", "ndcg                  \tq1\t0.7985",
        "map                   \tq2\t0.5000", "ndcg                  \tq2\t0.6309",
        "map                   \tq3\t0.0000", "ndcg                  \tq3\t0.0000",
        "map                   \tall\t0.3519", "ndcg                  \tall\t0.4765"]


def test_search_run_files_evaluate(tmp_path, capsys):
    """What `python -m qa_baseline.search --output` writes is what eval reads (scores to 6 decimals)."""
    path = str(tmp_path / "run.trec")
    write_trec_run(path, ["q1", "q2"], [[("d3", 2.5), ("d9", 1.25)], [("d5", 0.5)]], "bm25")
    assert eval_cli.main([path, QRELS, "-m", "map", "-m", "num_rel_ret"]) == 0
    assert capsys.readouterr().out.splitlines() == ["num_rel_ret           \tall\t3",
                                                    "map                   \tall\t0.8333"]  # (2/3 + 1) / 2


@pytest.mark.parametrize("run, qrels, message", [
    ("q1 Q0 d1 1 1.0\n", "q1 0 d1 1\n", r"run.trec:1: expected 6 fields \(qid Q0 docno rank score tag\), found 5"),
    ("q1 Q0 d1 1 x t\n", "q1 0 d1 1\n", "run.trec:1: score 'x' is not a number"),
    ("q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n", "q1 0 d1 1\n", "run.trec:2: document d1 repeated for query q1"),
    ("q1 Q0 d1 1 1 t\n", "q1 0 d1 yes\n", "qrels.txt:1: relevance 'yes' is not a whole number"),
    ("q1 Q0 d1 1 1 t\n", "q1 0 d1 1\nq1 0 d1 0\n", "qrels.txt:2: document d1 judged twice"),
    ("q1 Q0 d1 1 1 t\n", "q2 0 d1 1\n", "none of its queries is in"),
    ("\n", "q2 0 d1 1\n", "no run lines"),
])
def test_errors_are_one_line(tmp_path, capsys, run, qrels, message):
    (tmp_path / "run.trec").write_text(run)
    (tmp_path / "qrels.txt").write_text(qrels)
    with pytest.raises(SystemExit) as e:
        eval_cli.main([str(tmp_path / "run.trec"), str(tmp_path / "qrels.txt")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and re.search(message, err), err


def test_float32_ties_follow_trec_eval():
    q = trec.judge([("a", 1.0), ("b", 1.0 + 1e-9)], {"a": 1, "b": 0})
    assert q.rels == [0, 1]  # equal as floats: b before a (docno descending), although b's double is larger
    assert np.float32(1.0) == np.float32(1.0 + 1e-9)
