"""The MediaWiki XML dump reader: wikitext cleaning, page filtering, passage splitting, real dump slice."""
import bz2
import collections
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from qa_baseline.core.config import Source, corpus_config
from qa_baseline.core.errors import Problems, UserError
from qa_baseline.corpus import read_corpus, wikipedia
from qa_baseline.corpus.wikipedia import clean_wikitext

MARKUP = ("{{", "}}", "[[", "]]", "{|", "|}", "<ref", "</", "<!--", "'''", "&nbsp;", "==", "[http")


def read_all(src, policy="stop"):
    """(where, passage) of each passage of the source SRC ({"file", reader options}) and the problems met."""
    problems = Problems(policy)
    return list(wikipedia.read(Source("wikipedia", src["file"], **src), problems)), problems


def by_page(out):
    pages = collections.defaultdict(list)
    for (_, where), p in out:
        pages[where].append(p)
    return pages


# ---------------------------------------------------------------- clean_wikitext on hand-written snippets

def test_nested_templates_go_whole():
    assert clean_wikitext("A {{outer|x={{inner|y={{deep}}}}|z}} B {{solo}}C") == "A B C"


def test_file_link_with_links_in_its_caption_goes_whole():
    text = "[[File:Dog.jpg|thumb|A [[dog]] in a [[park|garden]] ([http://x.org source])]]Dogs bark."
    assert clean_wikitext(text) == "Dogs bark."
    assert clean_wikitext("[[Image:A.png|left]] [[Category:Dogs|*]]Woof.") == "Woof."


def test_tables_including_nested_ones():
    text = ('Before.\n{| class="wikitable"\n|-\n! Head\n|-\n| a || b\n|\n{|\n| nested\n|}\n|}\n'
            ':{| \n| indented table\n|}\nAfter.')
    assert clean_wikitext(text) == "Before.\n\nAfter."


def test_refs_with_templates_inside():
    text = ('Paris is big.<ref name="a">{{cite web|url=http://x.org|title={{lang|fr|T}}}}</ref> '
            'It is old.<ref name="a" /><REF>plain</REF>\n{{reflist}}\n<references/>')
    assert clean_wikitext(text) == "Paris is big. It is old."


def test_html_comment_spanning_lines():
    assert clean_wikitext("Alpha<!-- one\n\n{{two}}\n== three == -->beta gamma.") == "Alphabeta gamma."


def test_entities_and_html_tags():
    assert clean_wikitext("5&nbsp;km &ndash; far &amp; wide") == "5 km – far & wide"
    assert clean_wikitext("H<sub>2</sub>O<br/>is <span style='x'>water</span>.") == "H2O is water."
    assert clean_wikitext("x <math>a^2</math>y <gallery>\nA.jpg|cap\n</gallery>z.") == "x y z."


def test_interlanguage_links_dropped_but_colon_titles_kept():
    text = "Text about [[Star Trek: Voyager]].\n[[de:Hund]]\n[[zh-min-nan:Káu]]"
    assert clean_wikitext(text) == "Text about Star Trek: Voyager."


def test_links_quotes_lists_magic_words():
    assert clean_wikitext("__NOTOC__\n'''[[Dog]]s''' and ''[[Cat|cats]]'' of '''Ann''''s.") == "Dogs and cats of Ann's."
    assert clean_wikitext("See [http://x.org the site] and [https://y.org].") == "See the site and."
    assert clean_wikitext("Fruits:\n* apples\n*# pears\n; Term\n: definition") == \
        "Fruits: apples pears Term definition"


def test_inline_templates_keep_their_text():
    assert clean_wikitext("War (1775{{ndash}}1783) of {{convert|5|km|mi}}.") == "War (1775–1783) of 5 km."
    assert clean_wikitext("'''Aikido''' ({{nihongo|Aikido|合気道}}) or {{lang|fr|aïkido}}.") == \
        "Aikido (Aikido) or aïkido."
    assert clean_wikitext("'''Albedo''' ({{IPAc-en|æ|l}}, {{respell|al|BEE}}) is a ratio.") == \
        "Albedo is a ratio."


def test_headings_split_paragraphs_and_end_matter_sections_are_dropped():
    text = ("Intro line one\nstill intro.\n\nSecond paragraph.\n== History ==\nOld stuff.\n=== Sub ===\nMore.\n"
            "----\n\n== See also ==\n* [[Foo]]\n=== Nested under see also ===\nHidden.\n"
            "== Later section ==\nKept.\n==Notes and references==\n{{reflist}}\nGone.\n== external LINKS ==\nGone.")
    assert clean_wikitext(text).split("\n\n") == [
        "Intro line one still intro.", "Second paragraph.", "Old stuff.", "More.", "Kept."]


