"""JSON-lines corpora (plain or .gz): Baike-style dumps, pre-extracted Wikipedia, any `{id, title, text}` file.

Field names are configurable per source (id_field, title_field, text_field); by default the first present of
id/doc_id/docid, contents/text/body, and title."""
from __future__ import annotations

import json
from collections.abc import Iterator

from ..core.config import Source
from ..core.errors import Problems
from ..core.textio import text_lines
from . import Passage, Where

ID_FIELDS = ("id", "doc_id", "docid")
TEXT_FIELDS = ("contents", "text", "body")


def _pick(record, configured, candidates):
    if configured:
        return record.get(configured)
    for name in candidates:
        if name in record:
            return record[name]
    return None


def read(src: Source, problems: Problems) -> Iterator[tuple[Where, Passage]]:
    path = src.file
    id_f, text_f, title_f = src.id_field, src.text_field, "title" if src.title_field is None else src.title_field
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        where = (path, lineno)
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            problems.report(*where, f"invalid JSON ({e.msg} at column {e.colno})")
            continue
        if not isinstance(rec, dict):
            problems.report(*where, "a record must be a JSON object")
            continue
        pid = _pick(rec, id_f, ID_FIELDS)
        text = _pick(rec, text_f, TEXT_FIELDS)
        if pid is None or str(pid).strip() == "":
            problems.report(*where, f"empty or missing id (fields tried: {id_f or '/'.join(ID_FIELDS)})")
            continue
        if not isinstance(text, str) or not text.strip():
            problems.report(*where, f"missing or empty text (fields tried: {text_f or '/'.join(TEXT_FIELDS)})")
            continue
        title = rec.get(title_f) or ""
        yield where, {"id": str(pid).strip(), "title": str(title).strip(), "contents": text.strip()}
