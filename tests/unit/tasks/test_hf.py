"""Task data in Hugging Face schemas (qa_baseline/tasks/hf.py and each task's hf.py): Parquet, JSON lines and `datasets` save_to_disk
folders, written here with datasets and pyarrow, give the same submission and scores as the official CSV / TSV."""
import json
import os

import pytest

from conftest import FIXTURES, cli
from qa_baseline.core.errors import UserError
from qa_baseline.tasks import get, hf
from qa_baseline.tasks.dbqa import formats as dbqa
from qa_baseline.tasks.mcqa import formats as mcqa, hf as mcqa_hf

datasets = pytest.importorskip("datasets")

SAMPLE = os.path.join(FIXTURES, "mcqa-sample.csv")
DBQA_EN = os.path.join(FIXTURES, "dbqa-en.tsv")
QUESTIONS = mcqa.read(SAMPLE)


def arc(labels="ABCD"):
    """The sample's questions as ARC columns (option labels LABELS: ARC has both A-D and 1-4)."""
    return {"id": [q.id for q in QUESTIONS], "question": [q.question for q in QUESTIONS],
            "choices": [{"text": list(q.options), "label": list(labels)} for q in QUESTIONS],
            "answerKey": [labels["ABCD".index(q.gold)] for q in QUESTIONS]}


def openbookqa():
    columns = arc()
    return {"id": columns["id"], "question_stem": columns.pop("question"), "choices": columns["choices"],
            "answerKey": columns["answerKey"]}


def cmmlu():  # no id: the row number is the id
    return {"Question": [q.question for q in QUESTIONS],
            **{x: [q.options[i] for q in QUESTIONS] for i, x in enumerate("ABCD")},
            "Answer": [q.gold for q in QUESTIONS]}


def save(columns, path, how):
    """COLUMNS written as a Parquet file, JSON lines or a save_to_disk folder at PATH; the path."""
    ds = datasets.Dataset.from_dict(columns)
    if how == "parquet":
        ds.to_parquet(str(path))
    elif how == "jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in ds.to_list()), encoding="utf-8")
    else:
        ds.save_to_disk(str(path))
    return str(path)


def run_mcqa(cfg, data, out):
    from qa_baseline import run
    run.main(["--task", "mcqa-en", "--data", data, "--corpus", cfg.sources[0].file, "--out", str(out)])
    row = json.loads((out / "row.json").read_text())
    with open(row["files"]["submission"], encoding="utf-8") as f:
        return row, f.read()


@pytest.mark.parametrize("columns, how, name", [
    (arc(), "parquet", "arc.parquet"), (arc("1234"), "jsonl", "arc.jsonl"),
    (openbookqa(), "folder", "obqa"), (cmmlu(), "parquet", "cmmlu.parquet")])
def test_mcqa_from_hf_schemas_equals_the_csv_run(tiny_cfg, tmp_path, columns, how, name):
    data = save(columns, tmp_path / name, how)
    items = get("mcqa-en").read_input(data)
    assert all(q.gold is None for q in items)  # the answer key never reaches predict
    assert [q.options for q in items] == [q.options for q in QUESTIONS]
    assert get("mcqa-en").read_gold(data)[0].gold == "A"
    row, submission = run_mcqa(tiny_cfg, data, tmp_path / "run")
    csv_row, csv_submission = run_mcqa(tiny_cfg, SAMPLE, tmp_path / "csv")
    if "id" not in columns:  # CMMLU has no ids: the row numbers
        csv_submission = "".join(f"{n},{line.split(',')[1]}\n" for n, line in enumerate(csv_submission.splitlines(), 1))
    assert submission == csv_submission
    assert row["metrics"] == csv_row["metrics"] == {"accuracy": 1.0} and row["questions"] == 4


