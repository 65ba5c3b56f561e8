"""DBQA pipeline: the reader (labels optional, bad input with FILE:LINE), tokens, hand-computed BM25 and overlap
values on self-written groups, the learned reranker's determinism, dense and cross on a handful of sentences,
and `python -m qa_baseline.run --task dbqa` end to end (its metrics equal the scorer's on its submission)."""
import hashlib
import json
import math
import os
import shutil

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline import ROOT
from qa_baseline.core.errors import UserError
from qa_baseline.core.fileio import sha256_file
from qa_baseline.rankers import make
from qa_baseline.rankers.tokens import Text, bigrams, char_units, chars, detect_lang
from qa_baseline.tasks.dbqa import formats as dbqa, pipeline as dbqa_pipeline

EN, ZH = os.path.join(FIXTURES, "dbqa-en.tsv"), os.path.join(FIXTURES, "dbqa-zh.tsv")


def write(tmp_path, text, name="data.tsv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_dbqa(tmp_path, *args):
    """Exit status, stderr and (row, submission scores) of a dbqa run into tmp_path/run."""
    out = tmp_path / "run"
    proc = cli("run", "--task", "dbqa", "--out", str(out), *args)
    if proc.returncode:
        return proc.returncode, proc.stderr, None
    row = json.loads((out / "row.json").read_text())
    return 0, proc.stderr, (row, [float(x) for x in (out / "submission.txt").read_text().split()])


# --- reading ------------------------------------------------------------------------------------------------

def test_read_groups_consecutive_lines_labels_optional(tmp_path):
    groups = dbqa.read(EN)
    assert [(g.query, len(g.texts), g.labels, g.line) for g in groups] == [
        ("what color is the sky", 3, [1, 0, 0], 1), ("who wrote hamlet", 3, [1, 0, 0], 4)]
    unlabelled = dbqa.read(write(tmp_path, "q\ta\nq\tb\nr\tc\nq\td\n"))
    assert [(g.query, g.texts, g.labels) for g in unlabelled] == [
        ("q", ["a", "b"], None), ("r", ["c"], None), ("q", ["d"], None)]  # a question again: another group
    with pytest.raises(UserError, match="no labels"):
        dbqa.read_gold(write(tmp_path, "q\ta\n"))
    example = dbqa.read(os.path.join(ROOT, "examples", "dbqa-en-sample.tsv"))  # the default without ../shared
    assert len(example) == 4 and all(sum(g.labels) == 1 for g in example)


@pytest.mark.parametrize("text, message", [
    ("q\ta\t1\nq\tb\t0\tx\n", ":2: expected 2 or 3 tab-separated fields (question, sentence[, label]), found 4"),
    ("q\ta\n\n", ":2: expected 2 or 3 tab-separated fields"),
    ("q\ta\t1\nq\tb\tyes\n", ":2: label 'yes' is not 0 or 1"),
    ("q\ta\t1\nq\tb\n", ":2: label missing here but present on other lines, or the reverse"),
    ("", ": no lines (fix: write one line per candidate sentence: question<TAB>sentence[<TAB>label])"),
])
def test_bad_input_names_file_and_line(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UserError) as e:
        dbqa.read(path)
    assert str(e.value).startswith(path + message)


@pytest.mark.parametrize("text, message", [
    ("q\ta\t1\n \tb\t0\n", ":2: empty question (fix: pass --allow-empty"),
    ("q\ta\t1\nr\tb\t0\nr\t\t0\n", ":3: empty sentence (fix: pass --allow-empty"),
])
def test_empty_question_or_sentence(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UserError) as e:
        dbqa.check_text(path, dbqa.read(path))
    assert str(e.value).startswith(path + message)
    assert len(dbqa.read_gold(path)) == 2  # the scorer needs only the labels


def test_language_is_detected():
    assert detect_lang(g.query for g in dbqa.read(EN)) == "en"
    assert detect_lang(g.query for g in dbqa.read(ZH)) == "zh"


# --- tokens -------------------------------------------------------------------------------------------------

def test_tokens():
    words = Text("en").words
    assert words("the sky at night is dark and the sky has stars") == ("sky", "night", "dark", "sky", "ha", "star")
    assert words("hamlet was written by shakespeare") == ("hamlet", "written", "shakespear")
    text = "CMRC ２０１８年的比赛"  # full-width digits become ASCII (NFKC)
    assert chars(text) == ["cmrc", "2018", "年", "的", "比", "赛"]
    assert bigrams(text) == ["cmrc", "2018", "年的", "的比", "比赛"]
    assert bigrams("天 空") == ["天", "空"]
    assert "".join(Text("zh", "jieba").words(text)) == "cmrc2018年的比赛"
    assert char_units("Sky 天空") == {"#sk", "sky", "ky#", "天", "空"}
    with pytest.raises(UserError, match="--tokens char is for Chinese"):
        Text("en", "char")


# --- lexical rerankers, by hand -----------------------------------------------------------------------------

def test_bm25_with_group_statistics_by_hand():
    # group 1: question tokens what, color, sky; sentence lengths 2, 2, 6 (avgdl 10/3); sky in 2 of 3 sentences
    # group 2: who, wrote, hamlet; lengths 3, 3, 2 (avgdl 8/3); hamlet in 1 of 3
    idf_sky, idf_hamlet = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)), math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = [idf_sky * 1 / (1 + 0.9 * (0.6 + 0.4 * 2 / (10 / 3))), 0.0,
                idf_sky * 2 / (2 + 0.9 * (0.6 + 0.4 * 6 / (10 / 3))),
                idf_hamlet * 1 / (1 + 0.9 * (0.6 + 0.4 * 3 / (8 / 3))), 0.0, 0.0]
    assert list(make("bm25", "en", {}).score(dbqa.read(EN))) == pytest.approx(expected, rel=1e-12)
    k1, b = 1.2, 1.0
    assert make("bm25", "en", {"k1": k1, "b": b}).score(dbqa.read(EN))[2] == pytest.approx(
        idf_sky * 2 / (2 + k1 * (6 / (10 / 3))), rel=1e-12)
    with pytest.raises(UserError, match="0 <= b <= 1"):
        make("bm25", "en", {"b": 2})


