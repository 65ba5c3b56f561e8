"""The short-answer extraction stage (qa_baseline/answers) and the openqa-en / qac pipelines built on it."""
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline.answers import Extractor, Passage, answer_in_candidates, answer_in_passages, numbers, scorers
from qa_baseline.answers.answer_types import answer_type, choices
from qa_baseline.answers.features import contained
from qa_baseline.answers.features import is_option
from qa_baseline.core.errors import UserError


# --- rules: numbers, answer types ------------------------------------------------------------------------------

def test_english_numbers_dates_quantities():
    text = "It was found on July 23, 1995 and returns every 2,500 years; it cost $5 million, 30 percent more."
    got = {(text[s:e], label) for s, e, label in numbers.spans(text, "en")}
    assert {("July 23, 1995", "DATE"), ("1995", "DATE"), ("2,500 years", "DATE"), ("2,500", "CARDINAL"),
            ("$5 million", "MONEY"), ("30 percent", "PERCENT")} <= got
    assert ("30 percent", "CARDINAL") not in got  # a unit that another rule covers is not a generic count


def test_japanese_numbers_dates_quantities():
    text = "卵は約3.4×1.3mmで、天平勝宝4年4月9日に11677匹が確認され、塩分は30%、斤量は66.5kg。"
    got = {(text[s:e], label) for s, e, label in numbers.spans(text, "ja")}
    assert {("約3.4×1.3mm", "QUANTITY"), ("天平勝宝4年4月9日", "DATE"), ("11677匹", "CARDINAL"),
            ("30%", "PERCENT"), ("66.5kg", "QUANTITY")} <= got


def test_the_rules_version_checksums_the_mention_rules_only():
    """The parse store keeps derived sentences under rules_version(): the code of the mention rules
    (mentions.py, numbers.py), not the Parser's (candidates.py: batch sizes, caching, store I/O), so a change of
    the Parser derives no stored passage again."""
    import inspect

    from qa_baseline.answers import candidates, mentions
    assert mentions.rules_version() == mentions.code_checksum(mentions.__file__, numbers.__file__)
    assert candidates.rules_version is mentions.rules_version
    assert "class Parser" in inspect.getsource(candidates) and "class Parser" not in inspect.getsource(mentions)


@pytest.mark.parametrize("question,lang,name,labels,unit", [
    ("Who founded the Black Panthers?", "en", "person", {"PERSON", "ORG"}, ""),
    ("When did James Dean die?", "en", "date", {"DATE", "TIME"}, ""),
    ("Where was Durst born?", "en", "place", {"GPE", "LOC", "FAC"}, ""),
    ("How many years does a Rhodes scholar study?", "en", "count", {"CARDINAL", "QUANTITY"}, "years"),
    ("What is the name of Durst 's group?", "en", "group", {"ORG", "NORP"}, ""),
    ("What nationality is Frank Gehry?", "en", "nationality", {"NORP"}, ""),
    ("What is Crips ' gang color?", "en", "", set(), ""),
    ("ジャンヌの夫は誰なの?", "ja", "person", {"PERSON", "ORG"}, ""),
    ("淀川で本種の生息が再発見されたのはいつでしたか?", "ja", "date", {"DATE", "TIME"}, ""),
    ("1879年のコレラによる死亡者は何人ですか?", "ja", "count", {"CARDINAL", "QUANTITY"}, "人"),
    ("卵のサイズはどれくらいですか?", "ja", "measure", {"QUANTITY", "CARDINAL", "DATE", "TIME", "PERCENT", "MONEY"}, ""),
    ("卵は何色ですか?", "ja", "色", set(), "色"),  # the head 色 has a fine type (Color_Other): named by it
    ("2002年ワールドカップ開催国は？", "ja", "国", {"GPE", "LOC", "FAC"}, ""),  # named by the known head, not プ開催国
    ("オペラ「魔笛」の作曲者は？", "ja", "者", {"PERSON"}, ""),
    ("マルセルはどこで洗礼を受けたか。", "ja", "place", {"GPE", "LOC", "FAC", "ORG"}, ""),
])
def test_answer_type(question, lang, name, labels, unit):
    t = answer_type(question, lang)
    assert (t.name, set(t.labels), t.unit) == (name, labels, unit)


@pytest.mark.parametrize("question, lang, options", [
    ("東京、大阪、名古屋の中で一番人口が多いのは？", "ja", ("東京", "大阪", "名古屋")),
    ("パンとご飯はどっちが好き？", "ja", ("パン", "ご飯")),
    ("2017年度の蔵書点数が多かったのは視聴覚資料と雑誌のどちらですか?", "ja",  # の before どちら is not an option's
     ("2017年度の蔵書点数が多かったのは視聴覚資料", "雑誌")),
    ("太郎と花子と、誰が年上ですか", "ja", ("太郎", "花子")),
    ("それは犬ですか、猫ですか？", "ja", ("それは犬", "猫")),
    ("それは犬ですか猫ですか", "ja", ("それは犬", "猫")),  # です before か is not an option's either
    ("赤か青か", "ja", ("赤", "青")),
    ("日本の首都はどこですか", "ja", ()),
    ("停止線と矢印のマークとでは、どちらが摩耗が進みやすいですか?", "ja", ("停止線", "矢印のマーク")),
    ("恭順策を実行に移した人物とは、勝海舟と誰?", "ja", ()),  # the topic's とは, then one name: not a choice
    ("「蛍の光」はもともとどこの民謡ですか？", "ja", ()),  # もともと is no list
    ("楽団員からはマーラーのどんな態度が嫌われたか", "ja", ()),  # nor か in から before a wh-word
    ("落語家とは落語家社会の中でようやく何とみなされる？", "ja", ()),
    ("にんじんとたまねぎのどちらが甘い？", "ja", ("にんじん", "たまねぎ")),  # options in hiragana stay
    ("Which is older, Rome or Athens?", "en", ("Rome", "Athens")),
    ("Who wrote Hamlet?", "en", ()),
])
def test_choice_options(question, lang, options):
    assert choices(question, lang) == options