def test_ai2_nested_question_and_a_row_without_four_options(tmp_path):
    rows = [{"id": q.id, "answerKey": q.gold,
             "question": {"stem": q.question, "choices": [{"text": t, "label": x} for t, x in zip(q.options, "ABCD")]}}
            for q in QUESTIONS]
    path = tmp_path / "ai2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert [(q.id, q.question, q.options, q.gold) for q in mcqa_hf.gold(str(path))] == \
        [(q.id, q.question, q.options, q.gold) for q in QUESTIONS]
    columns = arc()
    columns["choices"][2] = {"text": ["a", "b", "c", "d", "e"], "label": list("ABCDE")}
    data = save(columns, tmp_path / "five.parquet", "parquet")
    with pytest.raises(UserError, match=r"five\.parquet: row 3 \(id 'q3'\): 5 options, expected 4"):
        get("mcqa-en").read_input(data)
    columns = arc()
    columns["answerKey"][1] = "E"
    with pytest.raises(UserError, match=r"row 2 \(id 'q2'\): answer 'E' is not one of the options' labels"):
        mcqa_hf.questions(save(columns, tmp_path / "e.parquet", "parquet"))


def wikiqa():
    groups = dbqa.read(DBQA_EN)
    rows = [(f"Q{i}", g.query, text, label) for i, g in enumerate(groups) for text, label in zip(g.texts, g.labels)]
    return {"question_id": [r[0] for r in rows], "question": [r[1] for r in rows],
            "document_title": ["t"] * len(rows), "answer": [r[2] for r in rows], "label": [r[3] for r in rows]}


def run_dbqa(tmp_path, data, name):
    out = tmp_path / name
    proc = cli("run", "--task", "dbqa", "--data", data, "--reranker", "overlap", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "row.json").read_text()), (out / "submission.txt").read_text()


@pytest.mark.parametrize("how, name", [("parquet", "wikiqa.parquet"), ("folder", "wikiqa")])
def test_dbqa_from_wikiqa_schema_equals_the_tsv_run(tmp_path, how, name):
    data = save(wikiqa(), tmp_path / name, how)
    assert get("dbqa").read_gold(data) == [g._replace(line=n) for g, n in zip(dbqa.read(DBQA_EN), (1, 4))]
    row, submission = run_dbqa(tmp_path, data, "hf")
    tsv_row, tsv_submission = run_dbqa(tmp_path, DBQA_EN, "tsv")
    assert submission == tsv_submission and row["metrics"] == tsv_row["metrics"] and row["questions"] == 2
    assert row["data_sha256"] != tsv_row["data_sha256"]


def test_unknown_schema_is_one_error_line(tmp_path):
    data = save({"prompt": ["x"], "completion": ["y"]}, tmp_path / "other.parquet", "parquet")
    for task, known in (("mcqa-en", "ARC (id, question, choices"), ("dbqa", "WikiQA (question_id, question")):
        proc = cli("run", "--task", task, "--data", data, "--corpus", os.path.join(FIXTURES, "tiny-en.jsonl"),
                   "--out", str(tmp_path / "run")) if task == "mcqa-en" else \
            cli("run", "--task", task, "--data", data, "--out", str(tmp_path / "run"))
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert "other.parquet: columns prompt, completion match no known schema (known: " in proc.stderr
        assert known in proc.stderr and "Traceback" not in proc.stderr


QAC_JA = os.path.join(FIXTURES, "answers-qac-ja.tsv")


def squad2():
    """The qac-ja fixture's questions as SQuAD 2.0 columns, and one more whose annotators spelled the answer
    two ways (one repeated); J4 has no answer (empty answers.text)."""
    from qa_baseline.tasks.qac import formats as qac
    gold, questions = qac.read_gold(QAC_JA), qac.read_questions(QAC_JA)
    rows = [(q.qid, q.question, [s for a in gold[q.qid].answers for s in a]) for q in questions]
    rows.append(("E1", "Who won Super Bowl 50?", ["Denver Broncos", "Broncos", "Denver Broncos"]))
    return {"id": [r[0] for r in rows], "title": ["t"] * len(rows), "context": ["a context"] * len(rows),
            "question": [r[1] for r in rows],
            "answers": [{"text": r[2], "answer_start": [0] * len(r[2])} for r in rows]}


