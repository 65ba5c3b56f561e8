"""MediaWiki XML dumps (`pages-articles*.xml`, plain, .bz2 including multistream, or .gz), read as a stream.

Only namespace-0 articles are kept; redirects are skipped. Wikitext is turned into plain text by
`clean_wikitext` (regular expressions, no full parser) and cut into passages:
  split: paragraph (default)  one passage per paragraph; blank lines and section headings end a paragraph
         words                the article's text cut into windows of `words` words (default 100)
  min_chars (default 20)      shorter passages are dropped
Passage ids are `{page_id}-{n}`, n counting an article's passages from 0, like the `pageid-n` ids of the
pre-extracted Wikipedia JSON-lines corpora; page ids are unique in a dump, so these ids are too (UNIQUE_IDS).
The title is its own field, not prepended to the text."""
from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from ..core.config import Source
from ..core.errors import Problems, UserError
from ..core.textio import READ_ERRORS, open_binary
from . import Passage, Where, cut, split_settings

UNIQUE_IDS = True

_DROP_TAGS = "ref|references|gallery|math|chem|ce|timeline|imagemap|score|syntaxhighlight|source|templatedata"
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_EMPTY_TAG = re.compile(rf"<(?:{_DROP_TAGS})\b[^>]*/>", re.I)
_TAG_BLOCK = re.compile(rf"<({_DROP_TAGS})\b[^>]*>.*?</\1\s*>", re.I | re.S)
# the few inline templates whose text matters (innermost only); every other template is dropped whole
_SYMBOLS = {"ndash": "–", "mdash": "—", "mdashb": "—", "snd": " – ", "spaced ndash": " – ", "nbsp": " ",
            "'": "'", "'s": "'s"}
_INLINE_TEMPLATE = re.compile(r"\{\{\s*(convert|cvt|lang|lang-[\w-]+|transl|nihongo|nowrap|small|smaller|"
                              + "|".join(map(re.escape, _SYMBOLS)) + r")\s*((?:\|[^{}]*)?)\}\}", re.I)
_TEMPLATE_TOKEN = re.compile(r"\{\{|\}\}")
_TABLE_TOKEN = re.compile(r"^[ \t:]*\{\||^[ \t]*\|\}", re.M)
_EXT_LINK = re.compile(r"\[(?:(?:https?|ftp|mailto|news):|//)[^\s\]]*[ \t]*([^\]\n]*)\]", re.I)
# innermost [[...]]: no "[[" or "]]" inside (single brackets allowed); unrolled (plain* (bracket plain*)*): one way
# to match, so no runaway backtracking, without the possessive quantifiers that Python 3.10 lacks
_LINK = re.compile(r"\[\[([^\[\]]*(?:(?:\[(?!\[)|\](?!\]))[^\[\]]*)*)\]\]")
_MEDIA_NS = re.compile(r"\s*(?:file|image|category)\s*:", re.I)
_LANG_NS = re.compile(r"[a-z]{2,3}(?:-[a-z]+)*:")  # interlanguage links [[de:Foo]] never have a label
# unmatched link brackets, bold/italic quotes ('''Ann''''s keeps its apostrophe), magic words (__NOTOC__)
_LEFTOVER = re.compile(r"\[\[|\]\]|'''''|'''|''|__[A-Z]+__")
_BR = re.compile(r"<br\s*/?>", re.I)
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
_SPACES = re.compile(r"[^\S\n]+")
_HEADING = re.compile(r"(=+)\s*(.*?)\s*(=+)\s*$")
_LIST = re.compile(r"^[*#:;]+\s*")
# residue of removed templates and refs: "( , born 1900,)" -> "(born 1900)", "X () is" -> "X is"
_PUNCT_FIX = re.compile(r"(?<=\()[\s,;:]+|\s+(?=[,.;:!?)])|[,;:]+(?=\s*[,;.)])")
_EMPTY_PARENS = re.compile(r"\s*\(\s*\)")
_WORD = re.compile(r"\w")
_AND = re.compile(r"\s*(?:,|&|\band\b)\s*")
_DROP_SECTIONS = {s.rstrip("s") for s in (
    "references", "external links", "see also", "further reading", "notes", "bibliography", "sources",
    "footnotes", "citations", "works cited")}


def _drop_nested(text, token_re, opener):
    """Remove every balanced opener...closer span (nested ones too); unmatched tokens alone are removed."""
    spans, stack = [], []
    for m in token_re.finditer(text):
        if m.group().lstrip(" \t:").startswith(opener):
            stack.append(m.start())
        else:
            spans.append((stack.pop() if stack else m.start(), m.end()))
    spans += [(s, s + len(opener)) for s in stack]
    out, pos = [], 0
    for s, e in sorted(spans):
        if s > pos:
            out.append(text[pos:s])
        pos = max(pos, e)
    out.append(text[pos:])
    return "".join(out)


