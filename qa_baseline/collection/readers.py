"""Data file readers: bytes of a CSV or XLSX file -> Tables (see table.py).

CSV: the encoding is the first of UTF-8 (a byte-order mark allowed), UTF-16 (with its byte-order mark), CP932
(Shift_JIS with Microsoft's extensions, the usual encoding of Japanese e-Stat files) and CP1252 that decodes
the whole file strictly; the delimiter is the one of `,` `;` TAB `|` that splits the first lines into the most
consistent number of fields (most lines with the modal field count, then the larger count; ties in that
order). XLSX: openpyxl in read-only mode with cached values (`data_only`), the first non-empty sheet or
every non-empty sheet."""
from __future__ import annotations

import codecs
import collections
import csv
import io
import os
import zipfile
from collections.abc import Callable

from ..core.hints import requires
from .table import Table, from_grid

ENCODINGS = ("utf-8-sig", "cp932", "cp1252")
DELIMITERS = (",", ";", "\t", "|")
SAMPLE_LINES = 50


class DataFileError(Exception):
    """A data file that cannot be read; str() is the reason."""


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) of a CSV file's bytes; DataFileError when no known encoding fits."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16"), "utf-16"
    for encoding in ENCODINGS:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise DataFileError(f"not UTF-8, UTF-16, CP932 or CP1252 text (tried {', '.join(ENCODINGS)})")


def sniff_delimiter(text: str) -> str:
    """The delimiter that splits the first SAMPLE_LINES lines most consistently (see the module docstring)."""
    sample = text.splitlines()[:SAMPLE_LINES]
    best, best_key = DELIMITERS[0], None
    for delimiter in DELIMITERS:
        counts = [len(r) for r in csv.reader(sample, delimiter=delimiter) if any(c.strip() for c in r)]
        if not counts:
            continue
        mode, hits = collections.Counter(counts).most_common(1)[0]
        key = (mode > 1, hits / len(counts), mode)
        if best_key is None or key > best_key:
            best, best_key = delimiter, key
    return best


def read_csv(data: bytes, source: str = "") -> list[Table]:
    """[Table] of a CSV file's bytes (one table; none when the file has no cell)."""
    text, _ = decode(data)
    try:
        grid = list(csv.reader(io.StringIO(text, newline=""), delimiter=sniff_delimiter(text)))
    except csv.Error as e:
        raise DataFileError(f"malformed CSV ({e})") from None
    table = from_grid(grid, source)
    return [table] if table else []


def cell_text(value: object) -> str:
    """A worksheet value as the string a reader sees: integral floats without '.0', dates as ISO dates."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:10] if text.endswith("T00:00:00") else text
    return str(value)


def read_xlsx(data: bytes, source: str = "", sheets: str = "first") -> list[Table]:
    """[Table] of an XLSX file's bytes: the first non-empty sheet, or with SHEETS='all' every non-empty one."""
    openpyxl = requires("tables", "openpyxl")  # imported here: only XLSX files need it
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as e:
        raise DataFileError(f"not a readable XLSX workbook ({e})") from None
    tables: list[Table] = []
    try:
        for sheet in book.worksheets:
            try:  # read-only mode parses a sheet's XML while its rows are read
                grid = [[cell_text(v) for v in row] for row in sheet.iter_rows(values_only=True)]
            except Exception as e:  # a damaged sheet (truncated XML, bad values): this file is unreadable
                raise DataFileError(f"sheet {sheet.title!r} is not readable ({type(e).__name__}: {e})") from None
            table = from_grid(grid, f"{source}#{sheet.title}")
            if table:
                tables.append(table)
                if sheets == "first":
                    break
    finally:
        book.close()
    return tables


READERS: dict[str, Callable[..., list[Table]]] = {".csv": read_csv, ".tsv": read_csv, ".txt": read_csv, ".xlsx": read_xlsx, ".xlsm": read_xlsx}


def read_tables(name: str, data: bytes, sheets: str = "first") -> list[Table]:
    """[Table] of a data file's bytes, the reader chosen by NAME's extension; DataFileError when it has none."""
    ext = os.path.splitext(name)[1].lower()
    if ext not in READERS:
        raise DataFileError(f"unsupported data file type {ext or '(none)'} (readers: {', '.join(READERS)})")
    if ext.startswith(".xls"):
        return read_xlsx(data, name, sheets)
    return read_csv(data, name)