def qac_tsv(path):
    """The TSV equivalent of squad2() (no supporting documents: SQuAD names none)."""
    lines = ["qid\tquestion\tanswers_json\thas_answer"]
    with open(QAC_JA, encoding="utf-8") as f:
        rows = f.read().splitlines()[1:]
    for line in rows:
        qid, question, answers, has_answer, _ = line.split("\t")
        lines.append(f"{qid}\t{question}\t{answers}\t{has_answer}")
    lines.append("E1\tWho won Super Bowl 50?\t" + json.dumps([["Denver Broncos", "Broncos"]]) + "\t1")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("how, name", [("parquet", "squad.parquet"), ("jsonl", "squad.jsonl")])
def test_qac_from_squad2_equals_the_tsv(tmp_path, how, name):
    data, tsv = save(squad2(), tmp_path / name, how), qac_tsv(tmp_path / "gold.tsv")
    task = get("qac-2")
    assert task.read_input(data) == task.read_input(tsv)  # the context and answers never reach predict
    assert task.read_gold(data) == task.read_gold(tsv)
    assert task.read_gold(data)["J4"].answers == [] and task.read_gold(data)["E1"].answers == [["Denver Broncos", "Broncos"]]
    submission = tmp_path / "submission.txt"  # J1 right, J2 wrong, J3 silent, J4 right (no answer), E1 by a spelling
    submission.write_text("J1\t1\t1974年6月\t\nJ2\t1\t三島由紀夫\t\nJ3\t0\nJ4\t0\nE1\t2\tBroncos\t\tPanthers\t\n",
                          encoding="utf-8")
    outputs = []
    for gold in (data, tsv):
        proc = cli("score", "--task", "qac-2", "--gold", gold, "--submission", str(submission))
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] and "AFM" in outputs[0]


def test_squad2_without_answers_is_input_only_and_a_wrong_schema_is_one_line(tmp_path):
    columns = squad2()
    del columns["answers"]
    data = save(columns, tmp_path / "test.parquet", "parquet")
    assert list(get("qac-2").read_input(data)) == ["J1", "J2", "J3", "J4", "E1"]
    from qa_baseline.core.errors import NoGold
    with pytest.raises(NoGold):
        get("qac-2").read_gold(data)
    other = save({"prompt": ["x"]}, tmp_path / "other.parquet", "parquet")
    with pytest.raises(UserError, match=r"columns prompt match no known schema \(known: SQuAD 2\.0 \(id"):
        get("qac-2").read_input(other)


def wtq():
    return {"id": ["nt-0", "nt-1"], "question": ["which nation won the most silver medals?", "who came first?"],
            "table": [{"header": ["Nation", "Silver"], "rows": [["Norway", "3"], ["Canada", "1"]], "name": "csv/1.csv"}] * 2,
            "answers": [["Norway"], ["Norway", "Canada"]]}


def test_wikitablequestions_is_gold_for_datasearch(tmp_path):
    data = save(wtq(), tmp_path / "wtq.parquet", "parquet")
    assert get("datasearch").read_gold(data) == {"nt-0": ["Norway"], "nt-1": ["Norway, Canada"]}
    submission = tmp_path / "submission.txt"
    submission.write_text("<SYSDESC>x</SYSDESC>\nnt-0\tnorway\nnt-1\tNorway\n", encoding="utf-8")
    proc = cli("score", "--task", "datasearch", "--gold", data, "--submission", str(submission))
    assert proc.returncode == 0 and "EM" in proc.stdout, proc.stderr


