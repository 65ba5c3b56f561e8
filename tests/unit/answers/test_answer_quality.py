"""Answer quality parts of qa_baseline/answers: fine answer types, the candidate recall report, the
redundancy and fine-type features, the learned scorers (logistic and LambdaMART) and neural evidence checks."""
import math
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES

from qa_baseline.answers import neural, scorers
from qa_baseline.answers.answer_types import answer_type
from qa_baseline.answers.features import FEATURES, Candidate, redundancy
from qa_baseline.answers.passages import Passage
from qa_baseline.answers.stage import candidate_recall, ceilings
from qa_baseline.core.errors import UserError
from qa_baseline.scoring.metrics import normalize


@pytest.mark.parametrize("question,name,fine", [
    ("日本で一番大きな湖があるのは何県ですか?", "県", {"Province"}),
    ("ユーロポート港のあるのはどこの国ですか?", "国", {"Country", "GPE_Other"}),
    ("日本で一番高いのは何という山?", "山", {"Mountain"}),
    ("ジャンヌの夫は誰なの?", "person", {"Person"}),
    ("ウォークマンを発売したのは何という会社?", "会社", {"Company", "Company_Group", "Corporation_Other"}),
    ("アメリカの首都は？", "首都", {"City", "County"}),
    ("共産党の推薦を受けた人物は？", "人物", {"Person"}),
    ("卵は何色ですか?", "色", {"Color_Other", "Nature_Color"}),
    ("江戸幕府が開かれたのは何時代?", "era", set()),
    ("ラオスが国連に加盟した年は？", "date", {"Date", "Era"}),  # the topic's head: a year, not anything
    ("ＮＡＴＯの発足年は？", "date", {"Date", "Era"}),
    ("統一政府が崩れたのは、どの時期のことか?", "時期", {"Date", "Era"}),  # a period, no date (`dateless`)
    ("GADV仮説を提唱した教授は？", "教授", {"Person"}),
    ("東郷平八郎の立像が設置されていた貨客船の名前は何?", "客船", {"Ship"}),  # the name of an X: typed by X
    ("日立鉱山の中心部に流れている川の名は何?", "川", {"River"}),
    ("凱旋紀念書籍館の改称後の施設名は何ですか?", "施設", {"Facility_Other", "Sports_Facility", "Theater",
                                                "Museum", "Park"}),
    ("種田山頭火の本名は？", "本名", {"Person"}),  # 本名 is a head itself, not the name of a book (本)
    ("オグリキャップの申し込みが殺到したのは何のレースに優勝した後からですか?", "レース", {"Game"}),
    ("What country is Horus associated with?", "country", {"GPE"}),
    ("What river flows through Cairo?", "river", {"LOC"}),
    ("Who discovered prions?", "person", {"PERSON"}),
])
def test_fine_answer_types(question, name, fine):
    t = answer_type(question, "ja" if question.isascii() is False else "en")
    assert (t.name, set(t.fine)) == (name, fine)


def test_head_words_that_end_other_words_match_only_whole():
    assert answer_type("日本は？", "ja").name == ""          # 日本 does not end with the head 本 (book)
    assert answer_type("何という本?", "ja").fine == {"Book", "Printing_Other"}
    assert answer_type("方法は？", "ja").name == ""          # 方法 is not a law (法)
    assert answer_type("その鉱山は？", "ja").fine == {"Facility_Other", "Location_Other"}  # a mine, no mountain (山)
    for question in ("彼の享年は？", "その学年は？", "その伝説は？", "その風船は？"):  # an age, no year; a legend, no theory
        assert answer_type(question, "ja").name == "", question
    assert answer_type("ポセイドンは何の神か", "ja").name == ""  # the god of what: a domain (海), no god


def test_kind_questions_are_untyped_in_english():
    t = answer_type("What kind of singer is Ice T?", "en")
    assert (t.name, set(t.labels), set(t.fine)) == ("kind", set(), set())


def _cand(text, docid="d", **f):
    return Candidate(text, normalize(text), docid, ("NP",), {k: f.get(k, 0.0) for k in FEATURES})


