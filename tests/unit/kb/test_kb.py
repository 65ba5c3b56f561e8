"""The KBQA baseline: KB store (qa_baseline/indexes/kb.py), linking, ranking, the kbqa task's input and run."""
import bz2
import gzip
import json
import os
import shutil

import pytest

from conftest import FIXTURES, cli
from qa_baseline.core.errors import UserError
from qa_baseline.indexes.kb import build_kb, kb_dir, open_kb
from qa_baseline.kb.link import link, one_edit
from qa_baseline.kb.normalise import base_name, normalise, sound
from qa_baseline.kb.predicates import Ranker, train

KB = os.path.join(FIXTURES, "kbqa-tiny.kb")
ALIASES = os.path.join(FIXTURES, "kbqa-tiny.mention2id")
TEST = os.path.join(FIXTURES, "kbqa-tiny-test.txt")
TRAIN = os.path.join(FIXTURES, "kbqa-tiny-train.txt")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("kbstores"))


@pytest.fixture(scope="module")
def kb(root):
    build_kb(KB, ALIASES, root=root)
    store = open_kb(KB, root=root)
    yield store
    store.close()


def test_normalise():
    assert normalise("《哈姆雷特》") == "哈姆雷特"
    assert normalise("史蒂芬·霍金") == "史蒂芬霍金"
    assert normalise("诺基亚 Lumia　1020") == "诺基亚lumia1020"
    assert base_name(normalise("高等数学（第二版）")) == "高等数学"
    assert base_name("(散)") == "(散)"
    assert sound("陈俊") == sound("陈军") == "chen jun "
    assert sound("水") is None and sound("ab") is None


def test_one_edit():
    assert one_edit("西山大学", "山西大学") and one_edit("北京远饭店", "北京成远饭店") and one_edit("abcd", "abxd")
    assert not one_edit("abcd", "abcd") and not one_edit("abcd", "badc") and not one_edit("ab", "abcd")


def test_store_manifest_and_up_to_date(kb, root):
    m = kb.manifest
    assert (m["triples"], m["subjects"], m["names"], m["aliases"], m["skipped"]) == \
        (19, 12, 15, 3, {"kb": 0, "aliases": 0})
    assert len(m["sources"][0]["sha256"]) == 64 and m["sources"][1]["file"] == os.path.abspath(ALIASES)
    assert kb.triples("线性代数") == [("作者", "居余马"), ("出版社", "清华大学出版社"), ("页数", "300")]  # two runs
    db = os.path.join(kb.folder, "kb.sqlite")
    before = os.stat(db).st_mtime_ns
    assert build_kb(KB, ALIASES, root=root) == kb.folder and os.stat(db).st_mtime_ns == before  # nothing to do


def test_compressed_input_same_store(tmp_path):
    data = open(KB, "rb").read()
    for name, opener in (("tiny.kb.gz", gzip.open), ("tiny.kb.bz2", bz2.open)):
        with opener(tmp_path / name, "wb") as f:
            f.write(data)
        folder = build_kb(str(tmp_path / name), root=str(tmp_path / "idx"))
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        assert (manifest["triples"], manifest["subjects"], manifest["names"]) == (19, 12, 13)


def test_bad_lines_stop_or_skip(tmp_path):
    bad = os.path.join(FIXTURES, "kbqa-bad.kb")
    with pytest.raises(UserError, match=r"kbqa-bad\.kb:2: empty subject \(fix: correct the record, or pass "
                                        r"--on-bad-record skip"):
        build_kb(bad, root=str(tmp_path))
    assert not os.path.exists(kb_dir(bad, str(tmp_path)))  # nothing half-built left behind
    folder = build_kb(bad, on_bad_record="skip", root=str(tmp_path))
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    assert (manifest["triples"], manifest["skipped"]["kb"]) == (2, 2)


def test_not_utf8_names_line_and_byte(tmp_path):
    with pytest.raises(UserError, match=r"kbqa-gbk\.kb:2: not valid UTF-8 \(byte 1 of the line"):
        build_kb(os.path.join(FIXTURES, "kbqa-gbk.kb"), root=str(tmp_path))