def test_overlap_by_hand():
    # English group 1: question words {what, color, sky}; idf(sky) = ln 1.6 (2 of 3), idf(what) = idf(color) = ln 8
    features = make("overlap", "en", {}).features(dbqa.read(EN))
    share = math.log(1.6) / (math.log(1.6) + 2 * math.log(8))
    np.testing.assert_allclose(features[:3, :2], [[1 / 3, share], [0, 0], [1 / 3, share]], rtol=1e-12)
    # trigrams of "what color is the sky": 4 + 5 + 2 + 3 + 3 = 17; "the sky is blue" has #th the he# #sk sky ky# #is is#
    assert features[0, 2] == pytest.approx(8 / 17, rel=1e-12)
    # Chinese, char tokens: question characters 天空是什么颜色 (？ dropped); 天 空 是 色 in 2 of 3 sentences
    # (idf ln 1.6), 什 么 颜 in none (ln 8); sentence 1 has 天 空 是 色, sentence 2 是 色, sentence 3 天 空
    zh = make("overlap", "zh", {"tokens": "char"}).features(dbqa.read(ZH))
    total = 4 * math.log(1.6) + 3 * math.log(8)
    two = [2 / 7, 2 * math.log(1.6) / total]
    expected = [[4 / 7, 4 * math.log(1.6) / total], two, two]
    np.testing.assert_allclose(zh[:3, :2], expected, rtol=1e-12)
    np.testing.assert_allclose(zh[:3, 2:], expected, rtol=1e-12)  # Chinese char units are the char tokens
    assert list(make("overlap", "zh", {}).score(dbqa.read(ZH))[:3]) == pytest.approx([e[1] for e in expected])


