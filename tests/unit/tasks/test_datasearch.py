"""NTCIR Data Search QA: the collection reader (metadata, folder/tar data files, CSV/XLSX), the table question
answering operators, and the run (with and without dataset ids) on tiny hand-written fixtures; real-data
checks on ../shared/data/tasks/datasearch/wtq-dev."""
import bz2
import io
import json
import os
import tarfile

import pytest

from qa_baseline.collection import DataFileError, open_collection, read_tables
from qa_baseline.collection.metadata_search import MetadataBM25, terms
from qa_baseline.collection.readers import decode, sniff_delimiter
from qa_baseline.collection.sources import safe_name
from qa_baseline.collection.table import from_grid, header_rows
from qa_baseline.core.errors import UserError
from qa_baseline.scoring.metrics import exact_match
from qa_baseline.tableqa import question as questions
from qa_baseline.tableqa.engine import answer
from qa_baseline.tableqa.terms import date_key, number, plain_number

from conftest import FIXTURES

COLLECTION = os.path.join(FIXTURES, "datasearch-collection")
QUESTIONS = os.path.join(FIXTURES, "datasearch-questions.tsv")
GOLD = os.path.join(FIXTURES, "datasearch-gold.tsv")
MEDALS = "000000000002"
POPULATION = "000002505731"


@pytest.fixture(scope="module")
def fixture_tables():
    return open_collection(COLLECTION).load([MEDALS, POPULATION])


# --- data files ---------------------------------------------------------------------------------------------

def test_cp932_csv_with_title_line_and_two_header_rows(fixture_tables):
    (table,), problems = fixture_tables[POPULATION]
    assert problems == []
    assert table.caption == "人口推計（単位：人）"
    assert table.header == ["都道府県", "Prefecture", "人口 Population 2015", "人口 Population 2020"]
    assert table.rows[0] == ["東京都", "Tokyo", "13,515,271", "13,510,000"]
    assert len(table.rows) == 3


def test_semicolon_csv_with_bom_and_ragged_row(fixture_tables):
    (table,), _ = fixture_tables[MEDALS]
    assert table.header == ["Rank", "Nation", "Gold", "Silver", "Bronze", "Total"]
    assert table.rows[-1] == ["", "Total", "54", "46", "38", ""]  # the short last row is padded
    assert len(table.rows) == 6


def test_encoding_and_delimiter_sniffing():
    assert decode("東京都,1\n".encode("cp932")) == ("東京都,1\n", "cp932")
    assert decode("\ufeffa,b\n".encode("utf-8"))[1] == "utf-8-sig"
    assert decode("a\tb\n".encode("utf-16"))[1] == "utf-16"
    assert sniff_delimiter("a;b;c\n1;2,5;3\n4;5;6\n") == ";"
    assert sniff_delimiter("a\tb\n1\t2\n") == "\t"
    assert sniff_delimiter('name,"x;y"\nA,"1;2"\n') == ","
    tables = read_tables("x.csv", "name;size\r\nalpha;1\r\nbeta\r\n".encode("cp1252"))
    assert tables[0].rows == [["alpha", "1"], ["beta", ""]]


def test_header_detection():
    # one header row: the second row holds data
    assert header_rows([["Name", "", "Area"], ["Geneva", "Léman", "580"], ["Constance", "Bodensee", "536"]]) == 1
    # a spanning label over sub-labels, numbers below
    grid = [["No.", "Name", "2 Points", "2 Points"], ["", "", "Made", "%"], ["4", "Vinci", "4", "44"],
            ["5", "Crispin", "33", "43"]]
    table = from_grid(grid)
    assert table.header == ["No.", "Name", "2 Points Made", "2 Points %"]
    assert table.rows[0] == ["4", "Vinci", "4", "44"]
    assert from_grid([[], ["", ""]]) is None


