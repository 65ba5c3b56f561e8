"""Reliability (issue 16, and 15.2/15.6): damaged and half-swapped indexes, the atomic index swap, build locks
and leftovers of killed builds, no network at run time, bounded reading of files, run folders written as one
unit and never over another run, and the validators' edge cases. Each test failed before its fix."""
import contextlib
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline import encoders, run as run_module
from qa_baseline.core import fileio, process
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import UserError
from qa_baseline.core.fileio import locked, read_json, replace_dir, tidy_dir
from qa_baseline.indexes.layout import open_index, read_manifest
from qa_baseline.indexes.lucene import build_bm25
from qa_baseline.retrievers import open_retriever
from qa_baseline.scoring import validate
from qa_baseline.tasks import dbqa, kbqa, mcqa, openqa

TINY = os.path.join(FIXTURES, "tiny-en.jsonl")
MCQA = os.path.join(FIXTURES, "mcqa-sample.csv")
SCORING = os.path.join(FIXTURES, "scoring")


def leftovers(folder):
    """Names beside the index folders other than the links, the versions they point to and the lock files."""
    names = os.listdir(folder)
    current = {os.path.basename(os.path.realpath(os.path.join(folder, n))) for n in names
               if os.path.islink(os.path.join(folder, n))}
    return sorted(n for n in names if n not in current and not n.endswith(".lock"))


@pytest.fixture
def tiny_index(tmp_path, monkeypatch):
    """The six-passage corpus indexed into a fresh root that the retrievers (and child runs) use."""
    root = tmp_path / "indexes"
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(root))
    cfg = corpus_config(TINY)
    return cfg, build_bm25(cfg, root=str(root))


# --- 16.1: a damaged or half-swapped index is one error line ---------------------------------------------------

def test_damaged_index_is_one_error_line_naming_the_rebuild(tiny_index, tmp_path, capsys):
    cfg, folder = tiny_index
    os.remove(glob.glob(os.path.join(folder, "lucene", "*.si"))[0])  # _0.si, or _2.si once two were merged
    with pytest.raises(UserError, match=r"the index at .*bm25-default is damaged or incomplete \(.*\) \(fix: rebuild "
                                        r"it with: .*qa_baseline.index --corpus .*tiny-en.jsonl --force\)$"):
        open_retriever("bm25", cfg, {})
    capsys.readouterr()
    assert run("--data", MCQA, out=tmp_path / "run") == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "is damaged or incomplete" in err and "--force" in err, err


def test_reader_sees_one_version_even_when_a_build_swaps_it(tiny_index, tmp_path):
    cfg, folder = tiny_index
    first = os.path.realpath(folder)
    seen = []

    def opener(real, manifest):
        seen.append((real, manifest["fingerprint"]))
        if len(seen) == 1:  # a build replaces the index while this reader opens it
            new = tmp_path / "new"
            shutil.copytree(real, new)
            manifest = read_json(str(new / "manifest.json"))
            fileio.write_json(str(new / "manifest.json"), {**manifest, "fingerprint": "new"})
            replace_dir(str(new), folder)
            raise OSError("_0.si: No such file (removed by the swap)")
        return "opened"

    manifest, result = open_index(cfg, folder, "", opener)
    assert result == "opened" and manifest["fingerprint"] == "new"
    assert seen[0][0] == first and seen[1] == (os.path.realpath(folder), "new")  # manifest and files of one build
    assert not os.path.exists(first)  # the replaced version is gone; the reader retried on the new one


# --- 16.2: the swap is atomic; a kill at any step loses nothing ---------------------------------------------------

class Killed(BaseException):
    pass


@pytest.mark.parametrize("step", range(4))
def test_kill_at_any_step_of_the_swap_leaves_old_or_new_index(tmp_path, monkeypatch, step):
    final = str(tmp_path / "c" / "bm25-default")
    for tag in ("old", "new"):
        os.makedirs(tmp_path / tag)
        fileio.write_json(str(tmp_path / tag / "manifest.json"), {"tag": tag})
    replace_dir(str(tmp_path / "old"), final)
    calls = []
    real_replace, real_symlink = os.replace, os.symlink

    def counted(real):
        def call(*args):
            calls.append(args)
            if len(calls) > step:
                raise Killed()
            return real(*args)
        return call

    monkeypatch.setattr(fileio.os, "replace", counted(real_replace))
    monkeypatch.setattr(fileio.os, "symlink", counted(real_symlink))
    with pytest.raises(Killed) if step < 3 else contextlib.nullcontext():
        replace_dir(str(tmp_path / "new"), final)
    monkeypatch.undo()
    assert read_manifest(final)["tag"] in ("old", "new")  # never missing, never a mix
    tidy_dir(final)
    assert leftovers(tmp_path / "c") == ["bm25-default"]
    assert read_manifest(final)["tag"] == ("new" if step >= 3 else "old")