# ---------------------------------------------------------------- hand-written dumps

def page(pid, title, text, ns=0, redirect=None):
    red = f'<redirect title="{redirect}" />' if redirect else ""
    body = "<text />" if text is None else f'<text xml:space="preserve">{text}</text>'
    return (f"<page><title>{title}</title><ns>{ns}</ns><id>{pid}</id>{red}"
            f"<revision><id>{pid}0</id><model>wikitext</model>{body}</revision></page>\n")


ARTICLE = ("{{Infobox|name=X}}\n'''Fox''' is a small [[mammal]].&lt;ref&gt;{{cite|a}}&lt;/ref&gt;\n\n"
           "Foxes eat &lt;!-- not --&gt;mice and [[berry|berries]].\n== See also ==\n* [[Wolf]]\n")
PAGES = [page(1, "Fox", ARTICLE), page(2, "Foxes", "#REDIRECT [[Fox]]", redirect="Fox"),
         page(3, "Vixen", "#redirect [[Fox]] {{R from related word}}"),
         page(4, "Wikipedia:About", "This is a project page, not an article.", ns=4),
         page(5, "Dog", "The '''dog''' is a domesticated descendant of the wolf.\n\nDogs bark a lot, often at foxes.")]


def write_dump(path, pages, xmlns="http://www.mediawiki.org/xml/export-0.10/"):
    head = f'<mediawiki xmlns="{xmlns}" version="0.10">' if xmlns else "<mediawiki>"
    text = head + "<siteinfo><sitename>Wikipedia</sitename></siteinfo>\n" + "".join(pages) + "</mediawiki>\n"
    path.write_text(text, encoding="utf-8")
    return text


@pytest.mark.parametrize("xmlns", ["http://www.mediawiki.org/xml/export-0.10/",
                                   "http://www.mediawiki.org/xml/export-0.11/", ""])
def test_small_dump_keeps_articles_only(tmp_path, xmlns):
    path = tmp_path / "dump.xml"
    write_dump(path, PAGES, xmlns)
    out, _ = read_all({"file": str(path)})
    assert [(where, p["id"], p["title"]) for (_, where), p in out] == [
        ("page 1", "1-0", "Fox"), ("page 1", "1-1", "Fox"), ("page 5", "5-0", "Dog"), ("page 5", "5-1", "Dog")]
    assert out[0][1]["contents"] == "Fox is a small mammal."
    assert out[1][1]["contents"] == "Foxes eat mice and berries."
    assert all(w[0] == str(path) for w, _ in out)


def test_multistream_bz2_reads_like_the_plain_file(tmp_path):
    plain = tmp_path / "dump.xml"
    text = write_dump(plain, PAGES).encode("utf-8")
    cut = text.index(b"<page><title>Wikipedia:About")
    packed = tmp_path / "dump-multistream.xml.bz2"
    packed.write_bytes(bz2.compress(text[:cut]) + bz2.compress(text[cut:]))
    assert [p for _, p in read_all({"file": str(packed)})[0]] == [p for _, p in read_all({"file": str(plain)})[0]]


def test_words_mode_windows(tmp_path):
    path = tmp_path / "dump.xml"
    write_dump(path, PAGES)
    out, _ = read_all({"file": str(path), "split": "words", "words": 4, "min_chars": 0})
    assert [p["contents"] for _, p in out if p["title"] == "Fox"] == [
        "Fox is a small", "mammal. Foxes eat mice", "and berries."]
    assert [p["id"] for _, p in out if p["title"] == "Fox"] == ["1-0", "1-1", "1-2"]


def test_article_without_text_is_a_problem(tmp_path):
    path = tmp_path / "dump.xml"
    write_dump(path, [page(7, "Empty", None), PAGES[0]])
    with pytest.raises(UserError, match=r"dump\.xml:page 7: article 'Empty' has no text"):
        read_all({"file": str(path)})
    out, problems = read_all({"file": str(path)}, "skip")
    assert problems.count == 1 and [p["id"] for _, p in out] == ["1-0", "1-1"]


def test_bad_input_is_a_user_error(tmp_path):
    path = tmp_path / "dump.xml"
    write_dump(path, PAGES)
    with pytest.raises(UserError, match="unknown split"):
        read_all({"file": str(path), "split": "sentences"})
    with pytest.raises(UserError, match="no such file"):
        read_all({"file": str(tmp_path / "missing.xml")})
    path.write_text(path.read_text()[:-40], encoding="utf-8")  # truncated dump
    with pytest.raises(UserError, match="malformed XML"):
        read_all({"file": str(path)})


