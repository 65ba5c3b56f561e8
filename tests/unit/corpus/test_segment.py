"""Segmentation of documents into passages (qa_baseline/corpus/segment.py): sentences (English, Japanese),
windows with overlap, `DOCID#k` ids through read_corpus, the setting's checks, the support document of a passage
in a QAC submission, and passage scores aggregated to documents."""
import json
import os
from dataclasses import replace

import pytest

from qa_baseline.core.config import CorpusConfig, Source
from qa_baseline.core.errors import Problems, UserError
from qa_baseline.corpus import cut, read_corpus
from qa_baseline.corpus import segment as seg
from qa_baseline.scoring.validate import Errors
from qa_baseline.tasks.qac import formats as qac


def cfg_of(path, **source):
    return CorpusConfig("t", "ja", (Source("jsonl", str(path), str(path), **source),), "ja", "t", "--corpus t")


# --- sentences --------------------------------------------------------------------------------------------------

def test_english_sentences_keep_abbreviations_initials_and_decimals():
    text = ('Mr. Smith went to Washington D.C. in 1990. He met J. F. Kennedy there!  Was it 3.5 km? "Yes." '
            'The U.S. Army agreed.\nA new line ends one too')
    assert seg.sentences(text) == ["Mr. Smith went to Washington D.C. in 1990.", "He met J. F. Kennedy there!",
                                   "Was it 3.5 km?", '"Yes."', "The U.S. Army agreed.", "A new line ends one too"]
    assert seg.sentences("lower case after a stop. does not end it. Upper Case does.") == [
        "lower case after a stop. does not end it.", "Upper Case does."]


def test_japanese_sentences_end_at_maru_and_marks_but_not_inside_a_quoted_clause():
    text = "東京は日本の首都である。人口は約1400万人！本当か？「そうだ。」と彼は言った。「違う。」彼女は答えた。"
    assert seg.sentences(text) == ["東京は日本の首都である。", "人口は約1400万人！", "本当か？",
                                   "「そうだ。」と彼は言った。", "「違う。」", "彼女は答えた。"]
    assert seg.sentence_spans("  一文。 二文。") == [(2, 5), (6, 9)]  # white space around a sentence is left out
    assert seg.sentences("") == [] and seg.sentences("終わりのない文") == ["終わりのない文"]


# --- windows and passages -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, size, stride, expected", [
    (7, 3, 2, [(0, 3), (2, 5), (4, 7)]), (6, 3, 2, [(0, 3), (2, 5), (4, 6)]), (3, 3, 2, [(0, 3)]),
    (1, 3, 2, [(0, 1)]), (0, 3, 2, []), (5, 2, 2, [(0, 2), (2, 4), (4, 5)]), (4, 4, 1, [(0, 4)])])
def test_windows(n, size, stride, expected):
    assert seg.windows(n, size, stride) == expected


def test_cut_in_words_is_windows_of_words():
    assert cut(["a b c", "d e"], "words", 2, 1) == ["a b", "c d", "e"]


def test_a_document_becomes_overlapping_passages_with_ids_docid_k():
    doc = {"id": "d1", "title": "T", "contents": "一。二。三。四。五。"}
    assert seg.segment(doc, 3, 2) == [{"id": "d1#0", "title": "T", "contents": "一。二。三。"},
                                      {"id": "d1#1", "title": "T", "contents": "三。四。五。"}]
    assert seg.segment({"id": "d2", "title": "", "contents": "One. Two."}, 3, 2) == [
        {"id": "d2#0", "title": "", "contents": "One. Two."}]  # short documents are one passage, still #0
    # a passage is its span of the text as written (the space between the sentences kept)
    assert seg.segment({"id": "e", "title": "", "contents": "A b. C d. E f."}, 2, 1)[1]["contents"] == "C d. E f."


def test_read_corpus_segments_a_source_with_segment(tmp_path):
    path = tmp_path / "docs.jsonl"
    docs = [{"doc_id": "a", "title": "A", "text": "一。二。三。四。"}, {"doc_id": "b", "text": "短い。"},
            {"doc_id": "a", "text": "重複。"}]
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    problems = Problems("skip")
    got = list(read_corpus(cfg_of(path, segment={"sentences": 2}, id_prefix="x:"), problems))
    # stride defaults to half the window (rounded up): 1 for 2 sentences
    assert [(p["id"], p["title"], p["contents"]) for p in got] == [
        ("x:a#0", "A", "一。二。"), ("x:a#1", "A", "二。三。"), ("x:a#2", "A", "三。四。"), ("x:b#0", "", "短い。")]
    assert problems.count == 1  # the duplicate document id is still caught, before segmentation
    assert [p["id"] for p in read_corpus(cfg_of(path), Problems("skip"))] == ["a", "b"]  # off by default


def test_an_unsegmented_id_that_reads_as_a_passage_id_is_a_problem(tmp_path):
    """Beside a segmented source, an unsegmented document `a#0` would collide with segmented `a`'s first
    passage and be taken for a passage of document `a`: reported with its line, skipped."""
    seg_path, plain = tmp_path / "docs.jsonl", tmp_path / "plain.jsonl"
    seg_path.write_text(json.dumps({"doc_id": "a", "text": "一。二。"}) + "\n", encoding="utf-8")
    plain.write_text("".join(json.dumps({"doc_id": i, "text": t}) + "\n" for i, t in (("a#0", "別。"), ("c#x", "可。"))),
                     encoding="utf-8")
    cfg = cfg_of(seg_path, segment={"sentences": 2})
    cfg = replace(cfg, sources=(*cfg.sources, Source("jsonl", str(plain), str(plain))))
    problems = Problems("skip")
    assert [p["id"] for p in read_corpus(cfg, problems)] == ["a#0", "c#x"]  # a's passage, and c#x (no #k)
    assert problems.count == 1
    with pytest.raises(UserError) as e:
        list(read_corpus(cfg, Problems("stop")))
    assert str(e.value).startswith(f"{plain}:1: id 'a#0' ends like a passage of a segmented source (DOCID#k)")
    assert "(fix: rename the id, or segment this source too)" in str(e.value)
    cfg = replace(cfg, sources=(replace(cfg.sources[0], segment=None), cfg.sources[1]))  # none segmented: plain ids
    assert [p["id"] for p in read_corpus(cfg, Problems("stop"))] == ["a", "a#0", "c#x"]