def test_kb_in_gbk_names_the_encoding(tmp_path):
    """Issue 21.7: a KB saved in GBK is one error line naming the encoding (the file's first line with UTF-8
    beyond ASCII would make a bad byte a bad byte, as above)."""
    gbk = tmp_path / "gbk.kb"
    gbk.write_bytes("北京 ||| 简称 ||| 京\n中国 ||| 首都 ||| 北京\n".encode("gbk"))
    with pytest.raises(UserError, match=r"gbk\.kb:1: not UTF-8 \(looks like GBK\) \(fix: save it as UTF-8\)$"):
        build_kb(str(gbk), root=str(tmp_path / "idx"))


@pytest.mark.parametrize("line", ["a" * (17 << 20), "北京" * (3 << 20)], ids=["ascii", "chinese"])
def test_a_line_over_16_mib_stops_the_build_as_every_text_reader_does(tmp_path, line):
    """Issue 22.5: the store's block-decoded reader holds at most textio.MAX_LINE bytes of a line and stops
    at a longer one with raw_lines' one-line error (bytes, not characters: 6M Chinese characters are 18 MB)."""
    big = tmp_path / "big.kb.gz"
    with gzip.open(big, "wt", encoding="utf-8") as f:
        f.write("北京 ||| 简称 ||| 京\n" + line + "\n中国 ||| 首都 ||| 北京\n")
    with pytest.raises(UserError, match=r"big\.kb\.gz:2: a line longer than 16 MiB: not a text file of this task "
                                        r"\(a binary file, or one without line breaks\?\) \(fix: give the right file\)$"):
        build_kb(str(big), on_bad_record="skip", root=str(tmp_path / "idx"))


def test_damaged_store_is_one_error_line_naming_the_rebuild(tmp_path):
    """Issue 22.5: the store opens through layout.open_version, as every index does: a damaged database is
    one error line naming the command that rebuilds it, never a traceback."""
    folder = build_kb(KB, root=str(tmp_path))
    with open(os.path.join(os.path.realpath(folder), "kb.sqlite"), "r+b") as f:
        f.write(b"not a database" * 8)
    with pytest.raises(UserError, match=r"the KB store at \S+ is damaged or incomplete \(DatabaseError: file is not a "
                                        r"database\) \(fix: rebuild it with: .* --kb \S+kbqa-tiny\.kb --force\)$"):
        open_kb(KB, root=str(tmp_path))


def test_missing_store_names_the_build_command(tmp_path):
    with pytest.raises(UserError, match=r"no KB store .* \(fix: build it with: \.venv/bin/python -m qa_baseline\.index "
                                        r"--kb \S+\)$"):
        open_kb(KB, root=str(tmp_path))


def test_link_exact_alias_and_fuzzy(kb, tmp_path):
    def found(question, store=kb):
        return {m.subject: (m.match, m.key) for m in link(store, question)[1]}
    assert found("《高等数学》这本书的作者是谁？")["高等数学（第二版）"] == ("exact", "高等数学")
    assert found("霍金是哪国人")["史蒂芬·霍金"] == ("exact", "霍金")  # alias
    assert found("你知道陈俊的信仰是什么吗？")["陈军"] == ("sound", "陈军")
    assert found("西山大学是什么时候创建的？")["山西大学"] == ("typo", "山西大学")
    assert found("北京大学的面积")["北京"] == ("exact", "北京")
    build_kb(KB, root=str(tmp_path))  # without the aliases, 恒大 is not a name: the suffix variant finds it
    plain = open_kb(KB, root=str(tmp_path))
    assert found("广州恒大队的主教练是谁？", plain)["广州恒大足球俱乐部"] == ("partial", "广州恒大足球俱乐部")
    assert found("休斯敦火箭的主场", plain)["休斯敦火箭队"] == ("typo", "休斯敦火箭队")  # one edit: typo beats partial
    plain.close()


