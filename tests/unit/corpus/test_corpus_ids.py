"""corpus/ids.py: the ids a corpus read has seen, in a set and then (past IN_MEMORY) in a temporary SQLite
database; read_corpus finds duplicates on both sides of the move."""
import json

from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import Problems
from qa_baseline.corpus import ids, read_corpus
from qa_baseline.corpus.ids import UniqueIds


def test_unique_ids_in_memory_then_on_disk():
    seen = UniqueIds(in_memory=3)
    assert [seen.add(x) for x in ["b", "a", "b"]] == [True, True, False]
    assert seen.db is None and seen.seen == {"a", "b"}
    assert seen.add("c") and seen.db is not None and seen.seen == set()  # the third id moves them to disk
    assert [seen.add(x) for x in ["a", "b", "c", "d", "d", "e"]] == [False, False, False, True, False, True]
    assert sorted(i for i, in seen.db.execute("SELECT id FROM ids")) == ["a", "b", "c", "d", "e"]
    seen.close()
    assert seen.db is None


def test_read_corpus_duplicates_before_and_after_the_move(tmp_path, monkeypatch):
    monkeypatch.setattr(ids, "IN_MEMORY", 2)
    spills = []
    spill = UniqueIds._spill
    monkeypatch.setattr(UniqueIds, "_spill", lambda self: spills.append(1) or spill(self))
    path = tmp_path / "c.jsonl"
    rows = [("1", "a"), ("2", "b"), ("1", "dup before"), ("3", "c"), ("3", "dup after"), ("2", "dup of moved"),
            ("4", "d")]
    path.write_text("".join(json.dumps({"id": i, "contents": t}) + "\n" for i, t in rows), encoding="utf-8")
    problems = Problems("skip")
    got = list(read_corpus(corpus_config(str(path)), problems))
    assert [(p["id"], p["contents"]) for p in got] == [("1", "a"), ("2", "b"), ("3", "c"), ("4", "d")]
    assert problems.count == 3 and spills == [1]
