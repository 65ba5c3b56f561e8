"""Submission formats: write -> validate -> score round trips, every validator error, gold readers on the
shared real data, and the exit codes of `python -m qa_baseline.score`."""
import codecs
import gzip
import json
import os
import random
import re
import subprocess
import sys

import pytest

from conftest import FIXTURES, cli
from qa_baseline import ROOT, score as score_cli, tasks
from qa_baseline.core.errors import NoGold, UserError
from qa_baseline.scoring.validate import Errors, Invalid, check
from qa_baseline.tasks.datasearch import formats as datasearch
from qa_baseline.tasks.dbqa import formats as dbqa
from qa_baseline.tasks.kbqa import formats as kbqa
from qa_baseline.tasks.mcqa import formats as mcqa
from qa_baseline.tasks.openqa import formats as openqa
from qa_baseline.tasks.qac import formats as qac



def fixture(name):
    return os.path.join(FIXTURES, "scoring", name)


def problems(module, tmp_path, text, gold, **options):
    """The error lines for a submission with TEXT (str or bytes)."""
    path = tmp_path / "submission.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    errors = Errors(cap=100)
    module.read_submission(str(path), gold, errors, **options)
    return "\n".join(errors.lines())


# --- round trips: write -> validate -> score ----------------------------------------------------------------

def round_trip(module, tmp_path, gold, answers, score_options=None, **write_options):
    path = str(tmp_path / "run.txt")
    module.write_submission(path, answers, **write_options)
    read_options = {"task": score_options["task"]} if score_options else {}
    return module.score(gold, check(module.read_submission, path, gold, **read_options), **(score_options or {}))


def test_mcqa_round_trip(tmp_path):
    questions = mcqa.read_gold(fixture("mcqa-en.csv"))
    result = round_trip(mcqa, tmp_path, questions, {"e1": "A", "e2": "C", "e3": "C"})
    assert result["per_question"] == {"accuracy": [1.0, 0.0, 1.0]}


def test_dbqa_round_trip(tmp_path):
    groups = dbqa.read_gold(fixture("dbqa.tsv"))
    scores = [0.9, 0.5, 0.7, 0.1, 0.2, 0.8, 0.3, 0.3, 0.3, 0.4, 0.4]
    assert round_trip(dbqa, tmp_path, groups, scores)["metrics"] == pytest.approx(
        {"MRR": 2 / 3, "MAP": 33 / 48, "ACC@1": 0.5})


def test_kbqa_round_trip(tmp_path):
    gold = kbqa.read_gold(fixture("kbqa.txt"))
    assert gold["2"].answers == ["B", "C"] and gold["3"].question == "odd ||| question"
    items = {"1": (gold["1"].question, ["A"]), "2": (gold["2"].question, ["B"]), "3": (gold["3"].question, [])}
    result = round_trip(kbqa, tmp_path, gold, items)
    assert result["per_question"]["F1"] == pytest.approx([1, 2 / 3, 0])
    assert result["metrics"] == pytest.approx({"precision": 2 / 3, "recall": 0.5, "F1": 5 / 9})


def test_openqa_round_trip(tmp_path):
    gold = openqa.read_gold(fixture("openqa.xml"))
    assert gold == {"1": ["Limp Bizkit"], "2": ["1955", "AT&T"], "3": []}
    answers = {"1": ["limp bizkit.", "Korn"], "2": ["x", "y", "at&t"], "3": ["z"]}
    result = round_trip(openqa, tmp_path, gold, answers, system="run-1")
    assert result["metrics"] == pytest.approx({"MRR": (1 + 1 / 3) / 3, "accuracy@1": 1 / 3, "accuracy@2": 1 / 3,
                                               "accuracy@3": 2 / 3, "accuracy@4": 2 / 3, "accuracy@5": 2 / 3,
                                               "has_answer_accuracy": 2 / 3})


def test_qac_round_trips(tmp_path):
    gold = qac.read_gold(fixture("qac.tsv"))
    assert gold["Q2"].docs == {"D2", "D3"} and gold["Q3"].answers == []
    lists = {"Q1": [("東京都", "D9")], "Q2": [("日本", "D2"), ("日本", "D3"), ("中国", "D2")], "Q3": []}
    # Q1 F 1 (0 with the support rule: D9 is wrong), Q2 P 1/3 R 1/2 F 0.4, Q3 no answer for no answer: 1
    assert round_trip(qac, tmp_path, gold, lists, {"task": 2})["metrics"] == pytest.approx({"AFM": 0.8})
    assert round_trip(qac, tmp_path, gold, lists, {"task": 3})["metrics"] == pytest.approx({"AFM": 0.8})  # no series
    ranked = {"Q1": [("大阪", "D1"), ("東京", "D1")], "Q2": [("韓国", "")], "Q3": [("x", "D1")]}
    # MRR_supported: the QAC-2 rule, an answer counts only with one of the question's gold documents
    assert round_trip(qac, tmp_path, gold, ranked, {"task": 1})["per_question"] == {
        "MRR": [0.5, 1.0, 0.0], "MRR_supported": [0.5, 0.0, 0.0]}