def _questions(path):
    from qa_baseline.tasks.kbqa.formats import read_gold
    return read_gold(path)


def test_rule_and_trained_answers(kb):
    rule = Ranker(kb)
    got = [rule.answer(g.question)[0] for g in _questions(TEST).values()]
    assert got == [["同济大学数学系"], ["nǐ"], ["1902年"], ["卡纳瓦罗"], ["英国"], ["北京"]]
    model = train(kb, [(g.question, g.answers) for g in _questions(TRAIN).values()])
    assert model.stats == {"questions": 7, "candidates": 15, "positives": 7, "answerable": 7}
    learned = Ranker(kb, model)
    answers = [learned.answer(g.question)[0] for g in _questions(TEST).values()]
    assert answers == [g.answers for g in _questions(TEST).values()]
    assert Ranker(kb, train(kb, [(g.question, g.answers) for g in _questions(TRAIN).values()])).answer(
        "你知道陈俊的信仰是什么吗？")[2] == learned.answer("你知道陈俊的信仰是什么吗？")[2]  # deterministic


@pytest.mark.parametrize("text, message", [
    ("<question id=1>\ta\n<answer id=1>\tb\n<answer id=2>\tc\n<question id=2>\td\n",
     r":3: <answer id=2> before its <question id=2>"),
    ("<question id=1>\ta\n<question id=x>\tb\n", r":2: id 'x' of <question> is not a number"),
    ("<question id=1>\ta\n<triple id=1>\ts ||| p ||| o\n<question id=1>\tb\n", r":3: duplicate question id 1"),
    ("<question id=1>\ta\nhello\n", r":2: not a <question\|triple\|answer id=N> line"),
])
def test_question_file_errors(tmp_path, text, message):
    from qa_baseline.tasks.kbqa.formats import read_questions
    path = tmp_path / "q.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match=message):
        read_questions(str(path))


def _without_gold(src, dst):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        out.writelines(line for line in f if not line.startswith(("<triple", "<answer")))


def test_gold_lines_never_reach_the_pipeline(kb, tmp_path):
    """The same predictions with and without the <triple>/<answer> lines of the test file."""
    from qa_baseline.tasks import get
    from qa_baseline.tasks.base import Components
    task = get("kbqa")
    settings = task.Settings(kb=KB, train=TRAIN)
    _without_gold(TEST, tmp_path / "bare.txt")
    with_gold, bare = task.read_input(TEST), task.read_input(str(tmp_path / "bare.txt"))
    assert all(item.answers == [] for item in with_gold.values())
    assert [i.question for i in with_gold.values()] == [i.question for i in bare.values()]
    a = task.predict(with_gold, Components(kb=kb, data=TEST), settings).answers
    b = task.predict(bare, Components(kb=kb, data=str(tmp_path / "bare.txt")), settings).answers
    assert a == b and a["5"] == ("史蒂芬霍金是哪国人？", ["英国"])


def test_cli_index_and_run(tmp_path):
    env = {"QA_BASELINE_INDEXES": str(tmp_path / "idx")}
    missing = cli("run", "--task", "kbqa", "--data", TEST, "--kb", KB, "--out", str(tmp_path / "r"), env=env)
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "build it with: .venv/bin/python -m qa_baseline.index --kb" in missing.stderr
    bad = cli("index", "--kb", os.path.join(FIXTURES, "kbqa-bad.kb"), env=env)
    assert bad.returncode == 2 and "kbqa-bad.kb:2: empty subject" in bad.stderr
    assert cli("index", "--kb", KB, "--mention2id", ALIASES, env=env).returncode == 0
    shutil.copy(TEST, tmp_path / "test.txt")
    _without_gold(TEST, tmp_path / "bare.txt")
    runs = {}
    for name in ("test.txt", "bare.txt"):
        done = cli("run", "--task", "kbqa", "--data", str(tmp_path / name), "--kb", KB, "--train", TRAIN,
                   "--kb-name", "tiny-KB", "--trace", "--out", str(tmp_path / name[:-4]), env=env)
        assert done.returncode == 0, done.stderr
        runs[name] = open(tmp_path / name[:-4] / "submission.txt", encoding="utf-8").read()
    assert runs["test.txt"] == runs["bare.txt"]
    row = json.load(open(tmp_path / "test" / "row.json"))
    assert (row["corpus"], row["retriever"], row["metrics"]["F1"]) == ("tiny-KB", "learned", 1.0)
    trace = [json.loads(line) for line in open(tmp_path / "test" / "trace.jsonl", encoding="utf-8")]
    assert trace[1]["top"][0]["subject"] == "陈军" and trace[1]["top"][0]["match"] == "sound"
    assert "assoc_char" in trace[1]["top"][0]["features"]