def test_candidate_recall_by_type():
    ps = [[Passage("a", "", "Tokyo is big. Osaka too.", 1.0)], [Passage("b", "", "In 1995 it was found.", 1.0)],
          [Passage("c", "", "Nothing here.", 1.0)], [Passage("d", "", "Kyoto and Nara", 1.0)]]
    cands = [[_cand("Osaka")], [_cand("1995")], [], [_cand("Nara")]]
    golds = [[["Tokyo"]], [["1995"]], [["Paris"]], [["Kyoto", "Heian-kyo"]]]
    got = candidate_recall(ps, cands, golds, ["place", "date", "place", ""])
    assert got == {"place": {"in_passages": 1, "missed": 1, "examples": ["Tokyo"]},
                   "untyped": {"in_passages": 1, "missed": 1, "examples": ["Kyoto"]},
                   "date": {"in_passages": 1, "missed": 0, "examples": []}}
    assert ceilings(ps, cands, golds)["answer_in_candidates"] == 0.25
    assert "missed_by_type" not in ceilings(ps, cands, golds)


def test_redundancy_features():
    ps = {"doc1#0": (0.5, 1.0, 0), "doc1#3": (1.0, 0.5, 1), "doc2": (0.3, 0.25, 2)}
    t = answer_type("何県?", "ja")
    got = redundancy(ps, {"Province", "City"}, t)
    assert got == {"fine_match": 1.0, "fine_mismatch": 0.0, "documents": math.log1p(2), "best_evidence": 0.5,
                   "mean_match": pytest.approx(0.6)}
    assert redundancy(ps, {"City"}, t)["fine_mismatch"] == 1.0
    assert redundancy(ps, set(), t)["fine_mismatch"] == 0.0  # plain noun phrases are no mismatch


def _groups(n=30):
    """Questions whose answer is the candidate with the larger `window` (not the larger evidence)."""
    groups = []
    for i in range(n):
        good = _cand(f"good{i}", evidence=0.5, support=0.5, window=0.9 + i / 1000)
        bad = _cand(f"bad{i}", evidence=2.0, support=2.0, window=0.1)
        other = _cand(f"other{i}", evidence=0.2, support=0.2, window=0.2)
        groups.append(([bad, good, other], [[f"good{i}"]]))
    return groups


@pytest.mark.parametrize("kind", scorers.KINDS)
def test_learned_scorers_rank_answers_first(kind):
    groups = _groups()
    scorer = scorers.LearnedScorer.fit(groups, kind)
    assert scorer.params()["kind"] == kind
    for cands, gold in groups:
        assert scorers.ranked(cands, scorer)[0][0].text == gold[0][0]
        assert all(s > 0 for _, s in scorers.ranked(cands, scorer))  # positive: the list ratio needs it


def test_choose_scorer_reports_each_kind():
    scorer, cv = scorers.choose_scorer(_groups(), kinds=scorers.LEARNERS["best"])
    assert set(cv) == {"rule", "logistic", "lambdamart"}
    assert cv["rule"] == 0.5 and scorer.name == "learned"  # the rule ranks the larger evidence first
    assert set(scorers.choose_scorer(_groups())[1]) == {"rule", "logistic"}  # the default: logistic only


def test_neural_cross_is_english_only():
    neural.check("cross", "en")
    neural.check("none", "ja")
    neural.check("e5", "ja")  # multilingual
    with pytest.raises(UserError, match="English only.*fix: --neural e5"):
        neural.check("cross", "ja")


_FEATURES_OF_A_RUN = """
import json, os, sys
from qa_baseline.answers import Extractor, Passage
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
passages = [Passage(r["id"], r["title"], r["contents"], 10.0 - i) for i, r in enumerate(rows)]
for c in Extractor(sys.argv[2]).candidates(sys.argv[3], passages):
    print(c.key, *(v.hex() for v in c.features.values()))
"""


def test_features_are_the_same_in_every_process():
    """Every feature to the last bit, whatever a process's string hashing (PYTHONHASHSEED): the question's
    words and a sentence's words are summed in a fixed order, not a set's (these seeds differed before)."""
    question = "What river flows through the city where Fred Durst was born in 1970?"
    corpus = os.path.join(FIXTURES, "answers-corpus-en.jsonl")
    runs = {subprocess.run([sys.executable, "-c", _FEATURES_OF_A_RUN, corpus, "en", question],
                           env={**os.environ, "PYTHONHASHSEED": seed, "QA_BASELINE_PARSES": "off"},
                           capture_output=True, text=True, check=True).stdout for seed in ("1", "2", "3", "4")}
    assert len(runs) == 1 and next(iter(runs)).count("\n") > 5