def test_qac3_scores_follow_up_questions_only(tmp_path):
    path = tmp_path / "series.tsv"
    path.write_text("qid\tanswers_json\thas_answer\tseries_id\tprev_qids_json\n"
                    'S1\t[["Paris"]]\t1\ts\t[]\nS2\t[["1889"]]\t1\ts\t["S1"]\nS3\t[]\t0\ts\t["S1", "S2"]\n',
                    encoding="utf-8")
    gold = qac.read_gold(str(path))
    answers = {"S1": [("Paris", "")], "S2": [("1889", ""), ("1890", "")], "S3": []}
    assert qac.score(gold, answers, task=3)["per_question"] == {"AFM": [pytest.approx(2 / 3), 1.0]}
    assert qac.score(gold, answers, task=2)["per_question"] == {"AFM": [1.0, pytest.approx(2 / 3), 1.0]}


def test_datasearch_round_trip(tmp_path):
    gold = datasearch.read_gold(fixture("datasearch.tsv"))
    answers = {"nt-1": "kim yu-na", "nt-2": "Penn State University", "nt-3": ""}
    result = round_trip(datasearch, tmp_path, gold, answers, description="BM25 over table titles")
    assert (tmp_path / "run.txt").read_text().startswith("<SYSDESC>BM25 over table titles</SYSDESC>\n")
    assert result["metrics"] == pytest.approx({"EM": 1 / 3, "token_F1": 0.6})


# --- validator errors ---------------------------------------------------------------------------------------

SIX = "\t".join(["a", "D1"] * 6)
# task: (module, gold fixture, submission, read options, errors expected after "submission.txt:", absent)
ERROR_CASES = {
    "mcqa": (mcqa, "mcqa-en.csv", "e1,A\ne1,B\ne9,C\ne2,E\n\ne3,A,x\n", {}, [
        "2: duplicate id 'e1' (first on line 1) (fix: answer each id once)",
        "3: unknown id 'e9' (not in the test file)",
        "4: answer 'E' is not one of A, B, C, D (fix: write one capital letter A-D)",
        "5: empty line (fix: remove the line)",
        "6: expected 2 ','-separated fields (id,X), found 3",
        " no answer for id 'e3' (fix: answer every id of the test file exactly once)"], ["id 'e2'"]),
    "dbqa": (dbqa, "dbqa.tsv", "0.5\nabc\nnan\ninf\n-1e3\n", {}, [
        "2: score 'abc' is not a finite number", "3: score 'nan'", "4: score 'inf'",
        " 5 lines, but the test file has 11 (fix: write exactly one score per line"], [":5:"]),
    "kbqa": (kbqa, "kbqa.txt", "<question id=1>\twho wrote the book one?\n<answer id=1>\tA\n<answer id=1>\tB\n"
             "<answer id=2>\tB\n<question id=2>\tsomething else\n<answer id=2>\tB\nquestion 3: D\n"
             "<question id=1>\tagain\n<question id=7>\tnew\n<answer id=7>\tX\n"
             "<question id=3>\todd ||| question\n", {}, [
        "3: second <answer id=1> line (fix: put all answers on one line, separated by ' ||| ')",
        "4: <answer id=2> does not follow <question id=2>",
        "5: question 2 differs from the test file's: 'something else' (fix: copy the question line",
        "7: not a <question|triple|answer id=N> line: 'question 3: D'",
        "8: duplicate question id 1 (first on line 1)",
        "9: unknown id '7'",
        "11: question 3 has no <answer id=3> line"], ["id '1'", "id '2'"]),
    "openqa": (openqa, "openqa.xml", "run\t1\tTrue\t6\ta\tb\tc\td\te\tf\nrun\t2\tTrue\t0\nother\t3\tFalse\t0\n"
               "run\t3\tmaybe\t1\tx\nrun\t4\tTrue\t2\tx\nrun\t5\n\t1\tTrue\tone\tx\nrun\t2\tTrue\t1\t \n", {}, [
        "1: N=6 answers, at most 5 allowed (fix: keep only the best 5)",
        "2: Has-Answer True with N=0 (fix: write True when N > 0, False when N = 0)",
        "3: System 'other' differs from 'run' on line 1",
        "4: Has-Answer 'maybe' is not True or False",
        "4: duplicate id '3' (first on line 3)",
        "5: N=2 but 1 fields follow, not 2",
        "5: unknown id '4'",
        "6: expected 4 tab-separated fields",
        "7: answer count N='one' is not a whole number",
        "7: empty System name",
        "8: empty answer (fix: remove it and lower N)"], ["no answer"]),
    "qac": (qac, "qac.tsv", f"Q1\t6\t{SIX}\nQ2\t1\ta\nQ3\n", {"task": 1}, [
        "1: N=6 answers, at most 5 allowed", "2: N=1 but 1 fields follow, not 2",
        "3: expected 2 tab-separated fields", " no answer for id 'Q3'"], ["'Q1'", "'Q2'"]),
    "datasearch": (datasearch, "datasearch.tsv", "nt-1\tKim\nnt-2\ta\tb\nnt-3\t1965\n", {}, [
        "1: the first line is not <SYSDESC>...</SYSDESC>",
        "2: expected 2 tab-separated fields (QID<TAB>ANSWER), found 3", " no answer for id 'nt-2'"], ["'nt-1'"]),
}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_validator_errors(case, tmp_path):
    module, gold, text, options, expected, absent = ERROR_CASES[case]
    out = problems(module, tmp_path, text, module.read_gold(fixture(gold)), **options)
    assert [e for e in expected if f"submission.txt:{e}" not in out] == [], out
    assert [a for a in absent if a in out] == [], out