def test_index_lost_by_the_old_two_rename_swap_is_restored(tiny_index, capsys):
    cfg, folder = tiny_index
    real = os.path.realpath(folder)
    os.remove(folder)  # the old replace_dir killed between its renames: no index, a bm25-default.old
    os.replace(real, folder + ".old")
    with pytest.raises(UserError, match="no index at"):
        open_retriever("bm25", cfg, {})
    capsys.readouterr()
    build_bm25(cfg, root=os.path.dirname(os.path.dirname(folder)))
    err = capsys.readouterr().err
    assert "restored from bm25-default.old" in err and "up to date" in err  # nothing rebuilt
    assert leftovers(os.path.dirname(folder)) == ["bm25-default"]
    assert open_retriever("bm25", cfg, {}).search(["sunlight"], 1)[0][0][0] == "d3"


# --- 16.3: one build per folder at a time; leftovers of killed builds are removed -------------------------------

def test_leftovers_of_killed_builds_are_removed(tiny_index, capsys):
    cfg, folder = tiny_index
    parent = os.path.dirname(folder)
    for name in (".bm25-default.tmp-abc/docs", ".bm25-default.v-1-1/lucene"):
        os.makedirs(os.path.join(parent, name))
        with open(os.path.join(parent, name, "x"), "wb") as f:
            f.write(b"0" * 1000)
    os.symlink("nowhere", os.path.join(parent, ".bm25-default.link-7"))
    capsys.readouterr()
    build_bm25(cfg, root=os.path.dirname(parent))
    assert "removed 3 leftovers of killed builds" in capsys.readouterr().err
    assert leftovers(parent) == ["bm25-default"]


def test_second_build_waits_for_the_first_and_names_it(tiny_index, capsys):
    cfg, folder = tiny_index
    done = []
    with locked(os.path.join(os.path.dirname(folder), ".bm25-default.lock"), "held by the test"):
        worker = threading.Thread(target=lambda: done.append(build_bm25(cfg, root=os.path.dirname(
            os.path.dirname(folder)))))
        worker.start()
        time.sleep(1.0)
        assert worker.is_alive() and not done
    worker.join(60)
    err = capsys.readouterr().err
    assert f"bm25-default: another build is running (pid {os.getpid()}); waiting for it to finish" in err
    assert done == [folder]


class FakeEncoder(encoders.Encoder):
    """A 4-d stand-in for a real encoder: the build's bookkeeping without loading a model."""

    def _encode(self, texts, kind):
        return np.array([[len(t), t.count("a"), t.count("e"), 1.0] for t in texts], dtype=np.float32)


def test_stale_partial_dense_folder_is_removed_when_the_index_is_complete(tmp_path, monkeypatch):
    from qa_baseline.indexes import dense
    monkeypatch.setattr(dense, "load_encoder", lambda name, lang: FakeEncoder("minilm", {"kind": "fake"}))
    build_dense = dense.build_dense
    cfg = corpus_config(TINY)
    root = str(tmp_path / "ix")
    folder = build_dense(cfg, "minilm", shard_size=4, root=root)
    partial = os.path.join(os.path.dirname(folder), ".dense-minilm.partial")
    shutil.copytree(os.path.realpath(folder), partial)  # what a second, concurrent build used to leave
    build_dense(cfg, "minilm", shard_size=4, root=root)
    assert not os.path.exists(partial) and leftovers(os.path.dirname(folder)) == ["dense-minilm"]


def test_damaged_dense_index_is_one_error_line(tmp_path, monkeypatch):
    from qa_baseline.indexes import dense
    fake = lambda name, lang: FakeEncoder("minilm", {"kind": "fake"})  # noqa: E731
    monkeypatch.setattr(dense, "load_encoder", fake)
    monkeypatch.setattr("qa_baseline.retrievers.dense.load_encoder", fake)
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path))
    cfg = corpus_config(TINY)
    folder = dense.build_dense(cfg, "minilm", shard_size=4)
    assert open_retriever("dense", cfg, {"encoder": "minilm"}).search(["cat"], 1)[0]
    with open(os.path.join(folder, "faiss.index"), "r+b") as f:
        f.truncate(100)
    with pytest.raises(UserError, match=r"dense-minilm is damaged or incomplete \(RuntimeError: .*\) \(fix: rebuild "
                                        r"it with: .*--dense minilm --shard-size 4 --force\)$"):
        open_retriever("dense", cfg, {"encoder": "minilm"})