# --- learned, dense, cross ----------------------------------------------------------------------------------

def test_learned_is_deterministic():
    groups = dbqa.read(EN)
    models = [make("learned", "en", {}).fit(groups) for _ in range(2)]
    assert np.array_equal(models[0].score(groups), models[1].score(groups))
    assert models[0].params()["features"] == "bm25,overlap"
    assert list(models[0].fitted()["weights"]) == ["bm25", "word", "word_idf", "char", "char_idf"]
    with pytest.raises(UserError, match="lines labelled 1 and lines labelled 0"):
        make("learned", "en", {}).fit([dbqa.Group("q", ["a", "b"], [0, 0], 1)])
    with pytest.raises(UserError, match="--features bm25,learned"):
        make("learned", "en", {"features": ["bm25", "learned"]})


def test_dense_is_the_cosine_of_the_encoder():
    from qa_baseline.encoders import load_encoder
    groups = dbqa.read(EN)[:1]
    encoder = load_encoder(None, "en")
    q = encoder.encode([groups[0].query], "query")[0]
    expected = encoder.encode(groups[0].texts, "passage") @ q
    scores = make("dense", "en", {}).score(groups)
    assert scores == pytest.approx(expected, abs=1e-6) and int(np.argmax(scores)) == 0


def test_cross_encoder_english_only():
    groups = dbqa.read(EN)
    scores = make("cross", "en", {}).score(groups)
    assert [int(np.argmax(scores[i:i + 3])) for i in (0, 3)] == [0, 0]
    with pytest.raises(UserError, match="--reranker cross is English only"):
        make("cross", "zh", {})


# --- the command line ---------------------------------------------------------------------------------------

def test_cli_bm25_end_to_end(tmp_path):
    rc, err, (row, scores) = run_dbqa(tmp_path, "--data", EN, "--reranker", "bm25")
    assert rc == 0, err
    assert scores == pytest.approx(list(make("bm25", "en", {}).score(dbqa.read(EN))), rel=1e-15)
    assert row["retriever"] == "bm25"
    assert row["corpus"] == "given sentences" and row["questions"] == 2
    assert row["settings"] == {"task": "dbqa", "data": "dbqa-en.tsv", "data_sha256": row["data_sha256"],
                               "corpus": "given sentences", "method": "bm25", "lang": "en",
                               "tokens": "lucene-english", "k1": 0.9, "b": 0.4}
    expected = dbqa.score(dbqa.read_gold(EN), scores)["metrics"]
    assert row["metrics"] == pytest.approx(expected) and row["metrics"]["ACC@1"] == 0.5  # sky, sky beats sky
    scored = cli("score", "--task", "dbqa", "--gold", EN, "--submission", str(tmp_path / "run" / "submission.txt"),
                 "--format", "json")
    assert json.loads(scored.stdout)["metrics"] == pytest.approx(row["metrics"])


def test_cli_learned_holdout_and_unlabelled_data(tmp_path):
    rc, err, (row, scores) = run_dbqa(tmp_path, "--data", ZH, "--reranker", "learned", "--holdout", "2")
    assert rc == 0, err
    held_out = tmp_path / "run" / "heldout.tsv"  # group 1 of 0, 1: the second question's two lines
    assert held_out.read_text(encoding="utf-8").splitlines() == open(ZH, encoding="utf-8").read().splitlines()[3:]
    assert len(scores) == 2 and row["questions"] == 1 and row["observed"]["train_questions"] == 1
    assert row["settings"]["lang"] == "zh" and row["settings"]["tokens"] == "char" and row["settings"]["holdout"] == 2
    assert set(row["observed"]["weights"]) == {"bm25", "word", "word_idf", "char", "char_idf"}  # fitted: observed
    unlabelled = write(tmp_path, "".join(line.rsplit("\t", 1)[0] + "\n" for line in open(EN, encoding="utf-8")))
    rc, err, _ = run_dbqa(tmp_path, "--data", unlabelled, "--reranker", "learned", "--train", EN)
    assert rc == 2 and "holds another run (its data_sha256 and options differ" in err  # never over another run
    shutil.rmtree(tmp_path / "run")
    rc, err, (row, scores) = run_dbqa(tmp_path, "--data", unlabelled, "--reranker", "learned", "--train", EN)
    assert rc == 0, err
    assert len(scores) == 6 and row["metrics"] == {}
    assert row["settings"]["train"] == {"file": "dbqa-en.tsv", "sha256": hashlib.sha256(open(EN, "rb").read()).hexdigest()}