def test_xlsx_read_only_first_or_all_sheets(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = "empty"
    sheet = book.create_sheet("stations")
    for row in (["Station", "Line", "Opened"], ["Kyoto", "Karasuma", 1981], ["Shijo", "Karasuma", 1981.0]):
        sheet.append(row)
    other = book.create_sheet("more")
    other.append(["Station", "Line"])
    other.append(["Demachiyanagi", "Keihan"])
    buf = io.BytesIO()
    book.save(buf)
    first = read_tables("s.xlsx", buf.getvalue())
    assert [t.source for t in first] == ["s.xlsx#stations"]
    assert first[0].header == ["Station", "Line", "Opened"]
    assert first[0].rows == [["Kyoto", "Karasuma", "1981"], ["Shijo", "Karasuma", "1981"]]
    assert len(read_tables("s.xlsx", buf.getvalue(), sheets="all")) == 2
    with pytest.raises(DataFileError, match="not a readable XLSX"):
        read_tables("s.xlsx", b"plain text")
    with pytest.raises(DataFileError, match="unsupported data file type .pdf"):
        read_tables("s.pdf", b"%PDF")


def test_missing_and_unreadable_files_are_problems_not_crashes():
    loaded = open_collection(COLLECTION).load(["000000000004", "000000000005", "nope"])
    tables, problems = loaded["000000000004"]
    assert tables == [] and "missing.csv" in problems[0] and "No such file" in problems[0]
    tables, problems = loaded["000000000005"]
    assert tables == [] and problems == [os.path.join(COLLECTION, "data/broken.xlsx") +
                                         ": not a readable XLSX workbook (File is not a zip file)"]
    assert "no dataset with id 'nope'" in loaded["nope"][1][0]


# --- metadata and archives ----------------------------------------------------------------------------------

def official_layout(tmp_path, extra_members=()):
    """The fixture collection as the official files: X_collection.jsonl.bz2 + X_data.tar.bz2."""
    root = tmp_path / "official"
    root.mkdir()
    with open(os.path.join(COLLECTION, "collection.jsonl"), "rb") as f:
        (root / "data_search_e_collection.jsonl.bz2").write_bytes(bz2.compress(f.read()))
    with tarfile.open(root / "data_search_e_data.tar.bz2", "w:bz2") as tar:
        for name in sorted(os.listdir(os.path.join(COLLECTION, "data"))):
            tar.add(os.path.join(COLLECTION, "data", name), arcname=f"data_search_e_data/{name}")
        for name, data in extra_members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return root


def test_bz2_metadata_and_tar_archive_member_by_member(tmp_path, fixture_tables):
    root = official_layout(tmp_path)
    collection = open_collection(str(root))
    assert collection.metadata_path.endswith("data_search_e_collection.jsonl.bz2")
    assert str(collection.source).endswith("data_search_e_data.tar.bz2")
    loaded = collection.load([MEDALS, POPULATION, "000000000004"])
    assert loaded[MEDALS][0][0].rows == fixture_tables[MEDALS][0][0].rows  # found by file name in the archive
    assert loaded[POPULATION][0][0].header == fixture_tables[POPULATION][0][0].header
    assert "no such member" in loaded["000000000004"][1][0]
    assert sorted(os.listdir(root)) == ["data_search_e_collection.jsonl.bz2", "data_search_e_data.tar.bz2"]


def test_escaping_tar_member_is_refused(tmp_path):
    root = official_layout(tmp_path, [("../evil.csv", b"a,b\n1,2\n"), ("/abs.csv", b"a\n1\n")])
    lines = [json.loads(line) for line in bz2.open(root / "data_search_e_collection.jsonl.bz2", "rt")]
    lines.append({"id": "evil", "title": "evil", "data_files": ["../evil.csv"]})
    with bz2.open(root / "data_search_e_collection.jsonl.bz2", "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in lines)
    collection = open_collection(str(root))
    loaded = collection.load(["evil", MEDALS])
    assert loaded["evil"][0] == [] and "escapes the collection's folder" in loaded["evil"][1][0]
    assert loaded[MEDALS][1] == []
    assert [name for name, _ in collection.source.refused] == ["../evil.csv", "/abs.csv"]
    assert not (tmp_path / "evil.csv").exists()
    with pytest.raises(DataFileError):
        safe_name("a/../../b.csv")
    assert safe_name("data/./x.csv") == "data/x.csv"


def test_malformed_metadata_is_file_line(tmp_path):
    bad = tmp_path / "collection.jsonl"
    bad.write_text('{"id": "a", "title": "t"}\n{"title": "no id"}\n')
    with pytest.raises(UserError, match=r"collection.jsonl:2: a dataset record needs"):
        open_collection(str(tmp_path))
    bad.write_text('{"id": "a"}\n{not json\n')
    with pytest.raises(UserError, match=r"collection.jsonl:2: not a JSON object"):
        open_collection(str(bad))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="no collection metadata"):
        open_collection(str(empty))
    with pytest.raises(UserError, match="no such collection file or folder"):
        open_collection(str(tmp_path / "missing"))


# --- question analysis and values ---------------------------------------------------------------------------

def test_values():
    assert number("1,234.5 m") == 1234.5
    assert number("1:31:33.736") == pytest.approx(5493.736)
    assert plain_number("160 (525)") == 160 and plain_number("5 kW") == 5 and plain_number("4/9") is None
    assert plain_number("Ep. 8") is None
    assert date_key("June 10, 1985") == 19850610 and date_key("30 September 1943") == 19430930
    assert date_key("1959-06-21") == 19590621 and date_key("Norway") is None


def test_question_cues():
    q = questions.analyse("how many hospitals have at least 600 beds?")
    assert q.count and q.thresholds == [(">=", 600.0)] and not q.superlative
    q = questions.analyse("which player ranked the most?")
    assert (q.wh, q.target, q.superlative) == ("which", ("player",), "max")
    q = questions.analyse("what is the next event after hardcore tv #15?")
    assert q.neighbour == 1 and q.numbers == [15.0]
    assert questions.analyse("which athlete was from south korea after the year 2010?").thresholds == [(">", 2010.0)]
    assert questions.analyse("what name is listed at the top?").ordinal == "first"
    assert questions.analyse("is the united stated or scotland better?").compare
    assert questions.analyse("how many more gold medals does china have over france?").difference


# --- operators ----------------------------------------------------------------------------------------------

def read_tsv(path):
    return [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")]


@pytest.mark.parametrize("qid, operator", [
    ("ds-1", "lookup"), ("ds-2", "superlative-max"), ("ds-3", "lookup-number"), ("ds-4", "last"),
    ("ds-5", "count"), ("ds-6", "compare"), ("ds-7", "difference"), ("ds-8", "next")])
def test_operators_on_the_fixture(fixture_tables, qid, operator):
    questions_ = {qid_: (q, ds) for qid_, q, ds in read_tsv(QUESTIONS)}
    gold = {qid_: g for qid_, g in read_tsv(GOLD)}
    q, ds = questions_[qid]
    a = answer(q, fixture_tables[ds][0])
    assert (a.text, a.operator) == (gold[qid], operator)


@pytest.mark.parametrize("question, expected", [
    ("which nation has the fewest bronze medals?", "Germany"),           # min; the summary row is left out
    ("which nation is ranked first?", "Norway"),
    ("which nation is listed before canada?", "Germany"),
    ("how many nations are listed?", "5"),
    ("which nation won at least 9 and fewer than 12 gold medals?", "Canada"),
    ("what is the total number of silver medals?", "46"),                # the table's own total row
    ("other than norway, which nation won more than 10 gold medals?", "Germany"),
    ("what rank did the united states get?", "4"),
    ("what is the average number of gold medals?", "10.8"),
])
def test_more_operators(fixture_tables, question, expected):
    assert answer(question, fixture_tables[MEDALS][0]).text == expected


def test_rank_column_reverses_the_direction():
    table = from_grid([["Rank", "Player", "Points"], ["1", "Ann", "10"], ["2", "Bo", "30"], ["3", "Cy", "20"]])
    assert answer("which player ranked the highest?", [table]).text == "Ann"
    assert answer("which player had the highest points?", [table]).text == "Bo"
    assert answer("who was ranked lowest?", [table]).text == "Cy"


def test_no_table_no_answer():
    assert answer("anything?", []).text == ""


# --- ad-hoc: BM25 over metadata -----------------------------------------------------------------------------

def test_metadata_bm25_picks_the_dataset():
    collection = open_collection(COLLECTION)
    index = MetadataBM25(collection.records)
    assert index.search("population of Tokyo prefecture", 1)[0][0] == POPULATION
    assert index.search("which nation won the most gold medals at the olympics?", 1)[0][0] == MEDALS
    assert index.search("人口", 1)[0][0] == POPULATION
    assert terms("Medals of Nations 人口推計") == ["medal", "nation", "人口", "口推", "推計"]
    assert index.search("zzz", 3) == []


# --- the run ------------------------------------------------------------------------------------------------

def run(*args):
    from qa_baseline import run as run_module
    run_module.main(["--task", "datasearch", *args])


def test_run_with_dataset_ids_bad_datasets_warn_and_count(tmp_path, capsys):
    out = tmp_path / "run"
    run("--data", QUESTIONS, "--gold", GOLD, "--collection", COLLECTION, "--out", str(out), "--trace")
    captured = capsys.readouterr()
    lines = (out / "submission.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("<SYSDESC>") and lines[0].endswith("</SYSDESC>")
    assert lines[1:] == [f"{qid}\t{g}" for qid, g in read_tsv(GOLD)[:8]] + ["ds-9\t", "ds-10\t"]
    row = json.loads((out / "row.json").read_text())
    assert row["metrics"] == {"EM": 0.8, "token_F1": 0.8}
    assert row["observed"]["unreadable_datasets"] == 2 and row["settings"]["mode"] == "dataset ids"
    assert "warning: dataset 000000000004: " in captured.err and "missing.csv" in captured.err
    assert "broken.xlsx: not a readable XLSX workbook" in captured.err
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert {k: trace[0][k] for k in ("dataset", "file", "rows", "column", "operator")} == {
        "dataset": POPULATION, "file": "data/000002505731.csv", "rows": [0], "column": "人口 Population 2020",
        "operator": "lookup"}
    assert trace[8]["problems"] and trace[8]["answer"] == ""


def test_run_adhoc_from_the_official_layout(tmp_path, capsys):
    root = official_layout(tmp_path)
    questions_ = tmp_path / "questions.tsv"
    # q3: its metadata words favour the population table (population x3 there), its cells the medal table
    # (Norway, Canada): BM25 takes the first, bm25+cells re-ranks the second above it
    questions_.write_text("q1\tWhat is the population in Tokyo in 2020?\n"
                          "q2\twhich nation won the most silver medals at the olympics?\t\n"
                          "q3\tpopulation by nation for Norway and Canada\n", encoding="utf-8")
    (tmp_path / "gold.tsv").write_text("q1\t13,510,000\nq2\tNorway\nq3\tno such answer\n", encoding="utf-8")
    chosen = {"bm25": [POPULATION, MEDALS, POPULATION], "bm25+cells": [POPULATION, MEDALS, MEDALS]}
    for select in ("bm25", "bm25+cells"):
        out = tmp_path / select
        run("--data", str(questions_), "--collection", str(root / "data_search_e_collection.jsonl.bz2"),
            "--select", select, "--out", str(out), "--trace")
        row = json.loads((out / "row.json").read_text())
        assert row["metrics"]["EM"] == pytest.approx(2 / 3) and row["settings"]["mode"] == "ad-hoc"
        trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
        assert [t["dataset"] for t in trace] == chosen[select], select
        assert trace[0]["candidates"][0]["dataset"] == POPULATION
        assert [c["dataset"] for c in trace[2]["candidates"]] == [POPULATION] + [MEDALS] * (select == "bm25+cells")


def test_malformed_questions_file_is_file_line(tmp_path, capsys):
    bad = tmp_path / "questions.tsv"
    bad.write_text("q1\tfine question\tid\nq2 no tabs here\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        run("--data", str(bad), "--collection", COLLECTION, "--out", str(tmp_path / "o"))
    assert exit_.value.code == 2
    assert f"{bad}:2: expected qid<TAB>question[<TAB>dataset_id]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run("--data", QUESTIONS, "--out", str(tmp_path / "o"))
    assert "--collection DIR|FILE is required" in capsys.readouterr().err


# --- real data ----------------------------------------------------------------------------------------------

def test_wtq_dev_collection_reads_cleanly(shared):
    folder = os.path.join(shared, "tasks", "datasearch", "wtq-dev")
    collection = open_collection(folder)
    assert len(collection.records) == 145
    loaded = collection.load(list(collection.records))
    assert all(tables and not problems for tables, problems in loaded.values())
    xlsx = [t for tables, _ in loaded.values() for t in tables if "#" in t.source]
    assert len(xlsx) == 26
    csv_twin = {t.source.split("#")[0].replace(".xlsx", ".csv"): t for t in xlsx}
    same = [t for tables, _ in loaded.values() for t in tables if t.source in csv_twin
            and (t.header, t.rows) == (csv_twin[t.source].header, csv_twin[t.source].rows)]
    assert len(same) == 26  # the XLSX twins read into the same tables as their CSV files


def test_wtq_dev_exact_match_floor(shared):
    folder = os.path.join(shared, "tasks", "datasearch", "wtq-dev")
    collection = open_collection(folder)
    items = read_tsv(os.path.join(folder, "questions.tsv"))
    gold = {row[0]: row[1:] for row in read_tsv(os.path.join(folder, "gold.tsv"))}
    loaded = collection.load(sorted({ds for _, _, ds in items}))
    em = sum(exact_match(answer(q, loaded[ds][0]).text, gold[qid]) for qid, q, ds in items) / len(items)
    assert em >= 0.45, em


def test_a_damaged_xlsx_sheet_is_a_data_file_error():
    """A workbook whose sheet XML is cut short: a DataFileError (the run warns and goes on), not a traceback."""
    import zipfile
    import openpyxl
    book, good, bad = openpyxl.Workbook(), io.BytesIO(), io.BytesIO()
    book.active.append(["City", "Population"])
    book.active.append(["Tokyo", 13510000])
    book.save(good)
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            dst.writestr(item, data[:len(data) // 2] if item.filename == "xl/worksheets/sheet1.xml" else data)
    assert read_tables("t.xlsx", good.getvalue())[0].rows  # the intact workbook reads
    with pytest.raises(DataFileError, match="sheet 'Sheet' is not readable"):
        read_tables("t.xlsx", bad.getvalue())
