"""TrecQA candidate sentences as a retrieval corpus: `python -m qa_baseline.answers.trecqa IN.xml... OUT.jsonl`.

The TrecQA files (`<QApairs id=...>` blocks whose <question>, <positive> and <negative> elements hold a
tokenised sentence on their first line, then rows of tags) are not XML documents; each distinct positive or
negative sentence becomes one passage `{"id": "QAPAIRS_ID-N", "title": "", "contents": tokens joined by
spaces}` (N counts the block's sentences from 1), written atomically as JSON lines: a corpus file for
`--corpus OUT.jsonl` (openqa-en over the TrecQA sentences)."""
from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Sequence

from ..core.errors import UserError, at, cli
from ..core.fileio import atomic_write
from ..core.hints import plural
from ..core.textio import text_lines

_BLOCK = re.compile(r"<QApairs id='([^']+)'>")
_SENT = re.compile(r"<(positive|negative)>\s*\n([^\n]*)\n")


def sentences(path: str) -> Iterator[tuple[str, str]]:
    """(id, sentence) of each distinct candidate sentence of a TrecQA file, in file order."""
    text = "".join(line for _, line in text_lines(path))
    blocks = list(_BLOCK.finditer(text))
    if not blocks:
        raise UserError(f"{path}: no <QApairs id='...'> blocks (is it a TrecQA file?)")
    seen: set[str] = set()
    for b, nxt in zip(blocks, blocks[1:] + [None]):
        body = text[b.end():nxt.start() if nxt else len(text)]
        for n, m in enumerate(_SENT.finditer(body), 1):
            sentence = " ".join(m.group(2).split("\t")).strip()
            if not sentence:
                raise at(path, text.count("\n", 0, b.end() + m.start()) + 2, f"empty <{m.group(1)}> sentence")
            if sentence not in seen:
                seen.add(sentence)
                yield f"{b.group(1)}-{n}", sentence


@cli
def main(argv: Sequence[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        raise UserError("usage: python -m qa_baseline.answers.trecqa IN.xml [IN.xml ...] OUT.jsonl")
    count = 0
    with atomic_write(args[-1]) as f:
        for path in args[:-1]:
            for pid, sentence in sentences(path):
                f.write(json.dumps({"id": pid, "title": "", "contents": sentence}) + "\n")
                count += 1
    print(f"{args[-1]}: {plural(count, 'sentence')}", file=sys.stderr)


if __name__ == "__main__":
    main()
