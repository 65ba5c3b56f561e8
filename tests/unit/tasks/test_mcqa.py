"""IJCNLP-2017 T5 MCQA: CSV reading, the published option-scoring rule, the CLI end to end, and the
faithfulness check against the independently measured accuracies."""
import json
import os
import re

import pytest

from conftest import FIXTURES, cli
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import UserError
from qa_baseline.core.fileio import UMASK
from qa_baseline.indexes.lucene import build_bm25
from qa_baseline.retrievers import open_retriever
from qa_baseline.tasks.mcqa import formats as mcqa, pipeline as mcqa_pipeline

SAMPLE = os.path.join(FIXTURES, "mcqa-sample.csv")


def write(tmp_path, text, name="q.csv", encoding="utf-8"):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return str(p)


# ---- reading the CSV ----

def test_read_quoted_newlines_bom_and_header(tmp_path):
    p = write(tmp_path, '\ufeffid,question,A,B,C,D,correct\n'
                        '7,"A question\nover two lines, with a comma","a","b ""quoted""","c","d",c\n'
                        '8,"Second","w","x","y","z",A\n')
    qs = mcqa.read(p)
    assert [q.id for q in qs] == ["7", "8"]
    assert qs[0].question == "A question\nover two lines, with a comma"
    assert qs[0].options == ["a", 'b "quoted"', "c", "d"] and qs[0].gold == "C"
    assert qs[1].line == 4  # the record after a two-line record starts on line 4


def test_read_without_gold(tmp_path):
    qs = mcqa.read(write(tmp_path, '1,"Q?","a","b","c","d"\n'))
    assert qs[0].gold is None


def test_official_correct_answer_0_to_3_is_read_as_a_letter(tmp_path):
    official = write(tmp_path, 'id,question,A,B,C,D,correctAnswer\n1,"Q?","a","b","c","d",0\n2,"R?","a","b","c","d",3\n')
    letters = write(tmp_path, '1,"Q?","a","b","c","d",A\n2,"R?","a","b","c","d",D\n', "letters.csv")
    assert [q.gold for q in mcqa.read(official)] == ["A", "D"] == [q.gold for q in mcqa.read_gold(letters)]
    assert [q.gold for q in mcqa.read_gold(official)] == ["A", "D"]
    sub = write(tmp_path, "1,A\n2,B\n", "t_en.csv")
    p = cli("score", "--task", "mcqa-en", "--gold", official, "--submission", sub, "--format", "json")
    assert p.returncode == 0 and json.loads(p.stdout)["metrics"] == {"accuracy": 0.5}, p.stderr
    from qa_baseline import tasks
    assert all(q.gold is None for q in tasks.get("mcqa-en").read_input(official))  # the key never reaches predict


@pytest.mark.parametrize("text, line, reason", [
    ('1,"Q","a","b","c"\n', 1, "5 fields, expected 7 (id, question, A, B, C, D, answer) or, in a file without "
                               "answers, 6 (fix: "),
        ('1,"Q","a","b","c","d",E\n', 1, "correctAnswer 'E' is not 0, 1, 2, 3"),
        ('1,"Q","a","b","c","d",4\n', 1, "correctAnswer '4' is not 0, 1, 2, 3"),
    ('1,"Q","a","b","c","d",A\n1,"R","a","b","c","d",B\n', 2, "duplicate id '1' (first on line 1)"),
    ('1,"Q","a","b","c","d",A\n2,"R","a","b","c","d",\n', 2, "gold label missing here but present on other lines"),
    ('1,"Q","a","","c","d",A\n', 1, "empty option B"),
    (',"Q","a","b","c","d",A\n', 1, "empty id"),
    ('1,"","a","b","c","d",A\n', 1, "empty question"),
    ('1,"Q","a","b","c","d",A\n2,"R"x,"a","b","c","d",B\n', 2, "malformed CSV"),
])
def test_read_errors_name_file_line_reason(tmp_path, text, line, reason):
    p = write(tmp_path, text)
    with pytest.raises(UserError) as e:
        mcqa.read(p)
    assert str(e.value).startswith(f"{p}:{line}: ") and reason in str(e.value)