def test_validators_pass_what_the_task_allows(tmp_path):
    gold = qac.read_gold(fixture("qac.tsv"))
    assert problems(qac, tmp_path, f"Q1\t6\t{SIX}\nQ2\t0\nQ3\t0\n", gold, task=2) == ""  # no limit on N
    gold = datasearch.read_gold(fixture("datasearch.tsv"))
    assert "SYSDESC" in problems(datasearch, tmp_path, "nt-1\tKim Yu-na\n", gold)


def test_encoding_problems_are_reported(tmp_path):
    questions = mcqa.read_gold(fixture("mcqa-en.csv"))
    out = problems(mcqa, tmp_path, b"\xef\xbb\xbfe1,A\r\ne2,\xff\r\ne3,C\r\n", questions)
    assert "BOM" not in out and "'e1'" not in out  # issue 49.3: a byte-order mark (Excel's) is dropped, e1 read
    assert "submission.txt:2: not valid UTF-8 (byte 4 of the line: invalid start byte)" in out
    assert out.count("\n") == 1  # bad byte, the bad line's answer; CRLF itself is fine
    assert problems(mcqa, tmp_path, b"e1,A\r\ne2,B\r\ne3,C", questions) == ""


TEXTS = {"gbk": "北京大学是哪一年建立的？", "gb18030": "中国人民银行的行长是谁？", "big5": "國立臺灣大學位於哪裡？",
         "shift_jis": "東京は日本の首都ですか？", "euc_jp": "これはテストです", "cp1252": "Wer ist Jürgen Müller?",
         "latin-1": "Où est le café?"}
NAMES = {"gbk": "GBK", "gb18030": "GBK", "big5": "Big5", "shift_jis": "Shift_JIS", "euc_jp": "EUC-JP",
         "cp1252": "Latin-1/Windows-1252", "latin-1": "Latin-1/Windows-1252"}


@pytest.mark.parametrize("codec", TEXTS)
def test_a_file_in_another_encoding_is_one_problem_naming_it(tmp_path, codec):
    """Issue 21.7: a submission saved in GBK (or Big5, Shift_JIS...) is one problem naming the encoding, not one
    'not valid UTF-8' per line; a gold or data file in it is one error line naming it."""
    question = TEXTS[codec]
    gold_path = tmp_path / "gold.txt"
    gold_path.write_text("".join(f"<question id={i}>\t{question}{i}\n<answer id={i}>\t{question[:4]}\n{'=' * 50}\n"
                                 for i in range(1, 301)), encoding="utf-8")
    gold = kbqa.read_gold(str(gold_path))
    text = gold_path.read_text(encoding="utf-8")
    out = problems(kbqa, tmp_path, text.encode(codec), gold)
    assert out == f"{tmp_path}/submission.txt:1: not UTF-8 (looks like {NAMES[codec]}) (fix: save it as UTF-8)"
    gold_path.write_bytes(text.encode(codec))
    with pytest.raises(UserError, match=rf"gold.txt:1: not UTF-8 \(looks like {re.escape(NAMES[codec])}\) "
                                        r"\(fix: save it as UTF-8\)$"):
        kbqa.read_gold(str(gold_path))
    csv = tmp_path / "data.csv"  # a data file read through textio.text_lines: the same one line
    csv.write_bytes(f'1,"{question}","a","b","c","d",A\n'.encode(codec))
    with pytest.raises(UserError, match=rf"data.csv:1: not UTF-8 \(looks like {re.escape(NAMES[codec])}\)"):
        mcqa.read(str(csv))


def test_a_bad_byte_in_a_utf8_file_is_still_named_by_its_place(tmp_path):
    """Once a line held UTF-8 beyond ASCII, the file is UTF-8: a later bad byte is named by line and byte, and
    each bad line is its own problem (no encoding is guessed)."""
    gold = kbqa.read_gold(fixture("kbqa.txt"))
    text = "<question id=1>\twho wrote the book one?\n<answer id=1>\tA é\n" + "=" * 50 + "\n"
    raw = text.encode() + "<question id=2>\twhich two?\n<answer id=2>\tB é\n".encode("latin-1")
    out = problems(kbqa, tmp_path, raw, gold)
    assert "submission.txt:5: not valid UTF-8 (byte 17 of the line: unexpected end of data)" in out
    assert "looks like" not in out


