"""Parquet corpora: one Parquet file, or a folder of Parquet shards (its `*.parquet` files in name order, one
corpus), in the layout of the Wikipedia dumps published as datasets (wikimedia/wikipedia: id, url, title, text;
plain text, paragraphs separated by blank lines). Needs the hf extra (pyarrow).

Read row group by row group (one row group's id, title and text columns in memory at a time; the dumps' row
groups are a few MB), so memory stays flat however large the corpus (bench/ingest_memory.py --parquet). Field names are
configurable per source (id_field, text_field, title_field); by default the first present of id/doc_id/docid,
contents/text/body, and title. A row's text is cut into passages like the wikipedia reader's:
  split: paragraph (default)  one passage per paragraph (blank lines end a paragraph; its lines are joined)
         words                the row's text cut into windows of `words` words (default 100)
         row                  the whole row is one passage, its id the row's id as it is
  min_chars (default 20)      shorter passages are dropped (paragraph and words: the section headings)
Passage ids are `{id}-{n}`, n counting a row's passages from 0 (split row: `{id}`); rows without an id or text
are problems (file, `row N`, counting a file's rows from 1). The row ids are taken as unique, like the page ids
of the dumps these files are made from (UNIQUE_IDS: read_corpus keeps no set of the ids seen, which would grow
with the corpus), so a duplicate row id is not caught."""
from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator

from ..core.config import Source
from ..core.errors import Problems, UserError
from ..core.hints import requires
from . import Passage, Where, cut, split_settings

UNIQUE_IDS = True

ID_FIELDS = ("id", "doc_id", "docid")
TEXT_FIELDS = ("contents", "text", "body")
BATCH = 1024  # rows per record batch turned into Python objects at a time
SPLITS = ("paragraph", "words", "row")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r]*\n")
_SPACES = re.compile(r"\s+")


def shards(path: str) -> list[str]:
    """The Parquet files of PATH: itself, or a folder's `*.parquet` files in name order (a UserError if none)."""
    if not os.path.isdir(path):
        return [path]
    files = sorted(glob.glob(os.path.join(glob.escape(path), "*.parquet")))
    if not files:
        raise UserError(f"{path}: a folder without *.parquet files (fix: give a Parquet file, a folder of "
                        "Parquet shards, or a corpus config)")
    return files


def _column(names: list[str], configured: str | None, candidates: tuple[str, ...], path: str, what: str) -> str:
    if configured:
        if configured not in names:
            raise UserError(f"{path}: no {what} column {configured!r} (columns: {', '.join(names)})")
        return configured
    found = next((c for c in candidates if c in names), None)
    if found is None:
        raise UserError(f"{path}: no {what} column (looked for {'/'.join(candidates)}; columns: {', '.join(names)}; "
                        f"fix: set {what}_field in the corpus config)")
    return found


def passages(text: str, split: str, words: int, min_chars: int) -> list[str]:
    """A row's text as passages (split paragraph, words or row; shorter than MIN_CHARS dropped unless row)."""
    if split == "row":
        return [_SPACES.sub(" ", text).strip()]
    return cut([_SPACES.sub(" ", p).strip() for p in _PARAGRAPH_BREAK.split(text)], split, words, min_chars)


def read(src: Source, problems: Problems) -> Iterator[tuple[Where, Passage]]:
    path = src.file
    split, words, min_chars = split_settings(src, SPLITS)
    pq = requires("hf", "pyarrow.parquet")
    for file in shards(path):
        yield from _file(pq, file, src, split, words, min_chars, problems)


def _file(pq, file, src, split, words, min_chars, problems):
    try:
        pf = pq.ParquetFile(file)
    except (OSError, ValueError) as e:  # pyarrow's ArrowIOError, ArrowInvalid (not a Parquet file)
        raise UserError(f"{file}: cannot read it as Parquet ({e})") from None
    with pf:
        names = pf.schema_arrow.names
        id_c = _column(names, src.id_field, ID_FIELDS, file, "id")
        text_c = _column(names, src.text_field, TEXT_FIELDS, file, "text")
        title_f = "title" if src.title_field is None else src.title_field
        title_c = title_f if title_f in names else None
        columns = list(dict.fromkeys(c for c in (id_c, text_c, title_c) if c))
        row = 0
        try:
            # read_row_group, one after the other: iter_batches over a whole file grows with the file (pyarrow 26)
            batches = (batch for i in range(pf.num_row_groups)
                       for batch in pf.read_row_group(i, columns=columns, use_threads=False).to_batches(BATCH))
            for batch in batches:
                ids, texts = batch.column(id_c).to_pylist(), batch.column(text_c).to_pylist()
                titles = batch.column(title_c).to_pylist() if title_c else [None] * len(ids)
                for pid, text, title in zip(ids, texts, titles):
                    row += 1
                    where = (file, f"row {row}")
                    if pid is None or str(pid).strip() == "":
                        problems.report(*where, f"empty or missing id (column {id_c})")
                        continue
                    if not isinstance(text, str) or not text.strip():
                        problems.report(*where, f"missing or empty text (column {text_c})")
                        continue
                    pid, title = str(pid).strip(), str(title or "").strip()
                    if split == "row":
                        yield where, {"id": pid, "title": title, "contents": passages(text, split, words, 0)[0]}
                        continue
                    for n, passage in enumerate(passages(text, split, words, min_chars)):
                        yield where, {"id": f"{pid}-{n}", "title": title, "contents": passage}
        except (OSError, ValueError) as e:
            raise UserError(f"{file}: cannot read it as Parquet ({e})") from None