def test_run_datasearch_on_wikitablequestions_reads_each_rows_table(tmp_path):
    cities = {"header": ["City", "Population"], "rows": [["Tokyo", "13960000"], ["Paris", "2161000"]],
              "name": "csv/cities.csv"}
    rivers = {"header": ["River", "Length"], "rows": [["Nile", "6650"], ["Amazon", "6400"]], "name": "csv/rivers.csv"}
    data = save({"id": ["q1", "q2", "q3"],
                 "question": ["what is the population of Tokyo?", "what is the population of Paris?",
                              "what is the length of the Nile?"],
                 "table": [cities, cities, rivers],
                 "answers": [["13960000"], ["999"], ["6650"]]}, tmp_path / "wtq.parquet", "parquet")
    task = get("datasearch")
    items = task.read_input(data)
    assert [q.dataset for q in items.values()] == ["csv/cities.csv", "csv/cities.csv", "csv/rivers.csv"]
    collection = task.open(task.Settings()).collection
    assert sorted(collection.records) == ["csv/cities.csv", "csv/rivers.csv"]
    out = tmp_path / "run"
    proc = cli("run", "--task", "datasearch", "--data", data, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    row = json.loads((out / "row.json").read_text(encoding="utf-8"))
    # q1 and q3 are looked up right; q2's gold (999) is not in its table: EM = 2/3
    assert row["metrics"]["EM"] == pytest.approx(2 / 3, abs=1e-4), row["metrics"]
    assert row["observed"]["unreadable_datasets"] == 0 and row["corpus"] == "wtq tables"
    proc = cli("run", "--task", "datasearch", "--data", data, "--collection",
               os.path.join(FIXTURES, "datasearch-collection"), "--out", str(tmp_path / "run2"))
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "holds its own tables" in proc.stderr and "Traceback" not in proc.stderr


# --- answers or ids under names a reader does not read; answers that are 0 or False --------------------------

def parquet(rows, path):
    """ROWS (dicts) written as a Parquet file with pyarrow; its path."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_pylist(rows), str(path))
    return str(path)


def test_parquet_with_qid_and_answer_columns_is_one_error_and_writes_nothing(tiny_cfg, index_root, tmp_path):
    """`qid, question, choices, answer` is ARC but for the names of its id and answer: one error line naming the
    file, its columns, the schemas known and the renames, exit 2, no run folder; never a run numbering the
    questions by row with an empty `metrics`."""
    data = parquet([{"qid": q.id, "question": q.question, "choices": {"text": list(q.options), "label": list("ABCD")},
                     "answer": q.gold} for q in QUESTIONS], tmp_path / "F.parquet")
    out = tmp_path / "run"
    proc = cli("run", "--task", "mcqa-en", "--data", data, "--corpus", tiny_cfg.sources[0].file,
               "--out", str(out), env={"QA_BASELINE_INDEXES": index_root})  # indexed: the run itself could go on
    assert proc.returncode == 2 and not out.exists(), proc.stderr
    assert proc.stderr == (f"error: {data}: columns qid, question, choices, answer: qid, answer not read, so a run "
                           "would number the questions by row and score nothing (known: ARC (id, question, choices "
                           "{text, label}, answerKey); OpenBookQA (id, question_stem, choices {text, label}, answerKey); "
                           "CMMLU / C-Eval (Question or question, A, B, C, D, Answer or answer)) (fix: rename qid to "
                           "id, answer to answerKey)\n")
    with pytest.raises(UserError, match=r"F\.parquet: columns .* \(fix: rename qid to id, answer to answerKey\)"):
        get("mcqa-en").read_gold(data)  # `score --gold` reads the same
    columns = {"id": [q.id for q in QUESTIONS], **{k: v for k, v in arc().items() if k != "answerKey"},
               "explanation": ["why"] * len(QUESTIONS)}  # a test file, with a column that is no answer: read
    test_file = save(columns, tmp_path / "test.parquet", "parquet")
    assert [q.id for q in get("mcqa-en").read_input(test_file)] == [q.id for q in QUESTIONS]


@pytest.mark.parametrize("task, columns, fix", [
    ("dbqa", {"question_id": ["Q1", "Q1"], "question": ["q?"] * 2, "answer": ["a", "b"], "is_correct": [1, 0]},
     "rename is_correct to label"),
    ("dbqa", {"qid": ["Q1", "Q1"], "question": ["q?"] * 2, "sentence": ["a", "b"], "label": [1, 0]},
     "rename qid to question_id"),
    ("qac-2", {"id": ["J1"], "question": ["q?"], "context": ["c"], "answer": ["a"]}, "rename answer to answers"),
    ("datasearch", {"id": ["nt-0"], "question": ["q?"], "table": [{"header": ["h"], "rows": [["a"]], "name": "t"}],
                    "targetValue": ["a"]}, "rename targetValue to answers"),
])
def test_every_schema_refuses_answers_or_ids_under_other_names(tmp_path, task, columns, fix):
    for how in ("parquet", "jsonl"):
        data = save(columns, tmp_path / f"data.{how}", how)
        with pytest.raises(UserError, match=rf"data\.{how}: columns {', '.join(columns)}: .* \(fix: {fix}\)$"):
            get(task).read_input(data)
        if task != "dbqa" or "label" not in columns:
            with pytest.raises(UserError, match=rf"\(fix: {fix}\)$"):
                get(task).read_gold(data)


def test_answer_key_0_to_3_as_integers_is_an_answer(tmp_path):
    """An answerKey 0 (an int column 0-3) is option A, not a missing answer; CMMLU's Answer 0 and options that
    are numbers (0 among them) too; options given as a plain list (MMLU's choices) take 0-3 as A-D."""
    data = parquet([{"id": q.id, "question": q.question, "choices": {"text": list(q.options), "label": list("ABCD")},
                     "answerKey": i % 4} for i, q in enumerate(QUESTIONS)], tmp_path / "int.parquet")
    assert [q.gold for q in get("mcqa-en").read_gold(data)] == ["A", "B", "C", "D"]  # the sample's 4 questions
    numbers = parquet([{"Question": "1 - 1 = ?", "A": 0, "B": 1, "C": 2, "D": 3, "Answer": 0},
                       {"Question": "1 + 1 = ?", "A": 0, "B": 1, "C": 2, "D": 3, "Answer": 2}], tmp_path / "n.parquet")
    assert [(q.id, q.options, q.gold) for q in mcqa_hf.gold(numbers)] == [("1", ["0", "1", "2", "3"], "A"),
                                                                         ("2", ["0", "1", "2", "3"], "C")]
    mmlu = parquet([{"question": "2 * 2 = ?", "choices": ["2", "4", "6", "8"], "answerKey": 1}], tmp_path / "m.parquet")
    assert [(q.options, q.gold) for q in mcqa_hf.gold(mmlu)] == [(["2", "4", "6", "8"], "B")]  # unlabelled: 0-3


def test_wikiqa_labels_as_booleans(tmp_path):
    """A label False is 0, not a label that is neither 0 nor 1 (question ids as numbers, 0 among them)."""
    columns = wikiqa()
    columns["label"] = [bool(x) for x in columns["label"]]
    columns["question_id"] = [int(x[1:]) for x in columns["question_id"]]
    data = parquet([dict(zip(columns, values)) for values in zip(*columns.values())], tmp_path / "bool.parquet")
    assert get("dbqa").read_gold(data) == [g._replace(line=n) for g, n in zip(dbqa.read(DBQA_EN), (1, 4))]
    assert hf.binary(False) == 0 and hf.binary("1") == 1 and hf.binary(2) is None and hf.binary(None) is None


# --- the same check in the official formats that name their columns or elements -----------------------------

def test_qac_tsv_with_an_answer_column_is_one_error(tmp_path):
    data = tmp_path / "qac.tsv"
    data.write_text("qid\tquestion\tanswer\nQ1\tq?\ta\n", encoding="utf-8")
    for read in (get("qac-1").read_input, get("qac-1").read_gold):
        with pytest.raises(UserError, match=rf"^{data}:1: columns qid, question, answer: answer not read, so a run "
                                            r"would score nothing \(known: .*\) \(fix: rename answer to answers_json\)$"):
            read(str(data))
    data.write_text("qid\tquestion\tanswer_type\nQ1\tq?\tdate\n", encoding="utf-8")  # a test file: no gold
    assert list(get("qac-1").read_input(str(data))) == ["Q1"]


def test_openqa_xml_with_answers_under_another_element_is_one_error(tmp_path):
    data = tmp_path / "q.xml"
    data.write_text('<QAPair id="1"><question>Who?</question>\n<Answer>a</Answer></QAPair>\n', encoding="utf-8")
    with pytest.raises(UserError, match=rf"^{data}:2: <QAPair> elements question, Answer: Answer not read, so a run "
                                        r"would score nothing .* \(fix: rename Answer to answer\)$"):
        get("openqa-en").read_input(str(data))
    data.write_text('<QAPair id="1"><question>Who?</question></QAPair>\n', encoding="utf-8")  # a test file
    assert get("openqa-en").read_input(str(data)) == {"1": "Who?"}