def test_dense_hint_keeps_the_shard_size_of_the_build_in_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path))
    monkeypatch.setattr("qa_baseline.retrievers.dense.load_encoder", lambda name, lang: FakeEncoder(name, {}))
    cfg = corpus_config(TINY)
    partial = tmp_path / cfg.index / ".dense-minilm.partial"
    partial.mkdir(parents=True)
    (partial / "spec.json").write_text(json.dumps({"fingerprint": "f", "shard_size": 1000}))
    with pytest.raises(UserError, match=r"build it with: .*--dense minilm --shard-size 1000; it "):
        open_retriever("dense", cfg, {"encoder": "minilm"})


def test_missing_index_hints_build_bm25_only_and_say_how_long_a_dense_build_takes(tmp_path, monkeypatch):
    """Issue 21.8: the hint for a BM25 run's missing index builds BM25 only (`--no-dense`: the corpus config
    lists minilm, whose build takes most of an hour on shared-en); the hint for a dense index says how long its
    build takes, estimated from the BM25 index's passage count."""
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path))
    monkeypatch.setattr("qa_baseline.retrievers.dense.load_encoder", lambda name, lang: FakeEncoder(name, {}))
    with pytest.raises(UserError, match=r"^no index at .*/vital-en/bm25-default \(fix: build it with: "
                                        r"\.venv/bin/python -m qa_baseline\.index --corpus vital-en --no-dense\)$"):
        open_retriever("bm25", corpus_config("vital-en"), {})
    with pytest.raises(UserError, match=r"build it with: .* --corpus vital-en --dense minilm-onnx; it encodes about "
                                        r"30–73 passages/s, an estimate measured with minilm-onnx on 2 CPU cores\)$"):
        open_retriever("dense", corpus_config("vital-en"), {})  # vital-en's encoder runs on ONNX Runtime
    (tmp_path / "vital-en" / "bm25-default").mkdir(parents=True)
    (tmp_path / "vital-en" / "bm25-default" / "manifest.json").write_text('{"passages": 95675}')
    with pytest.raises(UserError, match=r"--dense minilm; it takes an estimated 42–106 min for 95,675 passages, at "
                                        r"the 15–38 passages/s measured with minilm on 2 CPU cores; more cores or a "
                                        r"GPU are faster\)$"):
        open_retriever("dense", corpus_config("vital-en"), {"encoder": "minilm"})
    with pytest.raises(UserError, match=r"--dense bge-small; it takes an estimated 12 min for 95,675 passages, at "
                                        r"the 128 passages/s measured with bge-small on 2 CPU"):  # its config's rate
        open_retriever("dense", corpus_config("vital-en"), {"encoder": "bge-small"})
    with pytest.raises(UserError, match=r"build it with: .* --corpus \S+tiny-en.jsonl\)$"):  # no dense encoders listed
        open_retriever("bm25", corpus_config(TINY), {})


# --- 16.4: no network, no telemetry ------------------------------------------------------------------------------

GUARD = """import socket, sys
attempts = []
def refuse(name):
    def call(*args, **kwargs):
        attempts.append((name, args[:2]))
        raise OSError("network is off in this test")
    return call
socket.getaddrinfo = refuse("getaddrinfo")
socket.create_connection = refuse("create_connection")
socket.socket.connect = refuse("connect")
socket.socket.connect_ex = refuse("connect_ex")
from qa_baseline import run
try:
    run.main(sys.argv[1:])
except SystemExit as e:
    assert not e.code, e.code
assert not attempts, attempts
print("no connection attempts")
"""