@pytest.mark.parametrize("lang, given, expected", [
    ("en", {}, ("cross", None)), ("en", {"train": "t.tsv"}, ("learned", ["bm25", "overlap", "cross"])),
    ("en", {"holdout": 5}, ("learned", ["bm25", "overlap", "cross"])),
    ("en", {"holdout": 5, "features": "bm25, dense"}, ("learned", ["bm25", "dense"])),
    ("zh", {}, ("bm25", None)), ("zh", {"holdout": 5}, ("learned", None)),
    ("en", {"reranker": "overlap"}, ("overlap", None)), ("zh", {"reranker": "dense"}, ("dense", None))])
def test_the_default_reranker_uses_the_cross_encoder_where_the_language_has_one(lang, given, expected):
    from qa_baseline.tasks.dbqa import DBQASettings
    assert dbqa_pipeline.choose(DBQASettings(**given), lang) == expected


def test_learned_default_model_is_lambdamart_over_the_cross_feature(tmp_path):
    from qa_baseline.rankers.learned import default_learner
    assert default_learner(["bm25", "overlap", "cross"]) == "lambdamart"
    assert default_learner(["bm25", "overlap", "dense"]) == "logistic"
    groups = dbqa.read(EN)
    ranker = make("learned", "en", {"learner": "lambdamart"})
    assert ranker.params()["learner"] == "lambdamart" and ranker.fitted() == {}
    ranker.fit(groups)
    assert list(ranker.fitted()["gains"]) == ["bm25", "word", "word_idf", "char", "char_idf"]
    rc, err, (row, scores) = run_dbqa(tmp_path, "--data", EN, "--train", EN)  # the default with training data
    assert rc == 0, err
    assert row["retriever"] == "auto" and (row["settings"]["reranker"], row["settings"]["learner"],
                                           row["settings"]["features"]) == ("learned", "lambdamart", "bm25,overlap,cross")
    assert set(row["observed"]["gains"]) == {"bm25", "word", "word_idf", "char", "char_idf", "cross"}
    again = make("learned", "en", {"features": ["bm25", "overlap", "cross"]}).fit(groups).score(groups)
    assert scores == pytest.approx(list(again), rel=1e-12)  # the same model, fitted in this process


@pytest.mark.parametrize("args, message", [
    (["--reranker", "learned"], "error: --reranker learned needs training data: --train FILE or --holdout K"),
    (["--reranker", "bm25", "--learner", "lambdamart"], "error: --learner is not used by --reranker bm25"),
    (["--reranker", "bm25", "--train", EN], "error: --train is for --reranker learned, not bm25"),
    (["--reranker", "overlap", "--k1", "1.2"], "error: --k1 is not used by --reranker overlap"),
    (["--reranker", "learned", "--holdout", "2", "--encoder", "minilm"],
     "error: --encoder is not used by --reranker learned with --features bm25,overlap"),
    (["--reranker", "overlap", "--holdout", "1"], "error: --holdout must be at least 2, not 1"),
    (["--reranker", "cross", "--lang", "zh"], "error: --reranker cross is English only"),
])
def test_cli_user_errors_are_one_line(tmp_path, args, message):
    rc, err, _ = run_dbqa(tmp_path, "--data", EN, *args)
    assert rc == 2 and err.startswith(message) and err.count("\n") == 1, err