@pytest.mark.parametrize("value, message", [
    ({"stride": 2}, "segment must name sentences"), ("yes", "segment must name sentences"),
    ({"sentences": 3, "overlap": 1}, "segment must name sentences"),
    ({"sentences": 2, "stride": 3}, "1 <= stride <= sentences"), ({"sentences": 0}, "1 <= stride <= sentences"),
    ({"sentences": "3"}, "not whole numbers"), ({"sentences": True}, "not whole numbers")])
def test_bad_segment_settings_are_one_line(tmp_path, value, message):
    with pytest.raises(UserError, match=message) as e:
        seg.settings(Source("jsonl", "docs.jsonl", "/d/docs.jsonl", segment=value))
    assert str(e.value).startswith("/d/docs.jsonl: segment") and "(fix: " in str(e.value)


def test_settings_defaults():
    def of(segment):
        return seg.settings(Source("jsonl", "f", "f", segment=segment))

    assert of(None) is None and of(False) is None
    assert of({"sentences": 3}) == (3, 2)
    assert of({"sentences": 10}) == (10, 5)  # Anserini's MS MARCO v2.1
    assert of({"sentences": 1}) == (1, 1)


# --- documents of passages ------------------------------------------------------------------------------------

def test_document_id_strips_k_only_in_a_segmented_corpus():
    on, off = cfg_of("f", segment={"sentences": 3, "stride": 2}), cfg_of("f")
    assert seg.document_id("JSQUAD-a1p0#12", on) == "JSQUAD-a1p0"
    assert seg.document_id("a#b#3", on) == "a#b"  # only the last #k
    assert seg.document_id("JSQUAD-a1p0#12", off) == "JSQUAD-a1p0#12"  # an unsegmented corpus's ids as they are
    assert seg.document_id("", on) == ""  # an answer without a document


def test_best_passages_aggregate_to_documents_by_their_best_passage():
    on = cfg_of("f", segment={"sentences": 3})
    hits = [("a#1", 9.0), ("b#0", 7.0), ("a#0", 8.0), ("c#2", 7.0), ("b#3", 1.0), ("d#0", 0.5)]
    assert seg.best_passages(hits, on) == [("a", 9.0), ("b", 7.0), ("c", 7.0), ("d", 0.5)]
    assert seg.best_passages(hits, on, k=2) == [("a", 9.0), ("b", 7.0)]
    assert seg.best_passages([("b#0", 1.0), ("a#0", 2.0)], on) == [("a", 2.0), ("b", 1.0)]  # by score
    assert seg.best_passages(hits[:2], cfg_of("f")) == hits[:2]  # unsegmented: the passages are the documents


def test_qac_submission_names_the_passages_document(tmp_path):
    """A QAC answer supported by passage DOC#k is submitted with DOC, which the QAC-2 rule (MRR_supported) checks
    against the gold documents."""
    gold_path = tmp_path / "gold.tsv"
    gold_path.write_text('qid\tquestion\tanswers_json\thas_answer\tgold_doc_ids_json\n'
                         'Q1\tいつ?\t[["1974年"]]\t1\t["itasenpara"]\n', encoding="utf-8")
    gold = qac.read_gold(str(gold_path))
    on = cfg_of("f", segment={"sentences": 3, "stride": 2})
    chosen = [("1956年", "taiyo#0"), ("1974年", "itasenpara#2")]  # (answer, the passage that supports it)
    for mapped, supported in ((True, 0.5), (False, 0.0)):
        sub = tmp_path / f"sub-{mapped}.txt"
        qac.write_submission(str(sub), {"Q1": [(a, seg.document_id(p, on) if mapped else p) for a, p in chosen]})
        if mapped:
            assert sub.read_text(encoding="utf-8") == "Q1\t2\t1956年\ttaiyo\t1974年\titasenpara\n"
        errors = Errors()
        metrics = qac.score(gold, qac.read_submission(str(sub), gold, errors))["metrics"]
        assert not errors
        assert metrics == {"MRR": 0.5, "MRR_supported": supported}


def test_the_ja_qac_config_segments_or_not_as_measured():
    from qa_baseline.core.config import corpus_config
    for name in ("ja-qac", "vital-en", "enwiki-slice"):
        cfg = corpus_config(name)
        assert seg.segmented(cfg) is (name in SEGMENTED), name


SEGMENTED: set[str] = set()  # corpus configs that segment (Wikipedia and ja-qac's paragraphs: off, see README)


def test_fixture_corpus_file_is_not_segmented():
    from qa_baseline import ROOT
    from qa_baseline.core.config import corpus_config
    cfg = corpus_config(os.path.join(ROOT, "tests", "fixtures", "answers-corpus-ja.jsonl"), "ja")
    assert not seg.segmented(cfg) and seg.document_id("taiyo", cfg) == "taiyo"