def test_cross_encoder_run_makes_no_connection_and_no_telemetry(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    argv = [sys.executable, "-c", GUARD, "--task", "dbqa", "--data", os.path.join(FIXTURES, "dbqa-en.tsv"),
            "--reranker", "cross", "--out", str(tmp_path / "run")]
    strace = shutil.which("strace")
    if strace:  # native threads too: any socket connect of the process and its threads
        argv = [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(tmp_path / "trace"), *argv]
    p = subprocess.run(argv, capture_output=True, text=True, env={**env, "HOME": str(home)}, timeout=300)
    assert p.returncode == 0 and "no connection attempts" in p.stdout, p.stderr[-2000:]
    assert not os.path.exists(home / ".cache" / "Microsoft"), "onnxruntime wrote telemetry under ~/.cache/Microsoft"
    if strace:
        calls = [line for line in open(tmp_path / "trace") if "AF_INET" in line]
        assert calls == [], calls
    row = json.loads((tmp_path / "run" / "row.json").read_text())
    assert row["threads"] >= 1  # the scores of encoders may depend on it: it is recorded


# --- 16.5: files are read line by line with a cap --------------------------------------------------------------

def test_device_or_folder_as_gold_is_named(tmp_path):
    sub = tmp_path / "s.txt"
    sub.write_text("x\n")
    p = cli("score", "--task", "kbqa", "--gold", "/dev/zero", "--submission", str(sub))
    assert p.returncode == 2 and \
        p.stderr == "error: /dev/zero: not a regular file but a device or socket (fix: give a file)\n"
    p = cli("score", "--task", "dbqa", "--gold", str(tmp_path), "--submission", str(sub))
    assert p.returncode == 2 and p.stderr == f"error: {tmp_path}: is a folder, not a file (fix: give the file itself)\n"


def test_overlong_line_is_one_error_not_a_memory_error(tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.write(b"e1," + b"A" * (17 << 20))
    with pytest.raises(UserError, match=r"big.txt:1: a line longer than 16 MiB"):
        dbqa.formats.read_gold(str(big))
    errors = validate.Errors()
    mcqa.formats.read_submission(str(big), mcqa.formats.read_gold(os.path.join(SCORING, "mcqa-en.csv")), errors)
    assert errors.lines() == [f"{big}:1: a line longer than 16 MiB: not a text file of this task (a binary file, "
                              "or one without line breaks?) (fix: give the right file)"]


def test_reading_a_huge_gold_file_stays_within_a_memory_limit(tmp_path):
    """Under a 1 GB address-space limit the whole-file reader ended in a MemoryError traceback."""
    big = tmp_path / "gold.txt"
    with open(big, "wb") as f:
        f.truncate(3 << 30)  # 3 GB of NUL bytes (sparse: no disk used)
    sub = tmp_path / "s.txt"
    sub.write_text("x\n")
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "from qa_baseline import score; score.main(sys.argv[1:])")
    p = subprocess.run([sys.executable, "-c", code, "--task", "kbqa", "--gold", str(big), "--submission", str(sub)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "MemoryError" not in p.stderr, p.stderr[-500:]
    assert "gold.txt:1: a line longer than 16 MiB" in p.stderr


# --- 16.7 and 15.2: run folders ----------------------------------------------------------------------------------

def run(*args, out):
    """The exit status of an mcqa-en run on the tiny corpus into OUT, in this process (the JVM is warm)."""
    try:
        run_module.main(["--task", "mcqa-en", "--corpus", TINY, "--out", str(out), *args])
    except SystemExit as e:
        return e.code
    return 0


def test_run_folder_keeps_the_users_files_and_drops_the_previous_runs_trace(tiny_index, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("the user's own")
    (out / "trace.jsonl").write_text("the user's own trace, not a run's")
    assert run("--data", MCQA, out=out) == 0
    assert (out / "trace.jsonl").read_text() == "the user's own trace, not a run's"  # not written by a run
    (out / "trace.jsonl").unlink()
    assert run("--data", MCQA, "--trace", "--team", "a", out=out) == 0
    assert (out / "trace.jsonl").exists() and (out / "a_en.csv").exists()
    assert run("--data", MCQA, "--team", "b", out=out) == 0  # same inputs: replaces its own run
    assert sorted(os.listdir(out)) == ["b_en.csv", "notes.txt", "row.json"]
    row = json.loads((out / "row.json").read_text())
    assert row["files"] == {"submission": str(out / "b_en.csv")}
    assert row["threads"] == process.threads()  # QA_BASELINE_THREADS, else the cores


def test_a_run_waits_for_another_writing_the_same_folder(tiny_index, tmp_path):
    out = tmp_path / "shared"
    out.mkdir()
    lines = []
    with locked(str(out), "held by the test"):
        child = subprocess.Popen([sys.executable, "-m", "qa_baseline.run", "--task", "mcqa-en", "--corpus", TINY,
                                  "--data", MCQA, "--out", str(out)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        threading.Thread(target=lambda: lines.extend(child.stderr), daemon=True).start()
        deadline = time.time() + 120
        while not any("waiting" in line for line in lines) and child.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        assert child.poll() is None and os.listdir(out) == []  # retrieval done, its writing waits for the lock
    assert child.wait(60) == 0
    assert any("another run is writing there; waiting for it to finish" in line for line in lines)
    assert sorted(os.listdir(out)) == ["qa_baseline_en.csv", "row.json"]


def test_same_stem_other_data_never_overwrites_a_run(tiny_index, tmp_path, monkeypatch):
    x, y = tmp_path / "x", tmp_path / "y"
    x.mkdir()
    y.mkdir()
    shutil.copy(MCQA, x / "test.csv")
    (y / "test.csv").write_text(open(MCQA).read().replace(",A\n", ",B\n"))
    monkeypatch.setattr("qa_baseline.reporting.rows.RUNS", str(tmp_path / "runs"))
    run_module.main(["--task", "mcqa-en", "--corpus", TINY, "--data", str(x / "test.csv")])
    folder = tmp_path / "runs" / "mcqa-en" / "test--tiny-en--bm25"
    before = (folder / "row.json").read_text()
    with pytest.raises(SystemExit) as e:
        run_module.main(["--task", "mcqa-en", "--corpus", TINY, "--data", str(y / "test.csv")])
    assert e.value.code == 2 and (folder / "row.json").read_text() == before
    submission = (folder / "qa_baseline_en.csv").read_text()
    shutil.copy(MCQA, y / "test.csv")  # the same data elsewhere: the same run, which may replace its folder
    run_module.main(["--task", "mcqa-en", "--corpus", TINY, "--data", str(y / "test.csv")])  # no SystemExit
    row = json.loads((folder / "row.json").read_text())
    assert row["data"] == str(y / "test.csv") and row["data_sha256"] == json.loads(before)["data_sha256"]
    assert (folder / "qa_baseline_en.csv").read_text() == submission  # the same answers, in the same folder
    assert os.listdir(tmp_path / "runs" / "mcqa-en") == [folder.name]  # replaced, not written beside it


def test_other_options_into_the_same_out_are_refused(tiny_index, tmp_path, capsys):
    out = tmp_path / "o"
    assert run("--data", MCQA, out=out) == 0
    capsys.readouterr()
    assert run("--data", MCQA, "--n", "1", out=out) == 2
    err = capsys.readouterr().err
    assert "holds another run (its options differ" in err and "pass --out DIR" in err


# --- 16.8: smaller ----------------------------------------------------------------------------------------------

def test_team_with_a_path_separator_is_refused(tiny_index, tmp_path, capsys):
    assert run("--data", MCQA, "--team", "../x", out=tmp_path / "o") == 2
    assert "--team '../x'" in capsys.readouterr().err and not (tmp_path / "x_en.csv").exists()


def test_control_characters_in_ids_are_refused(tmp_path):
    data = tmp_path / "q.csv"
    data.write_bytes(b'q\x001,"Q","a","b","c","d"\n')
    with pytest.raises(UserError, match=r"q.csv:1: control character U\+0000 at character 2"):
        mcqa.formats.read(str(data))
    sub = tmp_path / "s.csv"
    sub.write_bytes(b"e1\x01,A\ne2,B\ne3,C\n")
    out = problems(mcqa, sub, mcqa.formats.read_gold(os.path.join(SCORING, "mcqa-en.csv")))
    assert "s.csv:1: control character U+0001 at character 3 of the line (a binary file?) (fix: remove it)" in out


def test_doctype_in_xml_gold_is_named(tmp_path):
    gold = tmp_path / "g.xml"
    gold.write_text('<!DOCTYPE r [<!ENTITY a "x">]>\n<QAPair id="1"><question>q</question></QAPair>\n')
    with pytest.raises(UserError, match="DOCTYPE and entity declarations are not allowed"):
        openqa.formats.read_gold(str(gold))


def test_unwritable_out_is_reported_before_any_retrieval(tiny_index, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr("qa_baseline.tasks.mcqa.pipeline.predict", lambda *a: pytest.fail("retrieval ran"))
    with pytest.raises(SystemExit) as e:
        run_module.main(["--task", "mcqa-en", "--corpus", TINY, "--data", MCQA, "--out", str(blocker / "run")])
    assert e.value.code == 2


# --- 15.6: validation edge cases --------------------------------------------------------------------------------

def problems(module, path, gold):
    errors = validate.Errors()
    module.formats.read_submission(str(path), gold, errors)
    return "\n".join(errors.lines())


@pytest.fixture
def mcqa_gold():
    return mcqa.formats.read_gold(os.path.join(SCORING, "mcqa-en.csv"))


def test_empty_submission_is_one_error(tmp_path, mcqa_gold):
    """One problem, whose fix says what a line of the format looks like (issue 21.9: not a pointer to a source
    file)."""
    sub = tmp_path / "s.csv"
    sub.write_text("")
    assert problems(mcqa, sub, mcqa_gold) == f"{sub}: the file is empty (fix: write one line per question: id,X " \
                                             "(X one of A, B, C, D))"
    gold = dbqa.formats.read_gold(os.path.join(SCORING, "dbqa.tsv"))
    assert problems(dbqa, sub, gold) == f"{sub}: the file is empty (fix: write one line per question: a score per " \
                                        "line of the test file, in its order, e.g. 0.5)"  # no line-count error after it
    kb_gold = kbqa.formats.read_gold(os.path.join(SCORING, "kbqa.txt"))
    assert problems(kbqa, sub, kb_gold) == f"{sub}: the file is empty (fix: write one line per question: " \
                                           f"{kbqa.formats.LAYOUT})"
    assert "formats.py" not in problems(openqa, sub, openqa.formats.read_gold(os.path.join(SCORING, "openqa.xml")))


def test_utf16_submission_is_one_error(tmp_path, mcqa_gold):
    sub = tmp_path / "s.csv"
    sub.write_text("e1,A\ne2,B\ne3,C\n", encoding="utf-16")
    assert problems(mcqa, sub, mcqa_gold) == f"{sub}:1: the file is UTF-16, not UTF-8 (fix: save it as UTF-8)"
    sub.write_bytes("e1,A\ne2,B\ne3,C\n".encode("utf-16-le"))  # no byte-order mark
    assert problems(mcqa, sub, mcqa_gold) == f"{sub}:1: the file is UTF-16, not UTF-8 (fix: save it as UTF-8)"
    with pytest.raises(UserError, match="the file is UTF-16"):
        dbqa.formats.read_gold(str(sub))


def test_header_line_is_named_as_such(tmp_path, mcqa_gold):
    sub = tmp_path / "s.csv"
    sub.write_text("id,answer\ne1,A\ne2,B\ne3,C\n")
    assert problems(mcqa, sub, mcqa_gold) == f"{sub}:1: this looks like a header row ('id,answer'), not an " \
                                             "answer (fix: remove the header line: the format has none)"
    gold = dbqa.formats.read_gold(os.path.join(SCORING, "dbqa.tsv"))
    scores = tmp_path / "scores.txt"
    scores.write_text("score\n" + "0.5\n" * sum(len(g.texts) for g in gold))
    assert problems(dbqa, scores, gold).startswith(f"{scores}:1: this looks like a header row ('score')")


def test_wrong_gold_file_gets_one_hint_first(tmp_path):
    gold = kbqa.formats.read_gold(os.path.join(SCORING, "kbqa.txt"))
    sub = tmp_path / "s.txt"
    sub.write_text("".join(f"<question id={i}>\tq{i}\n<answer id={i}>\ta\n" for i in range(100, 130)))
    out = problems(kbqa, sub, gold).splitlines()
    assert out[0] == (f"{sub}: 30 of the submission's 30 ids are not in the gold file: is this the right gold file? "
                      "(fix: give the gold (test) file of this task and of these questions as --gold, not the "
                      "training file or another task's)")
    questions = os.path.join(FIXTURES, "datasearch-questions.tsv")  # the questions given as gold: all scores 0
    run_file = tmp_path / "run.txt"
    run_file.write_text("<SYSDESC>x</SYSDESC>\n" + "".join(f"ds-{i}\tNorway\n" for i in range(1, 11)))
    p = cli("score", "--task", "datasearch", "--gold", questions, "--submission", str(run_file))
    assert p.returncode == 0 and "hint: every measure is below 0.05: is " in p.stderr



def test_fewer_collections_restores_the_collector_after_its_block():
    """Candidate extraction runs under process.fewer_collections; the thresholds come back after the block, an
    error in it too (the tests and a long-lived process go on with Python's defaults)."""
    import gc
    before = gc.get_threshold()
    with process.fewer_collections():
        assert gc.get_threshold() == process.COLLECT_EVERY != before
    assert gc.get_threshold() == before
    with pytest.raises(KeyError), process.fewer_collections():
        raise KeyError("a failing question")
    assert gc.get_threshold() == before