@pytest.mark.parametrize("text, line, fix", [
    ('1,"Q","a","b","c","d",A\n2,"R","a","b","c","d"\n', 2, "as on line 1"),  # the other rows have 7
    ('1,"Q","a","b","c","d"\n2,"R","a","b","c","d",B\n', 1, "as on line 2"),  # the first row is the odd one
])
def test_a_six_field_row_among_seven_field_rows_says_what_is_missing(tmp_path, text, line, fix):
    """Issue 21.9: a row without its answer in a labelled file is `6 fields, expected 7 (id, question, A, B, C,
    D, answer)`; an unlabelled test file (6 fields everywhere) reads as before."""
    p = write(tmp_path, text)
    with pytest.raises(UserError) as e:
        mcqa.read(p)
    assert str(e.value) == (f"{p}:{line}: 6 fields, expected 7 (id, question, A, B, C, D, answer) (fix: add the "
                            f"answer (0-3 or A-D) as the 7th field, {fix})")
    assert [q.gold for q in mcqa.read(write(tmp_path, '1,"Q","a","b","c","d"\n2,"R","a","b","c","d"\n'))] == \
        [None, None]
    with pytest.raises(UserError, match=r":3: 7 fields, expected 6 \(id, question, A, B, C, D\) as on the lines "
                                        "before"):
        mcqa.read(write(tmp_path, '1,"Q","a","b","c","d"\n2,"R","a","b","c","d"\n3,"S","a","b","c","d",C\n'))


def test_read_not_utf8_and_empty(tmp_path):
    with pytest.raises(UserError, match=r"q.csv:1: not UTF-8 \(looks like Latin-1/Windows-1252\)"):
        mcqa.read(write(tmp_path, '1,"Qué","a","b","c","d",A\n', encoding="latin-1"))
    with pytest.raises(UserError, match=r"q.csv: no questions \(fix: write one line per question: "):
        mcqa.read(write(tmp_path, "\n"))


# ---- the published scoring rule ----

def test_option_score_is_mean_of_top_n_and_zero_without_hits():
    hits = [("a", 3.0), ("b", 2.0), ("c", 1.0), ("d", 0.5)]
    assert mcqa_pipeline.option_score(hits, 3) == 2.0
    assert mcqa_pipeline.option_score(hits[:2], 3) == 2.5  # fewer than n hits: mean of those found
    assert mcqa_pipeline.option_score(hits, 1) == 3.0
    assert mcqa_pipeline.option_score([], 3) == 0.0


def test_ties_go_to_the_earliest_option():
    assert mcqa_pipeline.choose([1.0, 2.0, 2.0, 0.5]) == 1
    assert mcqa_pipeline.choose([0.0, 0.0, 0.0, 0.0]) == 0
    assert mcqa_pipeline.choose([0.0, 0.0, 0.0, 0.1]) == 3


def run_task(task, data, corpus, out, *options):
    """The row of `python -m qa_baseline.run`, run in this process (the index root of the fixtures applies)."""
    from qa_baseline import run
    run.main(["--task", task, "--data", data, "--corpus", corpus, "--out", str(out), *options])
    with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
        return json.load(f)


def run_sample(cfg, tmp_path, data=SAMPLE, trace=True):
    row = run_task("mcqa-en", data, cfg.sources[0].file, tmp_path, *(["--trace"] if trace else []))
    return open_retriever("bm25", cfg, {}), row


def test_pipeline_on_hand_made_corpus(tiny_cfg, tmp_path):
    retriever, result = run_sample(tiny_cfg, tmp_path)
    with open(result["files"]["submission"], encoding="utf-8") as f:
        assert f.read() == "q1,A\nq2,B\nq3,C\nq4,A\n"
    assert os.path.basename(result["files"]["submission"]) == "qa_baseline_en.csv"
    assert result["metrics"]["accuracy"] == 1.0 and result["questions"] == 4
    with open(result["files"]["trace"], encoding="utf-8") as f:
        trace = [json.loads(line) for line in f]
    for t in trace:  # every option score in the trace is the rule applied to the hits the retriever returns
        for o in t["options"]:
            hits = retriever.search([f"{t['question']} {o['text']}"], k=3)[0]
            assert [(h["docid"], h["score"]) for h in o["hits"]] == hits
            assert o["score"] == mcqa_pipeline.option_score(hits, 3)
    assert trace[1]["options"][1]["hits"][0] == {"docid": "d6", "score": pytest.approx(3.7662, abs=1e-6),
                                                  "title": "Iron"}


