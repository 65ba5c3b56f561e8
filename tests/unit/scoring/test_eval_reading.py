"""qa_baseline.eval reads its files a chunk at a time (scoring/trec_eval.py `_lines`): the same records as
textio.text_lines gives line by line, whatever the chunk size, and a bad line (invalid UTF-8, a control
character, UTF-16) is the same one-line error, naming the same line, as text_lines gives."""
import gzip

import pytest

from qa_baseline.core.errors import UserError
from qa_baseline.core.textio import text_lines
from qa_baseline.scoring import trec_eval as trec

RUN = "".join(f"q{q} Q0 d{d} {d + 1} {10 - d / 3:.4f} tag\n" for q in range(3) for d in range(7))


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_chunks_give_the_lines_of_text_lines(tmp_path, monkeypatch, chunk):
    path = tmp_path / "run.trec"
    path.write_text("\ufeff" + RUN.replace("q1 Q0 d3", "\n  q1 Q0 d3", 1) + "\n\n", encoding="utf-8")
    monkeypatch.setattr(trec, "CHUNK", chunk)
    assert list(trec._lines(str(path))) == [(n, line.rstrip("\n")) for n, line in text_lines(str(path))]
    run, tag = trec.read_run(str(path))
    assert tag == "tag" and [len(docs) for docs in run.values()] == [7, 7, 7]
    assert run["q2"][:2] == [("d0", 10.0), ("d1", pytest.approx(10 - 1 / 3, abs=1e-4))]


def text_lines_error(path):
    with pytest.raises(UserError) as e:
        list(text_lines(str(path)))
    return str(e.value)


@pytest.mark.parametrize("bad, line", [(b"q1 Q0 d\xff 4 1.0 tag\n", 12), (b"q1 Q0 d\x00 4 1.0 tag\n", 12),
                                       (b"q1 Q0 d1 4 1.0 tag\n", None)])
@pytest.mark.parametrize("chunk", [16, 1 << 20])
def test_a_bad_line_is_text_lines_error(tmp_path, monkeypatch, bad, line, chunk):
    lines = RUN.encode().splitlines(keepends=True)
    path = tmp_path / "run.trec"
    path.write_bytes(b"".join(lines[:11]) + bad + b"".join(lines[12:]))
    monkeypatch.setattr(trec, "CHUNK", chunk)
    if line is None:  # a repeated document: our own check, after the reading
        with pytest.raises(UserError, match=r"run\.trec:12: document d1 repeated for query q1 \(first on line 9\)"):
            trec.read_run(str(path))
        return
    message = text_lines_error(path)
    assert f"run.trec:{line}: " in message
    with pytest.raises(UserError) as e:
        trec.read_run(str(path))
    assert str(e.value) == message


def test_utf16_and_compressed_files(tmp_path):
    utf16 = tmp_path / "run16.trec"
    utf16.write_bytes(RUN.encode("utf-16"))
    with pytest.raises(UserError) as e:
        trec.read_run(str(utf16))
    assert str(e.value) == text_lines_error(utf16) and "UTF-16" in str(e.value)
    packed = tmp_path / "run.trec.gz"
    packed.write_bytes(gzip.compress(RUN.encode()))
    plain = tmp_path / "run.trec"
    plain.write_text(RUN)
    assert trec.read_run(str(packed)) == trec.read_run(str(plain))
    broken = tmp_path / "broken.trec.gz"
    broken.write_bytes(gzip.compress(RUN.encode())[:40])
    with pytest.raises(UserError) as e:
        trec.read_run(str(broken))
    assert str(e.value) == text_lines_error(broken)