@pytest.mark.parametrize("module, text, message", [
    (openqa, "q1\twho wrote Hamlet?\tShakespeare\nq2\twhen?\t1600\n",
     r"gold.tsv:1: not XML \(looks like TSV\) \(fix: give the NLPCC 2014 XML file: <QAPair id=\"QID\">"),
    (openqa, "", r"gold.tsv: no <QAPair> elements \(fix: write each question as <QAPair"),
    (dbqa, "", r"gold.tsv: no lines \(fix: write one line per candidate sentence: question<TAB>sentence"),
    (kbqa, "=====\n", r"gold.tsv: no <question id=N> lines \(fix: write each question as <question id=N>"),
    (qac, "qid\tquestion\tanswers_json\thas_answer\n", r"gold.tsv: no questions \(fix: write one line per question "),
    (datasearch, "", r"gold.tsv: no questions \(fix: write one line per question: qid<TAB>answer"),
])
def test_wrong_or_empty_gold_files_say_what_they_are_and_the_fix(tmp_path, module, text, message):
    """Issue 21.9: a TSV given as openqa-en's XML is `not XML (looks like TSV)`; `no questions` and `no lines`
    say how to write one; every fix in the one style `(fix: ...)`."""
    path = tmp_path / "gold.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match=message):
        (module.read_questions if module is kbqa else module.read_gold)(str(path))


def test_errors_at_writes_the_fix_in_the_one_style():
    from qa_baseline.core.errors import Problems, at
    assert str(at("f.txt", 3, "bad label", "write 0 or 1")) == "f.txt:3: bad label (fix: write 0 or 1)"
    assert str(at("f.txt", None, "empty")) == "f.txt: empty"
    with pytest.raises(UserError, match=r"^c.jsonl:2: invalid JSON \(fix: correct the record, or pass "
                                        r"--on-bad-record skip to skip such records\)$"):
        Problems("stop").report("c.jsonl", 2, "invalid JSON")


def test_errors_are_capped():
    errors = Errors(cap=2)
    for n in range(1, 6):
        errors.add("f", n, "bad", "fix it")
    assert errors.lines() == ["f:1: bad (fix: fix it)", "f:2: bad (fix: fix it)", "... and 3 more"]
    assert str(Invalid(errors)).endswith("... and 3 more")


@pytest.mark.parametrize("module, text, message", [
    (dbqa, b"q\ts\t2\n", r"gold.tsv:1: label '2' is not 0 or 1"),
    (dbqa, b"q\ts\t1\nq\t\xff\t0\n", "gold.tsv:2: not valid UTF-8"),
    (kbqa, b"<answer id=1>\tx\n", r"gold.tsv:1: <answer id=1> does not follow <question id=1>"),
    (openqa, b"<QAPair id='1'><question>q</question>", "gold.tsv:1: malformed XML"),
    (qac, b'qid\tanswers_json\thas_answer\nQ1\t[["a"]]\t0\n', "gold.tsv:2: has_answer 0 disagrees with 1 answer \\(fix: "),
    (qac, b'qid\tanswers_json\thas_answer\nQ1\t["a"]\t1\n', "gold.tsv:2: .* is not a JSON list of lists of strings"),
    (datasearch, b"nt-1\t\n", "gold.tsv:1: expected qid"),
    (mcqa, b'q1,"Q","a","b","c","d"\n', "no gold labels"),
])
def test_gold_problems_are_one_line_user_errors(tmp_path, module, text, message):
    (tmp_path / "gold.tsv").write_bytes(text)
    with pytest.raises(UserError, match=message):
        module.read_gold(str(tmp_path / "gold.tsv"))


# --- real data ----------------------------------------------------------------------------------------------

def test_real_gold_readers(shared):
    def data(rel):
        return os.path.join(shared, "tasks", rel)
    assert len(dbqa.read_gold(data("dbqa/en-wikiqa-dev.tsv"))) == 126
    assert len(dbqa.read_gold(data("dbqa/zh-cmrc2018-trial.tsv"))) >= 926  # repeated questions: more groups
    kb = kbqa.read_gold(data("kbqa/nlpcc-iccpol-2016.kbqa.testing-data"))
    assert len(kb) == 9870 and kb["1"].answers == ["秦婉，王蓉"]
    assert kb["7315"].question.endswith("|||")
    assert len(kbqa.read_gold(data("kbqa/nlpcc-iccpol-2016.kbqa.training-data"))) == 14609
    assert len(openqa.read_gold(data("openqa-en/trecqa-dev.xml"))) == 78
    assert openqa.read_gold(data("openqa-en/trecqa-train.xml"))["1"] == ["Hugo Young", "Young"]
    task2 = qac.read_gold(data("qac/ja-task2-dev.tsv"))
    assert len(task2) == 179 and any(not g.answers for g in task2.values())
    assert len(qac.read_gold(data("qac/ja-task1-dev.tsv"))) == 799
    squad = qac.read_gold(data("qac/en-squad2-noanswer-dev.tsv"))
    assert squad["56dde0379a695914005b9636"].docs == {"SQUAD2DEV-Normans-002"}
    ds = datasearch.read_gold(data("datasearch/wtq-dev/gold.tsv"))
    assert len(ds) == 188 and ds["nt-5401"] == ["1965", "1966"]