@pytest.mark.parametrize("data", [SAMPLE, "ties"])
def test_rule_without_trace_answers_as_with_it(tiny_cfg, tmp_path, monkeypatch, data):
    """Without --trace the rule reads only the top scores (BM25.top_scores), never the hits: same answers."""
    from qa_baseline.retrievers.bm25 import BM25
    if data == "ties":  # an option without hits, a four-way tie, one option that finds more than another
        data = write(tmp_path, '1,"Which?","qwerty","zxcvb","asdf","cat"\n2,"What is frozen water?","qwerty","zxcvb",'
                               '"asdf","uiop"\n3,"What attracts iron?","a magnet","milk","the sun","ice"\n', "t.csv")
    submissions = []
    for trace in (True, False):
        if not trace:
            monkeypatch.setattr(BM25, "search", lambda *a, **k: pytest.fail("the rule searched for hits"))
        _, result = run_sample(tiny_cfg, tmp_path / str(trace), data, trace=trace)
        with open(result["files"]["submission"], encoding="utf-8") as f:
            submissions.append(f.read())
    assert submissions[0] == submissions[1] and len(submissions[0].splitlines()) in (3, 4)


def test_no_hit_option_scores_zero_and_tie_goes_first(tiny_cfg, tmp_path):
    data = write(tmp_path, '1,"Which?","qwerty","zxcvb","asdf","cat"\n'   # only D finds anything
                           '2,"What is frozen water?","qwerty","zxcvb","asdf","uiop"\n', "t.csv")  # 4-way tie
    _, result = run_sample(tiny_cfg, tmp_path, data)
    with open(os.path.join(tmp_path, "trace.jsonl"), encoding="utf-8") as f:
        trace = [json.loads(line) for line in f]
    assert [o["score"] for o in trace[0]["options"]][:3] == [0.0, 0.0, 0.0] and trace[0]["answer"] == "D"
    scores = [o["score"] for o in trace[1]["options"]]
    assert scores[0] > 0 and len(set(scores)) == 1 and trace[1]["answer"] == "A"
    assert result["metrics"] == {}  # no gold in this file: no accuracy


# ---- command line ----