def test_mini_kb_store_and_linking(shared, tmp_path):
    """The shared mini-KB: its one bad line, its counts, and the gold subject among the linked candidates."""
    from qa_baseline.tasks.kbqa.formats import read_questions
    folder = os.path.join(shared, "tasks", "kbqa")
    mini = os.path.join(folder, "nlpcc-kbqa-mini.kb")
    with pytest.raises(UserError, match=r"nlpcc-kbqa-mini\.kb:1: empty subject"):
        build_kb(mini, root=str(tmp_path))
    build_kb(mini, on_bad_record="skip", root=str(tmp_path))
    store = open_kb(mini, root=str(tmp_path))
    assert (store.manifest["triples"], store.manifest["subjects"], store.manifest["skipped"]["kb"]) == (25092, 19323, 1)
    test = os.path.join(folder, "nlpcc-iccpol-2016.kbqa.testing-data")
    questions = list(read_questions(test).values())[:300]
    subjects = [line.split("\t")[1].split("|||")[0].strip()
                for line in open(test, encoding="utf-8") if line.startswith("<triple")][:300]
    linked = sum(s in {m.subject for m in link(store, q.question)[1]} for q, s in zip(questions, subjects))
    assert linked >= 294, linked  # 98% of the first 300 (the whole test set: see README)
    store.close()


def test_kb_files_of_one_name_never_share_a_store(tmp_path):
    """Issue 21.6: `index --kb a/kb.txt` and `index --kb b/kb.txt` build two stores (the file's name plus a
    checksum of its path), a run opens its own file's; `--name` names a store, which a run finds too, and a
    build never replaces a store built from another KB file."""
    kbs = {}
    for folder, obj in (("a", "甲"), ("b", "乙"), ("c", "丙")):
        (tmp_path / folder).mkdir()
        kbs[folder] = path = tmp_path / folder / "kb.txt"
        path.write_text(f"北京 ||| 简称 ||| {obj}\n", encoding="utf-8")
    root = str(tmp_path / "idx")
    stores = {f: build_kb(str(kbs[f]), root=root) for f in "ab"}
    assert stores["a"] != stores["b"] and os.path.basename(stores["a"]).startswith("kb-")
    for folder, obj in (("a", "甲"), ("b", "乙")):
        store = open_kb(str(kbs[folder]), root=root)
        assert store.triples("北京") == [("简称", obj)]
        store.close()
    assert build_kb(str(kbs["c"]), root=root, name="mine") == os.path.join(root, "kb", "mine")
    store = open_kb(str(kbs["c"]), root=root)  # found under its --name
    assert store.folder == os.path.join(root, "kb", "mine") and store.triples("北京") == [("简称", "丙")]
    store.close()
    with pytest.raises(UserError, match=r"kb/mine holds the KB store of .*/c/kb.txt, not of .*/a/kb.txt"):
        build_kb(str(kbs["a"]), root=root, name="mine")
    refused = cli("index", "--kb", str(kbs["b"]), "--name", "mine", env={"QA_BASELINE_INDEXES": root})
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "holds the KB store of" in refused.stderr
    folder = cli("index", "--kb", str(tmp_path / "a"), env={"QA_BASELINE_INDEXES": root})
    assert folder.returncode == 2 and f"{tmp_path / 'a'}: is a folder" in folder.stderr