def test_real_dbqa_perfect_and_reversed(shared, tmp_path):
    """A perfect submission (the labels as scores) scores MRR = MAP = ACC@1 = 1 exactly. The reversed one (the
    labels negated: in each question the wrong sentences come first, in file order, then the right ones, also in
    file order) scores what is computed here by hand: of n sentences with m right ones, the k-th right one is
    ranked n - m + k, so RR = 1 / (n - m + 1), AveP = (1/m) sum_k k / (n - m + k), ACC@1 = [n = m]."""
    gold = os.path.join(shared, "tasks", "dbqa", "en-wikiqa-dev.tsv")
    groups = dbqa.read_gold(gold)
    labels = [label for g in groups for label in g.labels]
    path = str(tmp_path / "run.txt")
    dbqa.write_submission(path, labels)
    assert dbqa.score(groups, check(dbqa.read_submission, path, groups))["metrics"] == \
        {"MRR": 1.0, "MAP": 1.0, "ACC@1": 1.0}
    assert score_cli.main(["--task", "dbqa", "--gold", gold, "--submission", path, "--format", "csv"]) == 0
    dbqa.write_submission(path, [-x for x in labels])
    result = dbqa.score(groups, check(dbqa.read_submission, path, groups))["metrics"]
    sizes = [(len(g.labels), sum(g.labels)) for g in groups]
    assert len(sizes) == 126 and all(m > 0 for _, m in sizes)  # every question has a right sentence
    mrr = sum(1 / (n - m + 1) for n, m in sizes) / len(sizes)
    ap = sum(sum(k / (n - m + k) for k in range(1, m + 1)) / m for n, m in sizes) / len(sizes)
    acc = sum(n == m for n, m in sizes) / len(sizes)
    assert (round(mrr, 4), round(ap, 4), round(acc, 4)) == (0.1986, 0.2046, 0.0317)  # 4 of 126 all right
    assert result == pytest.approx({"MRR": mrr, "MAP": ap, "ACC@1": acc}, abs=1e-12)


# --- the command line ---------------------------------------------------------------------------------------

def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_cli_mcqa_all_pairs_by_official_names(tmp_path, capsys):
    en = write(tmp_path, "team_en.csv", "e1,A\ne2,B\ne3,A\n")
    zh = write(tmp_path, "team_zh.csv", "z1,D\nz2,B\n")
    argv = ["--task", "mcqa-all", "--gold", fixture("mcqa-zh.csv"), "--submission", zh,
            "--gold", fixture("mcqa-en.csv"), "--submission", en, "--format", "csv"]
    assert score_cli.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["metric,value", "accuracy,0.6", "accuracy[zh],0.5", "accuracy[en],0.6666666666666666"]
    with pytest.raises(SystemExit) as e:
        score_cli.main(["--task", "mcqa-all", "--gold", fixture("mcqa-en.csv"), "--submission",
                        write(tmp_path, "answers.csv", "e1,A\n")])
    assert e.value.code == 2
    assert "name the file TEAMID_en.csv or TEAMID_zh.csv" in capsys.readouterr().err


def test_cli_formats(tmp_path, capsys):
    sub = write(tmp_path, "ds.txt", "<SYSDESC>x</SYSDESC>\nnt-1\tKim Yu-na\nnt-2\tArizona\nnt-3\t1966\n")
    for fmt, expected in [("md", "| EM (%) | 66.7 |"), ("latex", r"EM (\%) & 66.7 \\"), ("json", '"EM": 0.666')]:
        assert score_cli.main(["--task", "datasearch", "--gold", fixture("datasearch.tsv"), "--submission", sub,
                               "--format", fmt]) == 0
        assert expected in capsys.readouterr().out


def test_cli_exit_codes(tmp_path):
    good = write(tmp_path, "good.txt", "".join(f"{s}\n" for s in range(11)))
    bad = write(tmp_path, "bad.txt", "1\nx\n")
    ok = cli("score", "--task", "dbqa", "--gold", fixture("dbqa.tsv"), "--submission", good)
    assert ok.returncode == 0 and "| MRR |" in ok.stdout
    invalid = cli("score", "--task", "dbqa", "--gold", fixture("dbqa.tsv"), "--submission", bad, "--max-errors", "1")
    assert invalid.returncode == 1 and invalid.stdout == ""
    assert invalid.stderr.splitlines() == ["invalid submission: 2 problems",
                                           f"{bad}:2: score 'x' is not a finite number (fix: write a decimal number "
                                           "such as 0.5)", "... and 1 more"]
    assert cli("score", "--task", "nope", "--gold", "g", "--submission", "s").returncode == 2      # argparse
    missing = cli("score", "--task", "dbqa", "--gold", fixture("dbqa.tsv"), "--submission", str(tmp_path / "none"))
    assert missing.returncode == 2 and missing.stderr.startswith("error: ")
    assert cli("score", "--task", "qac", "--gold", fixture("qac.tsv"), "--submission", good).returncode == 2
    assert cli("score", "--task", "qac-1", "--gold", fixture("qac.tsv"), "--submission", good).returncode == 1
    assert cli("score", "--task", "dbqa", "--gold", fixture("dbqa.tsv"), "--submission", good,
               "--gold", fixture("dbqa.tsv"), "--submission", good).returncode == 2


BOARD = os.path.join(FIXTURES, "leaderboard")


@pytest.mark.parametrize("args", [("score", "--help"), ("report", "--help"), ("eval", "--help"),
                                  ("score", "--task", "mcqa-en", "--gold", os.path.join(BOARD, "gold.csv"),
                                   "--submissions", os.path.join(BOARD, "submissions"))])