def test_cli_end_to_end(index_root, tmp_path):
    corpus = os.path.join(FIXTURES, "tiny-en.jsonl")
    out = tmp_path / "run"
    missing = cli("run", "--task", "mcqa-en", "--corpus", corpus, "--data", SAMPLE, "--out", str(out),
                  env={"QA_BASELINE_INDEXES": str(tmp_path / "none")})
    assert missing.returncode == 2 and f"python -m qa_baseline.index --corpus {corpus})\n" in missing.stderr
    assert "Traceback" not in missing.stderr and not out.exists()
    built = cli("index", "--corpus", corpus, env={"QA_BASELINE_INDEXES": str(tmp_path / "ix")})
    assert built.returncode == 0, built.stderr
    again = cli("index", "--corpus", corpus, env={"QA_BASELINE_INDEXES": str(tmp_path / "ix")})
    assert "up to date" in again.stderr
    done = cli("run", "--task", "mcqa-en", "--corpus", corpus, "--data", SAMPLE, "--out", str(out),
               "--team", "T1", env={"QA_BASELINE_INDEXES": str(tmp_path / "ix")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mcqa-en\tmcqa-sample.csv\ttiny-en\tbm25\t") and "accuracy=1.0000" in done.stdout
    assert (out / "T1_en.csv").read_text() == "q1,A\nq2,B\nq3,C\nq4,A\n"
    row = json.loads((out / "row.json").read_text())
    assert row["metrics"] == {"accuracy": 1.0} and row["questions"] == 4
    assert row["settings"] == {"task": "mcqa-en", "data": "mcqa-sample.csv", "data_sha256": row["data_sha256"],
                               "corpus": "tiny-en", "method": "bm25", "n": 3, "analyzer": "default", "k1": 0.9,
                               "b": 0.4}
    assert set(row["observed"]) == {"seconds"}  # timings are observed, never settings
    assert row["index_manifest"]["passages"] == 6 and row["versions"]["anserini"] == "1.7.1"
    traced = cli("run", "--task", "mcqa-en", "--corpus", corpus, "--data", SAMPLE, "--out", str(out), "--trace",
                 env={"QA_BASELINE_INDEXES": str(tmp_path / "ix")})
    assert traced.returncode == 0 and len((out / "trace.jsonl").read_text().splitlines()) == 4
    assert oct((out / "row.json").stat().st_mode & 0o777) == oct(0o666 & ~UMASK)


def test_index_of_another_file_of_the_same_name_is_never_opened(index_root, tmp_path):
    one, two = tmp_path / "a" / "c.jsonl", tmp_path / "b" / "c.jsonl"  # same name, other files
    for p in (one, two):
        p.parent.mkdir()
        p.write_text('{"id": "x", "contents": "cat"}\n', encoding="utf-8")
    build_bm25(corpus_config(str(one), lang="zh"))
    with pytest.raises(UserError, match=r"no index at .*/c-[0-9a-f]{8}/bm25-cjk \(fix: build it with: "
                                        f".venv/bin/python -m qa_baseline.index --corpus {two} --lang zh"):
        open_retriever("bm25", corpus_config(str(two), lang="zh"), {})


@pytest.mark.parametrize("args, message", [
    (["--task", "nope"], "invalid choice: 'nope'"),
    (["--task", "mcqa-en", "--corpus", "nope"], "unknown corpus 'nope'; known: "),
    (["--task", "mcqa-en", "--data", "/no/such.csv"], "/no/such.csv: no such data file"),
    (["--task", "mcqa-en", "--k1", "-1"], "BM25 needs k1 >= 0 and 0 <= b <= 1, not k1=-1.0 b=0.4"),
    (["--task", "mcqa-en", "--analyzer", "foo"], "invalid choice: 'foo'"),
    (["--task", "mcqa-en", "--out", "/proc/version"], "/proc/version"),
    ([], "the following arguments are required: --task"),
])
def test_cli_user_errors(index_root, args, message):
    build_bm25(corpus_config("vital-en"))  # into the tests' index folder, which the child inherits
    p = cli("run", *args)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr


# ---- faithfulness: the published rule reproduces the independently measured accuracies ----

EN = {"ai2-science-ai2-8thgr-ndmc-feb2016-dev": (44.6, 35.4), "ai2-science-ai2-8thgr-ndmc-feb2016-train": (52.6, 40.9),
      "ai2-science-ai2-elementary-ndmc-feb2016-dev": (45.7, 39.5),
      "ai2-science-ai2-elementary-ndmc-feb2016-train": (44.8, 36.6), "openbookqa-test": (25.4, 26.6)}
ZH = {"gaokao-biology": 28.6, "gaokao-history": 28.5}


def accuracy_on(corpus, task, data, tmp_path):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    cfg = corpus_config(corpus)
    build_bm25(cfg)
    result = run_task(task, data, corpus, tmp_path / "run")
    return round(100 * result["metrics"]["accuracy"], 1)


@pytest.mark.parametrize("name", sorted(EN))
@pytest.mark.parametrize("corpus", ["shared-en", "vital-en"])
def test_reproduces_reference_accuracy_en(shared, index_root, tmp_path, name, corpus):
    want = EN[name][corpus == "vital-en"]
    assert accuracy_on(corpus, "mcqa-en", os.path.join(shared, "tasks", "mcqa-en", name + ".csv"), tmp_path) == want


@pytest.mark.parametrize("name", sorted(ZH))
def test_reproduces_reference_accuracy_zh(shared, index_root, tmp_path, name):
    assert accuracy_on("shared-zh", "mcqa-zh", os.path.join(shared, "tasks", "mcqa-zh", name + ".csv"),
                       tmp_path) == ZH[name]


def test_jvm_failure_is_one_clear_line():
    code = ("from qa_baseline.core import errors\nfrom qa_baseline.lucene import jvm\n"
            "jvm.java_home = lambda: '/nonexistent/java'\n"
            "errors.cli(lambda argv=None: jvm.start())()\n")
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert p.stderr.startswith("error: cannot start the Java VM from /nonexistent/java: Unable to find libjvm.so")


def test_default_data_is_the_first_existing_file():
    from qa_baseline.run import default_data
    paths = ["/no/such.csv", "examples/mcqa-en-science-sample.csv"]
    assert default_data("t", paths).endswith(os.path.join("examples", "mcqa-en-science-sample.csv"))
    with pytest.raises(UserError, match="no default data file exists .*pass --data FILE"):
        default_data("t", "/no/such.csv")


def test_help_shows_the_task_options():
    p = cli("run", "--task", "mcqa-en", "--help")
    assert p.returncode == 0 and "--n N" in p.stdout and "--team TEAM" in p.stdout


def test_help_shows_the_default_that_applies():
    """A task config's value is the default the help shows, in place of what the field says it defaults to
    without one (openqa-en's config sets its retriever and encoder; mcqa-en's sets neither)."""
    squeeze = lambda text: re.sub(r"\s+", " ", text)  # noqa: E731  (argparse wraps the help)
    openqa, mcqa = (squeeze(cli("run", "--task", t, "--help").stdout) for t in ("openqa-en", "mcqa-en"))
    assert "--encoder ENCODER dense/hybrid encoder (default bge-small) --" in openqa
    assert "bm25, dense or hybrid (default dense)" in openqa
    assert "--encoder ENCODER dense/hybrid encoder (default: the corpus config's, else the language's) --" in mcqa
    assert "bm25, dense or hybrid (default bm25)" in mcqa