def test_read_corpus_uses_the_reader_and_prefix(tmp_path):
    path = tmp_path / "dump.xml"
    write_dump(path, PAGES)
    cfg = replace(corpus_config(str(path)), sources=(Source("wikipedia", str(path), str(path), id_prefix="enwiki:"),))
    assert [p["id"] for p in read_corpus(cfg, Problems())] == ["enwiki:1-0", "enwiki:1-1", "enwiki:5-0", "enwiki:5-1"]
    assert wikipedia.UNIQUE_IDS is True


# ---------------------------------------------------------------- the real dump slice

@pytest.fixture(scope="module")
def dump_slice(shared):
    return os.path.join(shared, "corpora", "en", "enwiki-pages-articles-slice.xml.bz2")


@pytest.fixture(scope="module")
def slice_pages(dump_slice):
    out, _ = read_all({"file": dump_slice})
    return by_page(out)


def test_slice_page_counts(dump_slice, slice_pages):
    # Independent count: 206 pages = 106 namespace-0 articles + 99 namespace-0 redirects + 1 redirect in
    # namespace 4 (Wikipedia:). Every article yields at least one passage, so 106 distinct page ids come out.
    tree = ET.parse(bz2.open(dump_slice, "rb")).getroot()
    ns = tree.tag[:tree.tag.index("}") + 1]
    pages = tree.findall(ns + "page")
    redirects = {p.findtext(ns + "title") for p in pages if p.find(ns + "redirect") is not None}
    articles = {p.findtext(ns + "id") for p in pages
                if p.findtext(ns + "ns") == "0" and p.find(ns + "redirect") is None}
    assert (len(pages), len(redirects), len(articles)) == (206, 100, 106)
    assert len(slice_pages) == 106
    assert {where.split()[1] for where in slice_pages} == articles
    titles = {p["title"] for ps in slice_pages.values() for p in ps}
    assert len(titles) == 106 and not titles & redirects


def test_slice_ids_are_consecutive_per_page(slice_pages):
    for where, ps in slice_pages.items():
        pid = where.split()[1]
        assert [p["id"] for p in ps] == [f"{pid}-{n}" for n in range(len(ps))]
        assert len({p["title"] for p in ps}) == 1


def test_slice_passages_carry_no_markup(slice_pages):
    for ps in slice_pages.values():
        for p in ps:
            left = [m for m in MARKUP if m in p["contents"]]
            assert not left, (p["id"], left, p["contents"][:300])
            assert len(p["contents"]) >= 20 and p["contents"] == p["contents"].strip()
            assert not re.search(r"\s{2}|\n", p["contents"])


def test_slice_known_facts(slice_pages):
    first = {ps[0]["title"]: ps[0]["contents"] for ps in slice_pages.values()}
    assert first["Anarchism"].startswith(
        "Anarchism is a political philosophy that advocates self-governed societies based on voluntary institutions.")
    assert first["Albert Einstein"].startswith(
        "Albert Einstein (14 March 1879 – 18 April 1955) was a German-born theoretical physicist.")
    assert first["American Revolutionary War"].startswith("The American Revolutionary War (1775–1783), also known as")
    assert "With a total area of about 106,400,000 km2" in first["Atlantic Ocean"]
    assert first["Aikido"].startswith("Aikido is a modern Japanese martial art developed by Morihei Ueshiba")
    albedo = " ".join(p["contents"] for p in slice_pages["page 39"])
    assert "Daisyworld" not in albedo  # listed only under ==See also==
    assert "Fresh asphalt" not in albedo  # a table cell


def test_slice_words_mode(dump_slice, slice_pages):
    n = 60
    out, _ = read_all({"file": dump_slice, "split": "words", "words": n, "min_chars": 0})
    pages = by_page(out)
    assert pages.keys() == slice_pages.keys()
    for where, ps in pages.items():
        sizes = [len(p["contents"].split()) for p in ps]
        assert all(s == n for s in sizes[:-1]) and 0 < sizes[-1] <= n, where
        assert [p["id"] for p in ps] == [f"{where.split()[1]}-{i}" for i in range(len(ps))]
    # the same words as the paragraph passages when nothing is dropped for being short
    paragraphs, _ = read_all({"file": dump_slice, "min_chars": 0})
    para_pages = by_page(paragraphs)
    for where in ("page 12", "page 39", "page 775"):
        assert " ".join(p["contents"] for p in pages[where]).split() == \
            " ".join(p["contents"] for p in para_pages[where]).split()