def _inline(m):
    name, args = m[1].lower(), [a.strip() for a in m[2].split("|")[1:] if "=" not in a]
    if name in ("convert", "cvt"):  # {{convert|5|km|mi}} -> 5 km; {{convert|5|to|10|km}} -> 5 to 10 km
        return " ".join(args[:4] if args[1:2] and args[1] in ("to", "-", "–", "and", "or") else args[:2])
    if name in ("lang", "transl"):  # {{lang|fr|texte}}
        return args[1] if len(args) > 1 else ""
    return _SYMBOLS.get(name) or (args[0] if args else "")


def _link(m):
    target, bar, label = m.group(1).partition("|")
    if not target.startswith(":") and (_MEDIA_NS.match(target) or (not bar and _LANG_NS.match(target))):
        return ""  # images, categories, interlanguage links: not article text
    return label if bar and label.strip() else target.lstrip(":")


def _dropped_section(title):
    return all(part.rstrip("s") in _DROP_SECTIONS for part in _AND.split(title.lower()) if part)


def clean_wikitext(text: str) -> str:
    """Wikitext -> plain text: one paragraph per line group, paragraphs separated by a blank line.

    Headings end a paragraph and are not kept; References/See also/... sections are dropped whole."""
    text = _COMMENT.sub("", text)
    text = _TAG_BLOCK.sub("", _EMPTY_TAG.sub("", text))
    text = _EXT_LINK.sub(r"\1", text)
    n = 1
    while n:  # innermost links first, so that a File link whose caption holds links goes whole
        text, n = _LINK.subn(_link, text)
    if "{{" in text or "}}" in text:
        text = _drop_nested(_INLINE_TEMPLATE.sub(_inline, text), _TEMPLATE_TOKEN, "{{")
    if "{|" in text:
        text = _drop_nested(text, _TABLE_TOKEN, "{|")
    text = _LEFTOVER.sub("", text)
    text = _HTML_TAG.sub("", _BR.sub(" ", text))
    text = _SPACES.sub(" ", html.unescape(text))
    paragraphs: list[str] = []
    para: list[str] = []
    skip_level = 0
    for line in text.split("\n"):
        h = _HEADING.match(line) if line.startswith("=") else None
        if h:
            level = min(len(h[1]), len(h[3]))
            if not skip_level or level <= skip_level:
                skip_level = level if _dropped_section(h[2]) else 0
        elif not skip_level:
            line = _LIST.sub("", line.strip())
            if _WORD.search(line):
                para.append(line)
                continue
        if para:  # a heading, or a line left without words, ends the paragraph
            paragraphs.append(" ".join(para))
            para = []
    if para:
        paragraphs.append(" ".join(para))
    return "\n\n".join(_SPACES.sub(" ", _EMPTY_PARENS.sub("", _PUNCT_FIX.sub("", p))).strip() for p in paragraphs)


def read(src: Source, problems: Problems) -> Iterator[tuple[Where, Passage]]:
    path = src.file
    split, words, min_chars = split_settings(src, ("paragraph", "words"))
    with open_binary(path) as f:
        try:
            events = ET.iterparse(f, events=("start", "end"))
            root = next(events)[1]
            ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
            for event, page in events:
                if event != "end" or page.tag != ns + "page":
                    continue
                yield from _page(page, ns, path, split, words, min_chars, problems)
                root.clear()  # drops this page (and everything before it): memory stays flat
        except ET.ParseError as e:
            raise UserError(f"{path}: malformed XML dump ({e})") from None
        except READ_ERRORS as e:
            raise UserError(f"{path}: cannot read the dump ({e})") from None


def _page(page, ns, path, split, words, min_chars, problems):
    if (page.findtext(ns + "ns") or "0").strip() != "0" or page.find(ns + "redirect") is not None:
        return
    title, page_id = (page.findtext(ns + "title") or "").strip(), (page.findtext(ns + "id") or "").strip()
    revisions = page.findall(ns + "revision")
    text = revisions[-1].findtext(ns + "text") if revisions else None
    if not page_id:
        problems.report(path, f"page titled {title!r}", "page without an id")
    elif not text or not text.strip():
        problems.report(path, f"page {page_id}", f"article {title!r} has no text")
    elif text.lstrip()[:9].upper() != "#REDIRECT":
        where = (path, f"page {page_id}")
        for n, passage in enumerate(cut(clean_wikitext(text).split("\n\n"), split, words, min_chars)):
            yield where, {"id": f"{page_id}-{n}", "title": title, "contents": passage}