def test_cli_empty_question_stops_unless_allowed(tmp_path):
    path = write(tmp_path, "q\ta\t1\nq\tb\t0\n\tc\t1\n\td\t0\n")
    rc, err, _ = run_dbqa(tmp_path, "--data", path)
    assert rc == 2 and err == (f"error: {path}:3: empty question (fix: pass --allow-empty to rank such lines as they "
                               "are)\n")
    rc, err, (row, scores) = run_dbqa(tmp_path, "--data", path, "--allow-empty")
    assert rc == 0 and len(scores) == 4 and row["questions"] == 2, err


def test_run_folder_names_the_settings_and_the_train_file_by_checksum(tmp_path):
    from qa_baseline import run, tasks
    task = tasks.get("dbqa")
    train = write(tmp_path, "q\ta\t1\n")
    args = run.parser(task).parse_args(["--task", "dbqa", "--reranker", "learned", "--train", train, "--tokens", "jieba"])
    given = run.settings_given(task, args)
    assert run.variant(task.method(run.make_settings(task.Settings, {}, given)), task, given) == \
        "learned-tokens=jieba-train=data-" + sha256_file(train)[:8]


# --- real data ----------------------------------------------------------------------------------------------

def test_real_files(shared):
    folder = os.path.join(shared, "tasks", "dbqa")
    dev = dbqa.read(os.path.join(folder, "en-wikiqa-dev.tsv"))
    assert len(dev) == 126 and detect_lang(g.query for g in dev) == "en"
    cmrc = os.path.join(folder, "zh-cmrc2018-trial.tsv")
    groups = dbqa.read(cmrc)
    assert detect_lang(g.query for g in groups) == "zh"
    with pytest.raises(UserError, match=r"zh-cmrc2018-trial.tsv:\d+: empty question"):  # a real quirk of the file
        dbqa.check_text(cmrc, groups)
    train, test = dbqa_pipeline.split(groups, 5)
    assert len(train) + len(test) == len(groups) and test[0] is groups[4] and test[1] is groups[9]


def test_other_tasks_options_are_not_dbqa_options(tmp_path):
    rc, err, _ = run_dbqa(tmp_path, "--data", EN, "--analyzer", "jieba")
    assert rc == 2 and err.rstrip().endswith("error: unrecognized arguments: --analyzer jieba")


def test_cross_encoder_scores_a_pair_whatever_its_batch_mates(monkeypatch):
    """The int8 cross-encoder's logit of a pair is the same alone, among other pairs, in any order (one pair per
    model call: in batches of 32 its dynamic quantisation moved logits by up to 0.84 with the pairs beside it),
    and with the calls run side by side on two threads or one at a time on one; a batched encoder (batch_size
    32) does differ, so the check can fail."""
    from qa_baseline.encoders import load_cross_encoder
    pairs = [("what do cats like?", "A cat likes milk and sleeps on the mat in the sun."),
             ("what do cats like?", "The dog chased the cat across the green field, barking loudly at every tree."),
             ("where is paris?", "Paris is the capital of France."),
             ("who wrote hamlet?", "Hamlet is a tragedy written by William Shakespeare sometime between 1599 and 1601, "
                                   "set in Denmark, and it is his longest play.")]
    model = load_cross_encoder()
    alone = [float(model.score([p])[0]) for p in pairs]
    assert model.score(pairs).tolist() == alone and model.score(pairs[::-1]).tolist()[::-1] == alone
    for threads in ("1", "2"):
        monkeypatch.setenv("QA_BASELINE_THREADS", threads)
        one = load_cross_encoder()
        assert one.workers == int(threads) and one.score(pairs * 3).tolist() == alone * 3
    batched = load_cross_encoder(batch_size=32)
    assert max(abs(a - b) for a, b in zip(batched.score(pairs).tolist(), alone)) > 1e-4


# --- Ctrl-C -------------------------------------------------------------------------------------------------