def test_an_option_is_kept_by_its_end():
    from qa_baseline.answers.features import _units
    options = [_units(o, "ja") for o in choices("2017年度の蔵書点数が多かったのは視聴覚資料と雑誌のどちらですか?", "ja")]
    assert is_option("雑誌", options, "ja") and is_option("視聴覚資料", options, "ja")
    assert not is_option("蔵書点数", options, "ja")


def test_contained_in_question():
    assert contained("hale bopp", "When was the Hale-Bopp comet", "en")
    assert not contained("bopp comet x", "hale bopp comet", "en")
    assert contained("本種", "本種が指定された", "ja")
    assert not contained("ale bop", "hale bopp", "en")  # words, not characters
    assert not contained("種本", "本種が指定された", "ja") and contained("", "a", "en")


# --- candidates and features on hand-written passages -----------------------------------------------------------

def _passages(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [Passage(r.get("id") or r["doc_id"], r["title"], r.get("contents") or r["text"], 10.0 - i)
            for i, r in enumerate(rows)]


@pytest.fixture(scope="module")
def en():
    return Extractor("en")


def test_each_passage_is_parsed_once(en):
    ps = _passages("answers-corpus-en.jsonl")
    en.parse(ps)
    first = {p.docid: en.parser.cache[p.docid] for p in ps}
    en.candidates("Where was Fred Durst born?", ps)
    assert all(en.parser.cache[d] is first[d] for d in first) and len(en.parser.cache) == len(ps)


def test_english_candidates_merge_type_and_drop(en):
    ps = _passages("answers-corpus-en.jsonl")
    cands = en.candidates("Where was Fred Durst born?", ps)
    by_key = {c.key: c for c in cands}
    jax = by_key["jacksonville"]
    # in two passages: support is the sum of their weights (score / best score: 9/10 and 8/10)
    assert jax.features["support"] == pytest.approx(0.9 + 0.8)
    assert jax.features["type_match"] == 1.0 and "GPE" in jax.labels
    assert jax.docid == "fred-durst"  # the passage whose sentence matches the question best
    assert "fred durst" not in by_key and "durst" not in by_key  # contained in the question
    scored = scorers.ranked(cands, scorers.RuleScorer())
    assert scored[0][0].text == "Jacksonville"


def test_wide_counts_the_passages_whose_text_holds_a_candidate(en):
    """`wide`: log(1 + how many of the wide passages hold the candidate in their normalised text), whether or not
    they were parsed; without wide passages 0."""
    ps = _passages("answers-corpus-en.jsonl")
    durst = [p for p in ps if p.docid == "fred-durst"]
    by_key = {c.key: c for c in en.candidates("Where was Fred Durst born?", durst, wide=ps)}
    assert by_key["jacksonville"].features["wide"] == pytest.approx(math.log(3))  # fred-durst and limp-bizkit
    assert by_key["1970"].features["wide"] == pytest.approx(math.log(2))  # its own passage only
    assert all(c.features["wide"] == 0.0 for c in en.candidates("Where was Fred Durst born?", durst))


def test_stage_parses_the_first_passages_and_searches_the_wide_ones(en_corpus, monkeypatch):
    """The stage asks the retriever for WIDE hits, parses only the first PASSAGES and gives the candidates the
    text of all of them."""
    from qa_baseline.answers.stage import ExtractionStage
    from qa_baseline.core.config import corpus_config

    class Ranked:
        asked: list[int] = []

        def search(self, queries, k):
            self.asked.append(k)
            return [[("fred-durst", 3.0), ("limp-bizkit", 2.0), ("hale-bopp", 1.0)][:k] for _ in queries]

    stage = ExtractionStage(Ranked(), corpus_config(en_corpus), "en", passages=1, wide=3)
    passages, cands = stage.run(["Where was Fred Durst born?"], progress=False)
    assert Ranked.asked == [1, 3] and [p.docid for p in passages[0]] == ["fred-durst"]  # a search of their own
    assert stage.parses()["parsed"] + stage.parses()["loaded"] == 1  # the wide passages are never parsed
    assert {c.key: c for c in cands[0]}["jacksonville"].features["wide"] == pytest.approx(math.log(3))
    Ranked.asked.clear()
    _, cands = ExtractionStage(Ranked(), corpus_config(en_corpus), "en", passages=2).run(["Where was Fred Durst born?"],
                                                                                        progress=False)
    assert Ranked.asked == [2] and all(c.features["wide"] == 0.0 for c in cands[0])  # none by default: 0
    with pytest.raises(UserError, match="--wide"):
        ExtractionStage(Ranked(), corpus_config(en_corpus), "en", passages=2, wide=-1)


def test_only_runs_that_may_fit_a_learned_scorer_retrieve_wide_passages():
    """The rule never reads `wide`: a run that fits no learned scorer retrieves no wide passages."""
    from types import SimpleNamespace
    from qa_baseline.answers.stage import wide_for

    def run(train=None, folds=None, scorer="auto"):
        return SimpleNamespace(train=train, folds=folds, scorer=scorer, wide=50)
    assert wide_for(run(train="train.tsv")) == wide_for(run(folds=5)) == 50
    assert wide_for(run()) == wide_for(run(folds=5, scorer="rule")) == 0


def test_ceilings(en):
    ps = _passages("answers-corpus-en.jsonl")
    cands = en.candidates("What is the name of Durst 's group ?", ps)
    assert answer_in_passages(ps, [["Limp Bizkit"]]) == 1.0 and answer_in_candidates(cands, [["limp bizkit"]]) == 1.0
    assert answer_in_passages(ps, [["Oakland"]]) == 0.0


def test_pruned_candidates_answer_and_bound_as_all_of_them(en, monkeypatch):
    """A run that fits no model keeps each question's best few candidates by the rule (features.Best, only
    rule_inputs computed for the others): the same candidates with the same features as the first few of the
    rule's ranking of all of them, so the same answers, answer lists and ceilings, for every K."""
    from qa_baseline.answers.stage import keep_for
    from qa_baseline.answers.features import RULE_INPUTS, Best
    ps = _passages("answers-corpus-en.jsonl")
    question = "Where was Fred Durst born?"
    cands = en.candidates(question, ps)
    full = scorers.ranked(cands, scorers.RuleScorer())
    assert len(cands) > 2 and len({s for _, s in full}) < len(full)  # ties: kept in the order of all of them
    for k in range(len(cands) + 2):
        pruned = en.candidates(question, ps, keep=k)
        assert isinstance(pruned, Best) and list(pruned) == [c for c, _ in full[:k]]
        assert scorers.ranked(cands, scorers.RuleScorer(), k) == full[:k]  # the best K: the whole ranking's first K
        assert pruned.all_keys == {c.key for c in cands}
    middle = sorted(c.features["evidence"] for c in cands)[len(cands) // 2]
    for score in (lambda f: 0.0, lambda f: float(f["evidence"] > middle)):  # ties: by evidence, then first seen
        monkeypatch.setattr("qa_baseline.answers.rule_score", score)
        ranking = sorted(cands, key=lambda c: -score(c.features))  # stable: cands are by evidence, then first seen
        assert all(list(en.candidates(question, ps, keep=k)) == ranking[:k] for k in range(len(cands) + 1))
    monkeypatch.undo()
    pruned = en.candidates(question, ps, keep=2)
    model = scorers.AnswerModel(max_list=2)
    for lists in (False, True):
        everything, fscored, fp = model.decide(cands, k=2, lists=lists)
        kept, kscored, kp = model.decide(pruned, k=2, lists=lists)
        assert kept == everything and kscored == fscored[:2] and kp == fp
    last = full[-1][0]  # the rule's worst: not kept, still a candidate
    assert last not in pruned and answer_in_candidates(pruned, [[last.text]]) == 1.0
    assert answer_in_candidates(pruned, [["Oakland"]]) == answer_in_candidates(cands, [["Oakland"]]) == 0.0
    assert set(scorers.RULE_READS) <= set(RULE_INPUTS)  # the rule reads nothing a pruned run leaves out
    assert keep_for(None, None, None, 5) == 10 and keep_for(None, None, None, 20) == 20
    assert keep_for("t.tsv", None, None, 5) is None and keep_for(None, 5, None, 5) is None
    assert keep_for(None, None, "cross", 5) is None and keep_for(None, None, "e5", 5) is None
    assert keep_for(None, None, "none", 5) is not None


def test_no_answer_cues_negation_and_unnamed(en):
    """The cues of questions written to have no answer (SQuAD 2.0's): a negation the candidate's sentence lacks,
    a name or number of the question that no passage names (its 's and a sentence-initial capital aside), and
    the share of them that the candidate's sentence lacks."""
    from qa_baseline.answers.features import unnamed
    ps = _passages("answers-corpus-en.jsonl")

    def top(question):
        return {c.key: c.features for c in en.candidates(question, ps)}["jacksonville"]

    assert top("Where was Fred Durst born?")["negation"] == 0.0
    assert top("Where was Fred Durst not born?")["negation"] == 1.0  # no sentence on Durst negates
    assert top("Where wasn't Fred Durst born?")["negation"] == 1.0
    assert top("Where was Fred Durst born?")["unnamed"] == 0.0
    assert top("Where was Fred Durst born in 1971?")["unnamed"] == 1.0  # 1970 in the passage, not 1971
    assert top("Where was Fred Durst's band Limp Bizkit from?")["unnamed"] == 0.0
    assert top("Where was Fred Dean born?")["unnamed"] == 0.0  # both names occur, in other passages
    # unnamed_here: the share of those names missing from the candidate's own best sentence
    assert top("Where was Fred Durst born in 1970?")["unnamed_here"] == 0.0
    assert top("Where was Fred Durst born in 1971?")["unnamed_here"] == pytest.approx(1 / 3)
    assert top("Where was Fred Durst's band Limp Bizkit from?")["unnamed_here"] == 0.5  # no one sentence has all
    assert top("Where was he born?")["unnamed_here"] == 0.0  # nothing named
    assert unnamed("Where was Fred Dursst born?", ps, "en") and not unnamed("Where was he born?", ps, "en")
    ja = [Passage("d", "記念物", "イタセンパラは1974年に天然記念物に指定された。", 1.0)]
    assert not unnamed("イタセンパラが1974年に指定されたのは?", ja, "ja")
    assert unnamed("イタセンパラが1975年に指定されたのは?", ja, "ja") and not unnamed("誰が書いたか?", ja, "ja")
    assert not unnamed("イタセンパラが１９７４年に指定されたのは?", ja, "ja")  # full-width digits, NFKC


def test_a_candidate_naming_a_retrieved_article(en):
    """names_article: the weight of the best retrieved passage whose article the candidate names (the answer of
    many of NIILC's encyclopaedic questions is the article's subject), 0 for the others."""
    ps = _passages("answers-corpus-en.jsonl")
    feats = {c.key: c.features["names_article"] for c in en.candidates("Who sings in the group from Florida?", ps)}
    assert feats["limp bizkit"] == pytest.approx(0.9) and feats["fred durst"] == pytest.approx(0.8)
    assert feats["jacksonville"] == 0.0 and feats["1997"] == 0.0


def test_no_passage_no_candidate(en):
    assert en.candidates("Who founded Rome?", []) == []
    model = scorers.AnswerModel()
    assert model.decide([])[0] == []


def test_japanese_candidates():
    ja = Extractor("ja")
    ps = _passages("answers-corpus-ja.jsonl")
    top = [c.text for c, _ in scorers.ranked(ja.candidates("イタセンパラが天然記念物に指定されたのはいつですか?", ps),
                                             scorers.RuleScorer())]
    assert top[0] == "1974年6月"
    top = [c.text for c, _ in scorers.ranked(ja.candidates("「太陽の季節」を書いたのは誰ですか?", ps), scorers.RuleScorer())]
    assert top[0] == "石原慎太郎"


def test_japanese_span_boundary_features():
    """Which of two nested spans is the answer: `bracket` marks a span cut across a gloss (1904年(明治37年),
    `unit_end` the one ending with the unit a 何X question asks for (江西省, not 江西省貴渓市), `holds_type` a
    span holding a shorter mention of the expected type (李明博 holding the person 李: the recogniser cut the
    name short), none of them its parts."""
    ja = Extractor("ja")
    ps = [Passage("a", "赤沢銅山", "1904年(明治37年)には鉱山事務所など3ヵ所への電話敷設を行った。", 1.0),
          Passage("b", "竜虎山", "竜虎山は江西省貴渓市にある山である。", 0.9),
          Passage("c", "大統領", "李明博は韓国の大統領であった。", 0.8)]

    def features(question, name):
        return {c.text: c.features[name] for c in ja.candidates(question, ps)}

    bracket = features("電話敷設が行われたのはいつですか?", "bracket")
    assert bracket["1904年(明治37年"] == 1.0 and bracket["1904年"] == bracket["明治37年"] == 0.0
    unit_end = features("竜虎山は何省にあるの?", "unit_end")
    assert unit_end["江西省"] == 1.0 and unit_end["江西省貴渓市"] == 0.0
    holds = features("韓国の大統領は誰?", "holds_type")
    assert holds["李明博"] == 1.0 and holds["李"] == holds["明博"] == 0.0
    assert set(features("竜虎山はなぜ有名なのか?", "holds_type").values()) == {0.0}  # an untyped question


def test_featurise_gives_every_feature_once():
    """featurise gives each of FEATURES (Features puts them in order) and rule_inputs the same values of its own."""
    from qa_baseline.answers.features import FEATURES, RULE_INPUTS, Asked, Features, Gathered, featurise, rule_inputs
    c = Gathered(0)
    c.forms["Tokyo"] = c.mentions = 1
    c.labels.add("GPE")
    c.passages["d#1"] = (0.5, 1.0, 0)
    for lang, question in [("en", "Where is the capital?"), ("ja", "首都はどこ?")]:
        atype = answer_type(question, lang)
        text, f = featurise("tokyo", c, ("GPE",), atype, lang, set(), (), Asked(0.5, False, (), False))
        assert text == "Tokyo" and sorted(f) == sorted(FEATURES) and f["type_match"] == 1.0 and f["evidence"] == 0.5
        assert list(Features(f).row) == [f[k] for k in FEATURES]
        text, r = rule_inputs("tokyo", c, ("GPE",), atype, lang, set(), ())
        assert text == "Tokyo" and tuple(r) == RULE_INPUTS and r == {k: f[k] for k in RULE_INPUTS}


def test_question_character_bigrams_in_the_candidates_sentence():
    """`bigrams` (Japanese): the share of the question's character bigrams (not both hiragana) in the sentence of
    the candidate's mention: 竜虎 虎山 山は of 竜虎 虎山 山は は何 何省 省に; 0 for a sentence sharing none, and in English."""
    from qa_baseline.answers.features import _bigrams
    assert _bigrams("竜虎山は何省にあるの?") == {"竜虎", "虎山", "山は", "は何", "何省", "省に"}
    ps = [Passage("a", "赤沢銅山", "1904年(明治37年)には鉱山事務所など3ヵ所への電話敷設を行った。", 1.0),
          Passage("b", "竜虎山", "竜虎山は江西省貴渓市にある山である。", 0.9)]
    found = {c.text: c.features["bigrams"] for c in Extractor("ja").candidates("竜虎山は何省にあるの?", ps)}
    assert found["江西省"] == 0.5 and found["1904年"] == 0.0
    from qa_baseline.answers.features import _alnum, _share
    for q, sentence in [("竜虎山は何省にあるの?", "竜虎山は江西省貴渓市にある山である。"), ("東京都の人口は?", "東京 都・人口"),
                        ("ＡＢＣ社は何年?", "abc社は1990年に")]:  # a bigram across a space or a mark, NFKC, lower case
        assert _share(_bigrams(q), _alnum(sentence)) == len(_bigrams(q) & _bigrams(sentence)) / len(_bigrams(q)) > 0
    en = {c.text: c.features["bigrams"] for c in Extractor("en").candidates("Where was Fred Durst born?",
                                                                            _passages("answers-corpus-en.jsonl"))}
    assert set(en.values()) == {0.0}


def _ja_mentions(text):
    """The mentions of every sentence of a Japanese TEXT, parsed by GiNZA, in order."""
    from qa_baseline.answers import spacy_models
    from qa_baseline.answers.mentions import sentence_mentions
    return [m for sent in spacy_models.load("ja")(text).sents for m in sentence_mentions(sent, "ja")]


def test_japanese_country_of_a_nationality_language_or_product():
    """GiNZA keeps イギリス人 / イタリア語 / 日本製 as one token: the country alone is a mention too (どの国), beside the
    entity; a province (東京都民) or an unlabelled word (ラテン語) gives none."""
    mentions = _ja_mentions("カーターはイギリス人の技術者で、イタリア語を話し、日本製の車に乗り、東京都民とラテン語を学んだ。")
    countries = [(m.text, m.label, m.fine) for m in mentions if m.fine == "Country"]
    assert [c for c in countries if c[0] in ("イギリス", "イタリア", "日本")] == [
        ("イギリス", "GPE", "Country"), ("イタリア", "GPE", "Country"), ("日本", "GPE", "Country")]
    assert {"イギリス人", "イタリア語", "日本製"} <= {m.text for m in mentions}  # the entities stay
    assert not {"東京都", "ラテン"} & {m.text for m in mentions}


@pytest.mark.parametrize("text, gained", [
    ("中国で「鮭」はフグを指し、首都をヴィエンチャンに移した。", {"フグ", "ヴィエンチャン"}),  # nouns GiNZA tags PRON, VERB
    ("4人のドイツ兵が死亡し、1人が重傷を負った。", {"死亡"}),  # a verbal noun used as a verb (死亡し)
    ("律動（りつどう）と訳される。", {"律動"}),  # one token with its reading
    ("漢学者三善清行の『意見十二箇条』には", {"三善清行"}),  # a common noun before a proper noun GiNZA tags NOUN
    ("第二次世界大戦中に行われた。", {"第二次世界大戦"}),  # without its noun suffix
    ("麻疹・水痘・結核は伝染する。", {"麻疹", "水痘", "結核"}),  # a list of kanji words joined by middle dots
    ("文はプロパティと値で構成されている。", {"プロパティと値"}),  # two coordinated words
    ("世界初の実用的電話の発明で知られている。", {"世界初の実用的電話の発明"}),  # three words joined by の
])
def test_japanese_mentions_gold_answers_needed(text, gained):
    """Spans that were gold answers of ja-task1-dev in the retrieved passages but no candidate; a katakana name
    joined by a middle dot stays whole (ユーリ・ガガーリン, no ユーリ)."""
    assert gained <= {m.text for m in _ja_mentions(text)}
    assert "ユーリ" not in {m.text for m in _ja_mentions("ユーリ・ガガーリンは飛んだ。")}


@pytest.mark.parametrize("text, parts", [
    ("東京都渋谷区千駄ヶ谷", [("東京都", "Province"), ("渋谷区", "City")]),
    ("大阪府三島郡豊川村大字宿久庄", [("大阪府", "Province"), ("三島郡", "County"), ("豊川村", "City")]),
    ("京都府京都市左京区", [("京都府", "Province"), ("京都市", "City"), ("左京区", "City")]),
    ("千葉県市川市", [("千葉県", "Province"), ("市川市", "City")]),
    ("東京都", []),  # a prefecture alone is an entity already
    ("都市計画区域", []),  # no prefecture first: not an address
])
def test_japanese_address_parts(text, parts):
    from qa_baseline.answers.mentions import _address_parts
    assert _address_parts(text) == parts


def test_japanese_address_token_gives_its_parts():
    """GiNZA leaves 東京都渋谷区千駄ヶ谷 one token with no entity: its prefecture and ward are mentions (何区)."""
    found = {(m.text, m.label, m.fine) for m in _ja_mentions("日本共産党本部ビルは東京都渋谷区千駄ヶ谷4丁目26-7にある。")}
    assert {("東京都", "GPE", "Province"), ("渋谷区", "GPE", "City")} <= found


def test_neural_e5_evidence_japanese():
    """`--neural e5`: multilingual-e5-small's cosine of (question, the candidate's sentence), set on each
    question's best TOP candidates only; the sentence that answers the question scores above the others."""
    from qa_baseline.answers import neural
    from qa_baseline.encoders import load_encoder
    question = "「太陽の季節」を書いたのは誰ですか?"
    cands = [c for c, _ in scorers.ranked(Extractor("ja").candidates(question, _passages("answers-corpus-ja.jsonl")),
                                         scorers.RuleScorer())]
    top = len(cands) - 2
    neural.add("e5", [question], [cands], top=top, progress=False)
    scored, rest = cands[:top], cands[top:]
    assert all(c.features["neural_scored"] == 1.0 for c in scored if c.sentence) and rest
    assert all(c.features["neural"] == c.features["neural_scored"] == 0.0 for c in rest)
    e5 = load_encoder(neural.E5)
    q, s = e5.encode([question], "query")[0], e5.encode([scored[0].sentence], "passage")[0]
    assert scored[0].features["neural"] == pytest.approx((1 + float(q @ s)) / 2, abs=1e-6)  # the cosine, in 0..1
    by_sentence = {c.sentence: c.features["neural"] for c in scored}
    answering = max(by_sentence, key=by_sentence.__getitem__)
    assert "石原慎太郎の小説" in answering and len(by_sentence) > 1
    neural.add("none", [question], [rest])  # nothing for none
    assert all(c.features["neural_scored"] == 0.0 for c in rest)


def test_missing_model_is_one_error_line():
    from qa_baseline.answers import spacy_models
    with pytest.raises(UserError, match="cannot be loaded.*pip install no_such_model_xyz"):
        spacy_models.load("en", "no_such_model_xyz")
    with pytest.raises(UserError, match="no language model for 'fr'"):
        spacy_models.load("fr")


# --- the answer model: learned scorer, has-answer threshold, list ratio ----------------------------------------

def _cand(text, **f):
    from qa_baseline.answers.features import FEATURES, Candidate
    from qa_baseline.scoring.metrics import normalize
    return Candidate(text, normalize(text), "d", ("NP",), {k: f.get(k, 0.0) for k in FEATURES})


def test_threshold_and_ratio_are_fitted():
    groups = []
    for i in range(20):
        strong = i % 2 == 0  # answered questions have a strong best candidate, the others a weak one
        e = 2.0 + i / 100 if strong else 0.2 + i / 100
        cands = [_cand(f"a{i}", evidence=e, support=1.0), _cand(f"b{i}", evidence=e * 0.95, support=1.0),
                 _cand(f"c{i}", evidence=e * 0.1, support=1.0)]
        groups.append((cands, [[f"a{i}"], [f"b{i}"]] if strong else []))
    model = scorers.AnswerModel.fit(groups, "f", lists=True, learn=False)
    assert model.ratio == 0.95  # the largest ratio with a and b (0.95 of the best) in, c (0.1) out
    answered = [bool(model.decide(c, lists=True)[0]) for c, _ in groups]
    assert answered == [bool(g) for _, g in groups]
    chosen = model.decide(groups[0][0], lists=True)[0]
    assert [c.text for c in chosen] == ["a0", "b0"]
    assert model.params()["has_answer_C"] == 1.0  # every C separates these held out: ties keep the largest


def test_has_answer_regularisation_is_chosen_on_held_out_folds():
    """60 questions, whether each has an answer shown by one feature (question_match, with overlap) beside 30
    features of noise: the least regularised model follows the noise; the C kept is the one of HAS_C whose
    models, fitted on 4 folds, decide the fifth best, and it decides them better than C = 1."""
    from functools import partial
    import numpy as np
    from qa_baseline.rankers import learning
    from qa_baseline.answers.features import FEATURES
    rng = np.random.default_rng(0)
    noise = [k for k in FEATURES if k not in ("evidence", "question_match")][:30]
    groups = []
    for i in range(60):
        has = i % 2 == 0
        f = {k: float(rng.normal(0, 1)) for k in noise}
        f["question_match"] = float(rng.normal(0.6 if has else 0.4, 0.15))
        groups.append(([_cand(f"a{i}", evidence=1.0, **f)], [[f"a{i}"]] if has else []))
    model = scorers.AnswerModel.fit(groups, "f", learn=False)
    scored = [scorers.ranked(c, model.scorer) for c, _ in groups]
    gain = [(float(bool(g)), float(not g)) for _, g in groups]
    items = [(scorers.top_vector(s), int(bool(g)), v) for s, (_, g), v in zip(scored, groups, gain)]
    held = {c: learning.heldout(items, 5, partial(scorers._has_answer, C=c), scorers._value) for c in scorers.HAS_C}
    assert model.has_c == max(scorers.HAS_C, key=lambda c: (held[c], c)) < 1.0
    assert held[model.has_c] > held[1.0]


def test_learned_scorer_sees_each_graded_feature_ranked_within_its_question():
    cands = [_cand("a", evidence=0.8, support=2.0, closeness=0.1), _cand("b", evidence=0.3, support=2.0, closeness=0.4),
             _cand("c", evidence=0.9, support=1.0, closeness=0.4)]
    X = scorers.matrix(cands)
    assert X.shape == (3, len(scorers.NAMES)) and X[0, 0] == 2.0  # vector(features) first
    rank = {k: [round(math.expm1(x)) for x in X[:, scorers.NAMES.index(f"rank_{k}")]]
            for k in ("evidence", "support", "closeness")}
    assert rank == {"evidence": [1, 2, 0], "support": [0, 1, 2], "closeness": [2, 0, 1]}  # ties in list order
    # the same evidence (0.8) ranks second among these three and first alone: ranks are within the question
    assert scorers.matrix(cands[:1])[0, scorers.NAMES.index("rank_evidence")] == 0.0


def test_learned_scorer_only_where_it_beats_the_rule():
    groups = []
    for i in range(30):  # the rule's evidence points at the wrong candidate; closeness at the right one
        cands = [_cand(f"w{i}", evidence=1.0 + i / 100, closeness=0.1),
                 _cand(f"r{i}", evidence=0.5 + i / 100, closeness=0.9)]
        groups.append((cands, [[f"r{i}"]]))
    scorer, cv = scorers.choose_scorer(groups, 5)
    assert scorer.name == "learned" and cv["logistic"] == 1.0 and cv["rule"] == 0.5
    flipped = [([c for c in cands], [[cands[0].text]]) for cands, _ in groups]
    assert scorers.choose_scorer(flipped, 5)[0].name == "rule"


# --- the pipelines, end to end on hand-written corpora ------------------------------------------------------------

@pytest.fixture(scope="module")
def en_corpus(index_root):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.dense import build_dense
    from qa_baseline.indexes.lucene import build_bm25
    path = os.path.join(FIXTURES, "answers-corpus-en.jsonl")
    build_bm25(corpus_config(path))
    build_dense(corpus_config(path), "bge-small")  # openqa-en's default retriever (configs/tasks/openqa-en.yaml)
    return path


@pytest.mark.parametrize("retriever", [None, "bm25"])
def test_openqa_end_to_end(en_corpus, tmp_path, retriever):
    """The task's default retriever (dense bge-small) and BM25. Question 4's words occur in no passage: BM25
    finds none and the question gets no answers; dense retrieval always finds its nearest passages, so without
    a fitted has-answer model (--train) it is answered."""
    out = tmp_path / "run"
    p = cli("run", "--task", "openqa-en", "--data", os.path.join(FIXTURES, "answers-openqa.xml"),
            "--corpus", en_corpus, "--out", str(out), "--trace", *(["--retriever", retriever] if retriever else []))
    assert p.returncode == 0, p.stderr
    lines = (out / "submission.txt").read_text(encoding="utf-8").splitlines()
    fields = [line.split("\t") for line in lines]
    silent = retriever == "bm25"
    assert [f[:3] for f in fields] == [["qa_baseline", "1", "True"], ["qa_baseline", "2", "True"],
                                       ["qa_baseline", "3", "True"], ["qa_baseline", "4", str(not silent)]]
    assert fields[1][4] == "Jacksonville" and fields[2][4] == "Limp Bizkit" and (fields[3][3] == "0") == silent
    row = json.loads((out / "row.json").read_text())
    assert row["retriever"] == (retriever or "dense") and row["settings"].get("encoder") == (None if silent else "bge-small")
    assert row["metrics"]["accuracy@1"] == pytest.approx(3 / 4)  # question 4 has no answer: right only when silent
    assert row["metrics"]["has_answer_accuracy"] == (1.0 if silent else 0.75)
    ceiling = row["observed"]["ceiling"]
    assert (ceiling["answer_in_passages"], ceiling["answer_in_candidates"]) == (1.0, 1.0)
    assert sum(t["missed"] for t in ceiling["missed_by_type"].values()) == 0  # the recall report: none missed
    assert set(row["observed"]["stage_seconds"]) == {"retrieval", "extraction"}
    assert row["settings"]["answer_model"] == "rule" and "ceiling" not in row["settings"]


def test_qac3_follow_ups_use_the_series(en_corpus, tmp_path):
    out = tmp_path / "run"
    p = cli("run", "--task", "qac-3", "--data", os.path.join(FIXTURES, "answers-qac-series.tsv"),
            "--corpus", en_corpus, "--out", str(out), "--trace")
    assert p.returncode == 0, p.stderr
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    assert trace[1]["query"] == "Where was he born? Who is the lead singer of Limp Bizkit?"
    top = trace[1]["candidates"][0]  # with the sentence it was found in, for error analysis
    assert (top["text"], top["sentence"]) == ("Jacksonville", "Fred Durst was born in Jacksonville, Florida, in 1970.")
    sub = [line.split("\t") for line in (out / "submission.txt").read_text(encoding="utf-8").splitlines()]
    assert sub[1][2] == "Jacksonville" and sub[2][2] == "1970"
    row = json.loads((out / "row.json").read_text())
    assert row["metrics"]["AFM"] == 1.0  # scored on the two follow-ups only
    assert row["questions"] == 2 and row["per_question"]["AFM"] == [1.0, 1.0]  # #Q: the questions scored


def test_qac2_japanese_corpus_file(index_root, tmp_path):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    corpus = os.path.join(FIXTURES, "answers-corpus-ja.jsonl")
    build_bm25(corpus_config(corpus, "ja"))  # Lucene's JapaneseAnalyzer
    out = tmp_path / "run"
    p = cli("run", "--task", "qac-2", "--data", os.path.join(FIXTURES, "answers-qac-ja.tsv"), "--corpus", corpus,
            "--lang", "ja", "--out", str(out))
    assert p.returncode == 0, p.stderr
    sub = [line.split("\t") for line in (out / "submission.txt").read_text(encoding="utf-8").splitlines()]
    assert sub[0][:4] == ["J1", "1", "1974年6月", "itasenpara"] and sub[1][2:4] == ["石原慎太郎", "taiyo"]
    assert sub[3] == ["J4", "0"]  # none of its words is in the corpus: no passage, an empty list
    # answering nothing scores 1 on each question without an answer (NTCIR's no-answer rule), 0 on the others
    rows = [line.split("\t") for line in Path(FIXTURES, "answers-qac-ja.tsv").read_text(encoding="utf-8").splitlines()][1:]
    row = json.loads((out / "row.json").read_text())
    assert row["observed"]["answer_nothing"] == sum(r[3] == "0" for r in rows) / len(rows)
    from qa_baseline.reporting import report
    panel, = report.panels(report.records(report.load_rows(str(out))))
    assert panel.references == [("answer nothing", row["observed"]["answer_nothing"])]  # the figure's line


def test_bad_input_is_one_line(tmp_path, en_corpus):
    bad = tmp_path / "bad.tsv"
    bad.write_text("qid\tquestion\nQ1\tWho?\textra\n", encoding="utf-8")
    p = cli("run", "--task", "qac-1", "--data", str(bad), "--corpus", en_corpus, "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and p.stderr.strip() == f"error: {bad}:2: expected 2 tab-separated fields as in " \
                                                      "the header, found 3"
    xml = tmp_path / "bomb.xml"
    xml.write_text('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaa">]>\n<QAPair id="1"><question>&a;'
                   '</question></QAPair>\n', encoding="utf-8")
    p = cli("run", "--task", "openqa-en", "--data", str(xml), "--corpus", en_corpus, "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "bomb.xml:2: DOCTYPE and entity declarations are not allowed" in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("options, message", [
    (["--folds", "3", "--train", "SERIES"], "--train and --folds do not go together: fit on a training file or "
                                            "cross-fit on --data"),
    (["--folds", "9"], "--folds needs 2 <= K <= the number of questions (3), not 9")])
def test_fitting_options_are_refused_before_any_parsing(en_corpus, tmp_path, options, message):
    series = os.path.join(FIXTURES, "answers-qac-series.tsv")
    p = cli("run", "--task", "qac-3", "--data", series, "--corpus", en_corpus, "--out", str(tmp_path / "o"),
            *[series if o == "SERIES" else o for o in options])
    assert p.returncode == 2 and p.stderr.strip() == f"error: {message}"  # one line, no parsing progress before it


# --- real data (../shared/data) --------------------------------------------------------------------------------

def test_real_qac_inputs(shared):
    from qa_baseline.tasks.qac.formats import read_questions
    series = read_questions(os.path.join(shared, "tasks", "qac", "task3-dev.tsv"))
    assert len(series) == 508 and series[2].prev == ["TREC2004-1.1", "TREC2004-1.2"]
    assert len({q.series for q in series}) == 114 and sum(1 for q in series if q.prev) == 394
    ja = read_questions(os.path.join(shared, "tasks", "qac", "ja-task1-dev.tsv"))
    assert len(ja) == 799
    typed = sum(1 for q in ja if answer_type(q.question, "ja").labels)
    assert 250 <= typed <= 400  # who/when/where/how many ... are typed, most 何 questions are not


def test_the_spacy_model_loads_without_torch_and_torch_stays_importable():
    """thinc imports PyTorch when it is installed (~200 MB of a parsing process); the CNN models need none of
    it, so spaCy is imported without it, and a later `import torch` (a cross-encoder) still works."""
    import subprocess
    import sys
    code = ("import sys\nfrom qa_baseline.answers import spacy_models\n"
            "nlp = spacy_models.load('en')\n"
            "assert [e.label_ for e in nlp('Fred Durst was born in Jacksonville.').ents]\n"
            "print('torch' in sys.modules)\nimport torch\nprint(torch.tensor([1.0, 2.0]).sum().item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "3.0"]


def test_remembered_rows_are_the_rows(en, monkeypatch):
    """Within scorers.remembered() a candidate list's rows are computed once and are the same numbers as
    outside it, for any first TOP; a list over REMEMBERED_ROWS is computed each time; nothing outlives it."""
    ps = _passages("answers-corpus-en.jsonl")
    a, b = en.candidates("Where was Fred Durst born?", ps), en.candidates("What is the name of Durst 's group ?", ps)
    plain = {(id(c), top): scorers.matrix(c, top) for c in (a, b) for top in (3, None, 1, 10_000)}  # a TOP first
    with scorers.remembered():
        for (i, top), rows in plain.items():
            got = scorers.matrix(a if i == id(a) else b, top)
            assert got.tobytes() == rows.tobytes() and got.shape == rows.shape
        assert np.shares_memory(scorers.matrix(a, 2), scorers.matrix(a))  # computed once
        assert not np.shares_memory(scorers.matrix(list(a)), scorers.matrix(a))  # another list: its own rows
        monkeypatch.setattr(scorers, "REMEMBERED_ROWS", 0)
        fresh = en.candidates("Where was Fred Durst born?", ps)
        assert not np.shares_memory(scorers.matrix(fresh), scorers.matrix(fresh))  # over the limit: each time
        assert scorers.matrix(fresh).tobytes() == plain[(id(a), None)].tobytes()
    assert scorers._remembered is None


def test_fitting_with_remembered_rows_fits_the_same_models(en, monkeypatch):
    """A learned scorer fitted and scoring within remembered() is the same model with the same scores as outside
    it, and fit_models (cross-fitted) the same whether rows are remembered or, with REMEMBERED_ROWS 0, not."""
    from qa_baseline.answers.stage import fit_models
    ps = _passages("answers-corpus-en.jsonl")
    asked = [("Where was Fred Durst born?", [["Jacksonville"]]), ("What is the name of Durst 's group ?", [["Limp Bizkit"]])]
    found = [(en.candidates(q, ps), gold) for q, gold in asked]
    groups = [(list(c), g) for _ in range(12) for c, g in found]
    monkeypatch.setattr(scorers, "TRAIN_TOP", 3)  # fewer than a list holds: fitting reads the first rows only
    outside = scorers.LearnedScorer.fit(groups)
    with scorers.remembered():
        inside = scorers.LearnedScorer.fit(groups)
        scores = [inside.score(c) for c, _ in groups]
    assert outside is not None and inside is not None
    assert np.array_equal(inside.model.coefficients(), outside.model.coefficients())
    assert scores == [outside.score(c) for c, _ in groups]

    def fitted():
        models, summary = fit_models([c for c, _ in groups], None, [g for _, g in groups], 2, "has_answer", False, 5)
        return summary, [m.decide(c) for m, (c, _) in zip(models, groups)]

    remembered = fitted()
    monkeypatch.setattr(scorers, "REMEMBERED_ROWS", 0)
    assert fitted() == remembered