def test_scoring_and_reporting_import_no_retrieval_engine(args):
    """score, report and eval (qa_baseline/scoring, qa_baseline/reporting) import neither torch nor pyserini nor
    the JVM bridge: what a light scorer install leaves out."""
    p = cli(*args, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert p.returncode == 0, p.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert "qa_baseline.scoring" in imported  # the profile was read
    assert not {name for name in imported if name.split(".")[0] in ("torch", "pyserini", "jnius")}


# --- issue 49: checking without the gold; another task's format, a binary file or a BOM ----------------------

KBQA_SUB = ("<question id=1>\twho wrote the book one?\n<answer id=1>\tA\n<question id=2>\twhich two?\n<answer id=2>\tB\n"
            "<question id=3>\todd ||| question\n<answer id=3>\t\n")
# task: (gold fixture or test file, how a gold line becomes a test line (None: dropped), a valid submission, an
# invalid one, its one problem after the file's name, questions in the test file)
WITHOUT_GOLD = {
    "mcqa-en": ("mcqa-en.csv", lambda line: line.rsplit(",", 1)[0], "e1,A\ne2,B\ne3,C\n", "e1,A\ne2,E\ne3,C\n",
                ":2: answer 'E' is not one of A, B, C, D (fix: write one capital letter A-D)", 3),
    "mcqa-zh": ("mcqa-zh.csv", lambda line: line.rsplit(",", 1)[0], "z1,D\nz2,A\n", "z1,D\n",
                ": no answer for id 'z2' (fix: answer every id of the test file exactly once)", 2),
    "dbqa": ("dbqa.tsv", lambda line: line.rsplit("\t", 1)[0], "0.5\n" * 11, "0.5\n" * 10,
             ": 10 lines, but the test file has 11 (fix: write exactly one score per line of the test file, in its "
             "order)", 4),
    "kbqa": ("kbqa.txt", lambda line: None if line.startswith(("<triple", "<answer")) else line, KBQA_SUB,
             KBQA_SUB.split("<question id=3>")[0], ": no answer for id '3' (fix: answer every id of the test file "
                                                   "exactly once)", 3),
    "openqa-en": ("openqa.xml", lambda line: None if "<answer" in line else line,
                  "run\t1\tTrue\t1\tLimp Bizkit\nrun\t2\tFalse\t0\nrun\t3\tFalse\t0\n",
                  "run\t1\tTrue\t1\tLimp Bizkit\nrun\t3\tFalse\t0\n",
                  ": no answer for id '2' (fix: answer every id of the test file exactly once)", 3),
    **{task: ("qac.tsv", lambda line: "\t".join(line.split("\t")[:2]), "Q1\t1\t東京\tD1\nQ2\t0\nQ3\t0\n",
              "Q1\t1\t東京\tD1\nQ3\t0\n", ": no answer for id 'Q2' (fix: answer every id of the test file exactly once)",
              3) for task in ("qac-1", "qac-2", "qac-3")},
    "datasearch": (os.path.join(FIXTURES, "datasearch-questions.tsv"), None,
                   "<SYSDESC>x</SYSDESC>\n" + "".join(f"ds-{i}\tx\n" for i in range(1, 11)),
                   "<SYSDESC>x</SYSDESC>\n" + "".join(f"ds-{i}\tx\n" for i in range(1, 10)),
                   ": no answer for id 'ds-10' (fix: answer every id of the test file exactly once)", 10),
}


def without_gold(tmp_path, task):
    """(test file, valid submission, invalid submission) of TASK in TMP_PATH: the test file is the gold fixture
    less its gold (or a questions fixture)."""
    name, keep, valid, invalid, _, _ = WITHOUT_GOLD[task]
    test = name
    if keep:
        lines = (keep(line) for line in open(fixture(name), encoding="utf-8").read().splitlines())
        test = write(tmp_path, f"test-{name}", "".join(f"{line}\n" for line in lines if line is not None))
    sub = "team_" + task.split("-")[1] + ".csv" if task.startswith("mcqa") else "submission.txt"
    return test, write(tmp_path, sub, valid), write(tmp_path, f"bad-{sub}", invalid)


@pytest.mark.parametrize("task", WITHOUT_GOLD)
def test_questions_check_a_submission_without_the_gold(task, tmp_path, capsys):
    """Issue 49.2: `score --questions TEST` checks ids, line count and options against the unlabelled test
    file: exit 0 and one line (no metrics), or exit 1 and the problems."""
    test, valid, invalid = without_gold(tmp_path, task)
    if task != "datasearch":  # the test file has no gold indeed (a datasearch gold is qid<TAB>text lines too)
        with pytest.raises(NoGold):
            tasks.get(task).read_gold(test)
    assert score_cli.main(["--task", task, "--questions", test, "--submission", valid]) == 0
    count = WITHOUT_GOLD[task][-1]
    assert capsys.readouterr().out == f"valid: {valid} answers all {count} questions of {test}\n"
    assert score_cli.main(["--task", task, "--questions", test, "--submission", invalid]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == ["invalid submission: 1 problem", invalid + WITHOUT_GOLD[task][4]]


def test_questions_pair_up_for_mcqa_all_and_exclude_gold_and_leaderboards(tmp_path, capsys):
    en, en_sub, _ = without_gold(tmp_path, "mcqa-en")
    zh, zh_sub, _ = without_gold(tmp_path, "mcqa-zh")
    assert score_cli.main(["--task", "mcqa-all", "--questions", en, "--submission", en_sub, "--questions", zh,
                           "--submission", zh_sub]) == 0
    assert capsys.readouterr().out.splitlines() == [f"valid: {en_sub} answers all 3 questions of {en}",
                                                    f"valid: {zh_sub} answers all 2 questions of {zh}"]
    write(tmp_path, "team_zh.csv", "z1,D\nz2,F\n")
    assert score_cli.main(["--task", "mcqa-all", "--questions", en, "--submission", en_sub, "--questions", zh,
                           "--submission", zh_sub]) == 1
    assert capsys.readouterr().err.splitlines()[1:] == [
        f"{zh_sub}:2: answer 'F' is not one of A, B, C, D (fix: write one capital letter A-D)"]
    for argv, message in [
            (["--questions", en, "--submissions", en_sub], "error: --questions checks --submission files, not a "
                                                           "leaderboard (fix: give --submission FILE, or --gold with "
                                                           "--submissions)\n"),
            (["--questions", en, "--submission", en_sub, "--submission", zh_sub],
             "error: 1 --questions and 2 --submission (fix: give one of each per file)\n"),
            (["--questions", en, "--gold", fixture("mcqa-en.csv"), "--submission", en_sub],
             "argument --gold: not allowed with argument --questions")]:
        with pytest.raises(SystemExit) as e:
            score_cli.main(["--task", "mcqa-en", *argv])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert err == message if message.startswith("error:") else message in err


SHAPED = {  # format: (a task that scores it, its gold fixture, a valid submission)
    "mcqa": ("mcqa-en", "mcqa-en.csv", "e1,A\ne2,B\ne3,C\n"),
    "dbqa": ("dbqa", "dbqa.tsv", "0.5\n" * 11),
    "kbqa": ("kbqa", "kbqa.txt", KBQA_SUB),
    "openqa-en": ("openqa-en", "openqa.xml", WITHOUT_GOLD["openqa-en"][2]),
    "qac": ("qac-1", "qac.tsv", WITHOUT_GOLD["qac-1"][2]),
    "datasearch": ("datasearch", "datasearch.tsv", "<SYSDESC>x</SYSDESC>\nnt-1\tKim\nnt-2\tArizona\nnt-3\t1965\n"),
}


@pytest.mark.parametrize("given, task", [(a, b) for a in SHAPED for b in SHAPED if a != b])
def test_a_submission_in_another_tasks_format_is_one_problem(given, task, tmp_path, capsys):
    """Issue 49.3: a DBQA file (one score per line) given to kbqa is one line naming both formats, not a problem
    per line and per missing id; each format's own valid submission scores (its shape is its own)."""
    task_id, gold, own = SHAPED[task]
    argv = ["--task", task_id, "--gold", fixture(gold), "--submission"]
    assert score_cli.main([*argv, write(tmp_path, "own.txt", own)]) == 0
    capsys.readouterr()
    sub = write(tmp_path, "sub.txt", SHAPED[given][2] * 20)  # many lines: many problems before
    assert score_cli.main([*argv, sub]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0] == "invalid submission: 1 problem", err
    assert err[1].startswith(f"{sub}: looks like a submission of {given} (") and \
        f"), not of {task} (fix: give a submission of {task}: " in err[1] and err[1].endswith(f"score the file as {given})")


def test_a_dbqa_file_given_to_kbqa_is_this_one_line(tmp_path, capsys):
    sub = write(tmp_path, "scores.txt", "0.5\n" * 500)
    assert score_cli.main(["--task", "kbqa", "--gold", fixture("kbqa.txt"), "--submission", sub]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "invalid submission: 1 problem",
        f"{sub}: looks like a submission of dbqa (one score per line), not of kbqa (fix: give a submission of kbqa: "
        "<question id=N>\\tquestion, then <answer id=N>\\tanswer[ ||| answer...]; or score the file as dbqa)"]


NOISE = random.Random(49).randbytes(8000)  # its first line is not UTF-8 and holds control bytes
BINARIES = {  # what a file is: (its bytes, the problem after FILE:1:)
    "gzip": (gzip.compress(("e1,A\n" * 2000).encode(), mtime=0),
             "a gzip-compressed file, not a text file (fix: decompress it (gunzip), or give it a name ending in .gz)"),
    "png": (b"\x89PNG\r\n\x1a\n" + NOISE, "an image (PNG, JPEG or GIF), not a text file (fix: give the text file)"),
    "pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + NOISE, "a PDF document, not a text file (fix: give the text file)"),
    "xlsx": (b"PK\x03\x04" + NOISE, "a ZIP archive (or an XLSX or DOCX document), not a text file (fix: give the "
                                   "text file itself (unzip it; save a spreadsheet as CSV))"),
    "noise": (NOISE, "a binary file, not a text file (fix: give the text file)"),
    # an executable's first line has NUL bytes between its letters: a program, not UTF-16
    "elf": (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x03\x00>\x00\x01\x00\x00\x00" + NOISE,
            "a program (an executable or a library), not a text file (fix: give the text file)"),
}


@pytest.mark.parametrize("task, gold", [("mcqa-en", "mcqa-en.csv"), ("dbqa", "dbqa.tsv"), ("kbqa", "kbqa.txt")])
@pytest.mark.parametrize("kind", BINARIES)
def test_a_binary_submission_is_one_short_printable_line(task, gold, kind, tmp_path, capsys):
    """Issue 49.3: a gzip, PNG, PDF... given as a submission is one line naming the file and what it is; no raw
    bytes reach the terminal (they did: ~8 kB)."""
    sub = tmp_path / "team_en.csv"
    sub.write_bytes(BINARIES[kind][0])
    assert score_cli.main(["--task", task, "--gold", fixture(gold), "--submission", str(sub)]) == 1
    err = capsys.readouterr().err
    assert len(err) < 300 and all(line.isprintable() for line in err.splitlines()), err
    assert err.splitlines() == ["invalid submission: 1 problem", f"{sub}:1: {BINARIES[kind][1]}"]


def test_a_binary_gold_file_is_one_line(tmp_path):
    (tmp_path / "gold.tsv").write_bytes(BINARIES["pdf"][0])
    with pytest.raises(UserError, match=r"gold.tsv:1: a PDF document, not a text file \(fix: give the text file\)$"):
        dbqa.read_gold(str(tmp_path / "gold.tsv"))


@pytest.mark.parametrize("task, gold, text, metrics", [
    ("mcqa-en", "mcqa-en.csv", "e1,A\ne2,C\ne3,C\n", {"accuracy": 2 / 3}),  # e1, the first id, is right
    ("qac-1", "qac.tsv", "Q1\t1\t東京\tD1\nQ2\t0\nQ3\t0\n", {"MRR": 1 / 3, "MRR_supported": 1 / 3}),
    ("datasearch", "datasearch.tsv", SHAPED["datasearch"][2], {"EM": 2 / 3, "token_F1": (2 / 3 + 1 + 1) / 3})])  # Kim of Kim Yu-na: F1 2/3
def test_a_byte_order_mark_is_accepted(task, gold, text, metrics, tmp_path, capsys):
    """Issue 49.3: a CSV or TSV submission saved with a UTF-8 byte-order mark (Excel writes one) scores as the
    same file without it: the first id is read without the mark."""
    scores = []
    for name, encoding in (("plain.txt", "utf-8"), ("bom.txt", "utf-8-sig")):
        (tmp_path / name).write_text(text, encoding=encoding)
        assert score_cli.main(["--task", task, "--gold", fixture(gold), "--submission", str(tmp_path / name),
                               "--format", "json"]) == 0
        scores.append(json.loads(capsys.readouterr().out)["metrics"])
    assert (tmp_path / "bom.txt").read_bytes().startswith(codecs.BOM_UTF8)
    assert scores[0] == scores[1] == pytest.approx(metrics)


# score --questions from the base install: the optional extras' packages cannot be imported
BLOCKED = ("torch", "pyserini", "spacy", "sklearn", "lightgbm", "jnius", "transformers", "sentence_transformers",
           "faiss", "onnxruntime", "ginza", "pypinyin", "ahocorasick", "openpyxl", "rjieba", "datasets", "pyarrow")
BASE_INSTALL = """import contextlib, importlib.abc, io, json, sys
class Missing(importlib.abc.MetaPathFinder):  # the extras' packages are not installed: importing one fails
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in sys.argv[2].split(","):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
from qa_baseline.score import main
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    results.append([rc, out.getvalue(), err.getvalue()])
print(json.dumps(results))
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in sys.argv[2].split(","))))
"""


def test_questions_work_from_the_base_install(tmp_path):
    """Issue 49.2: every task's read_input and validator run without torch, pyserini, spaCy, scikit-learn,
    LightGBM...: each task's valid submission is checked against its test file in a process where they cannot
    be imported; a DBQA file given to kbqa is its one line there too (the shapes of every format are known)."""
    runs, expected = [], []
    for task in WITHOUT_GOLD:
        folder = tmp_path / task
        folder.mkdir()
        test, valid, _ = without_gold(folder, task)
        runs.append(["--task", task, "--questions", test, "--submission", valid])
        expected.append([0, f"valid: {valid} answers all {WITHOUT_GOLD[task][-1]} questions of {test}\n", ""])
    test, _, _ = without_gold(tmp_path, "kbqa")
    scores = write(tmp_path, "scores.txt", "0.5\n" * 30)
    runs.append(["--task", "kbqa", "--questions", test, "--submission", scores])
    expected.append([1, "", f"invalid submission: 1 problem\n{scores}: looks like a submission of dbqa (one score "
                            "per line), not of kbqa (fix: give a submission of kbqa: <question id=N>\\tquestion, then "
                            "<answer id=N>\\tanswer[ ||| answer...]; or score the file as dbqa)\n"])
    p = subprocess.run([sys.executable, "-c", BASE_INSTALL, json.dumps(runs), ",".join(BLOCKED)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    results, imported = map(json.loads, p.stdout.splitlines())
    assert results == expected and imported == []