def test_ctrl_c_while_cross_encoding_exits_130_with_one_line(tmp_path):
    """SIGINT while the cross-encoder scores pairs on worker threads (QA_BASELINE_THREADS=4): exit status 130,
    `interrupted` on stderr, no abort ("terminate called without an active exception"), no traceback, no hang,
    no row; three times."""
    import signal
    import subprocess
    import sys
    data = write(tmp_path, open(EN, encoding="utf-8").read() * 300)  # 1,800 pairs
    env = {**os.environ, "QA_BASELINE_PROGRESS": "log", "QA_BASELINE_PROGRESS_SECONDS": "0",
           "QA_BASELINE_THREADS": "4"}
    for attempt in range(3):
        out = tmp_path / f"run{attempt}"
        proc = subprocess.Popen([sys.executable, "-m", "qa_baseline.run", "--task", "dbqa", "--data", data,
                                 "--reranker", "cross", "--out", str(out)], stderr=subprocess.PIPE, text=True,
                                cwd=ROOT, env=env)
        seen = []
        for line in proc.stderr:  # the cross-encoder's progress lines (one per pair here)
            seen += [line] if line.startswith("cross-encoding") else []
            if len(seen) == 10 or line.startswith("error"):
                break
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"still running 120 s after Ctrl-C ({seen})") from None
        assert proc.returncode == 130 and err.splitlines()[-1] == "interrupted", (proc.returncode, seen, err[-2000:])
        assert "terminate called" not in err and "Traceback" not in err and not (out / "row.json").exists()


CTRL_C_TWICE = """
import os, signal, threading, time
import numpy as np
from qa_baseline.encoders.base import in_batches

running = set()

def run(idx):
    running.add(threading.get_ident())
    if idx[0] == 0:  # the first batch: Ctrl-C, and again half a second later, while it still runs
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)
    else:
        time.sleep(0.01)  # 199 such batches: 2 s on the other thread, unless skipped
    running.discard(threading.get_ident())
    return np.ones(len(idx))

out = np.zeros(400)
try:
    in_batches(list(range(400)), 2, run, out, workers=2)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted", "with batches running" if running else "after the batches ran", int(out[:2].sum()),
          "some skipped" if out.sum() < 400 else "none skipped")
"""


def test_ctrl_c_on_encoder_threads_waits_for_the_batches_running():
    """Ctrl-C (twice) while batches run on worker threads (encoders.base.in_batches, which the cross-encoder
    and the ONNX encoders use): KeyboardInterrupt comes once the running batches have ended and their threads
    are joined, with their values written, never while a native call still runs on a thread (the interpreter
    then exits under it: "terminate called without an active exception"); the batches not started are not."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", CTRL_C_TWICE], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "interrupted after the batches ran 2 some skipped\n", \
        proc.stdout + proc.stderr


def test_ctrl_c_while_the_cross_encoders_engine_loads_is_an_interrupt(monkeypatch):
    """Ctrl-C while onnxruntime's native module initialises reaches Python as pybind11's ImportError
    ("initialization failed", from KeyboardInterrupt): an interrupt (exit 130), not "needs the package"."""
    from types import SimpleNamespace
    from qa_baseline.encoders import base

    def interrupted(module):
        raise ImportError("initialization failed") from KeyboardInterrupt()
    monkeypatch.setattr(base, "importlib", SimpleNamespace(import_module=interrupted))
    with pytest.raises(KeyboardInterrupt):
        base.require("ms-marco-cross", "onnxruntime", "onnxruntime and tokenizers")

    def absent(module):
        raise ImportError(f"No module named {module!r}")
    monkeypatch.setattr(base, "importlib", SimpleNamespace(import_module=absent))
    with pytest.raises(UserError, match="encoder ms-marco-cross needs the package onnxruntime and tokenizers"):
        base.require("ms-marco-cross", "onnxruntime", "onnxruntime and tokenizers")
