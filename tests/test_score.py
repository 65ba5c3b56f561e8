"""Submission formats: write -> validate -> score round trips, every validator error, gold readers on the
shared real data, and the exit codes of `python -m qa_baseline.score`."""
import os
import re

import pytest

from conftest import FIXTURES, cli
from qa_baseline.errors import UserError
from qa_baseline.scoring import score as score_cli
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
    assert "submission.txt:1: the file starts with a UTF-8 byte-order mark (BOM) (fix: save it as UTF-8" in out
    assert "submission.txt:2: not valid UTF-8 (byte 4 of the line: invalid start byte)" in out
    assert out.count("\n") == 2  # BOM, bad byte, the bad line's answer; CRLF itself is fine
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
    from qa_baseline.errors import Problems, at
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
