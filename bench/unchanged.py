"""The "behaviour unchanged" check (issue 22): every task's pipeline on the small inputs of tests/fixtures, run
through `python -m qa_baseline.index` and `python -m qa_baseline.run --out DIR` in a temporary folder (indexes
in a temporary QA_BASELINE_INDEXES), and per run the sha256 of the submission file with the row's `metrics` and
`per_question` (only those: the rest of the row is not part of the promise), as one JSON.

    .venv/bin/python bench/unchanged.py [--root TREE] [--out FILE] [--keep DIR]
    .venv/bin/python bench/unchanged.py --compare A.json B.json     # the differences; exit 1 if any

TREE (default: the current folder) is the checkout whose code and fixtures are run, so the same script checks
an older checkout too: `cd /tmp/head && /work/main/.venv/bin/python /work/main/bench/unchanged.py --out
/tmp/unchanged-head.json`. Runs go two at a time; the whole takes about a minute on two cores."""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

WORKERS = 2


def fixture(root, name):
    return os.path.join(root, "tests", "fixtures", name)


def training_copies(path, copies=4):
    """An NLPCC XML (openqa) or QAC TSV file holding the questions of PATH COPIES times under new ids: enough
    questions (>= 10) for the answer model to compare the learned scorer with the rule on held-out folds."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".xml"):
        head, body = text.split("<QAPairs>\n", 1)
        body, tail = body.rsplit("</QAPairs>", 1)
        return head + "<QAPairs>\n" + "".join(
            body.replace('QAPair id="', f'QAPair id="{c}-').replace('question id="', f'question id="{c}-')
            for c in range(copies)) + "</QAPairs>" + tail
    header, *lines = text.splitlines()
    columns = header.split("\t")
    keep = [columns.index(c) for c in ("qid", "question", "answers_json", "has_answer", "gold_doc_ids_json")]
    rows = [[line.split("\t")[k] for k in keep] for line in lines]
    return "\n".join(["\t".join(columns[k] for k in keep)] + [
        "\t".join([f"{c}-{r[0]}", *r[1:]]) for c in range(copies) for r in rows]) + "\n"


def plan(root, work):
    """(indexes: [argv], runs: {name: argv}) of `python -m qa_baseline.index|run`, the --out left off; the
    generated training files go to WORK."""
    def fx(name):
        return fixture(root, name)

    tiny, en, ja, kb = fx("tiny-en.jsonl"), fx("answers-corpus-en.jsonl"), fx("answers-corpus-ja.jsonl"), \
        fx("kbqa-tiny.kb")
    trains = {}
    for source in ("answers-openqa.xml", "answers-qac-series.tsv", "answers-qac-ja.tsv"):
        trains[source] = os.path.join(work, "train-" + source)
        with open(trains[source], "w", encoding="utf-8") as f:
            f.write(training_copies(fx(source)))
    indexes = [["--corpus", tiny], ["--corpus", en], ["--corpus", ja, "--lang", "ja"],
               ["--kb", kb, "--mention2id", fx("kbqa-tiny.mention2id")]]
    runs = {"mcqa-en": ["--task", "mcqa-en", "--data", fx("mcqa-sample.csv"), "--corpus", tiny]}
    for lang in ("en", "zh"):
        data = ["--task", "dbqa", "--data", fx(f"dbqa-{lang}.tsv")]
        for reranker in ("bm25", "overlap"):
            runs[f"dbqa-{lang}-{reranker}"] = [*data, "--reranker", reranker]
        runs[f"dbqa-{lang}-learned-holdout2"] = [*data, "--reranker", "learned", "--holdout", "2"]
        runs[f"dbqa-{lang}-learned-train"] = [*data, "--reranker", "learned", "--train", fx(f"dbqa-{lang}.tsv")]
    runs["dbqa-en-bm25-k1-1.2-b-0.75"] = ["--task", "dbqa", "--data", fx("dbqa-en.tsv"), "--reranker", "bm25",
                                          "--k1", "1.2", "--b", "0.75"]
    runs["dbqa-en-cross"] = ["--task", "dbqa", "--data", fx("dbqa-en.tsv"), "--reranker", "cross"]
    kbqa = ["--task", "kbqa", "--data", fx("kbqa-tiny-test.txt"), "--kb", kb]
    runs["kbqa-rule"] = kbqa
    runs["kbqa-train"] = [*kbqa, "--train", fx("kbqa-tiny-train.txt")]
    openqa = ["--task", "openqa-en", "--data", fx("answers-openqa.xml"), "--corpus", en,
              "--retriever", "bm25"]  # BM25 (the default is dense since 2026-11-26): comparable with older trees
    runs["openqa-en-rule"] = openqa
    runs["openqa-en-folds2"] = [*openqa, "--folds", "2"]
    runs["openqa-en-train"] = [*openqa, "--train", trains["answers-openqa.xml"]]
    series = fx("answers-qac-series.tsv")
    for task in ("qac-1", "qac-3"):
        runs[f"{task}-rule"] = ["--task", task, "--data", series, "--corpus", en]
        runs[f"{task}-train"] = [*runs[f"{task}-rule"], "--train", trains["answers-qac-series.tsv"]]
    runs["qac-1-folds3"] = ["--task", "qac-1", "--data", series, "--corpus", en, "--folds", "3"]
    qac2 = ["--task", "qac-2", "--data", fx("answers-qac-ja.tsv"), "--corpus", ja, "--lang", "ja"]
    runs["qac-2-ja-rule"] = qac2
    runs["qac-2-ja-folds2"] = [*qac2, "--folds", "2"]
    runs["qac-2-ja-train"] = [*qac2, "--train", trains["answers-qac-ja.tsv"]]
    search = ["--task", "datasearch", "--data", fx("datasearch-questions.tsv"), "--gold", fx("datasearch-gold.tsv"),
              "--collection", fx("datasearch-collection")]
    runs["datasearch-ids"] = search
    runs["datasearch-adhoc-bm25"] = [*search, "--adhoc"]
    runs["datasearch-adhoc-bm25+cells"] = [*search, "--adhoc", "--select", "bm25+cells"]
    return indexes, runs


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def call(module, argv, root, env):
    return subprocess.run([sys.executable, "-m", f"qa_baseline.{module}", *argv], cwd=root, env=env,
                          capture_output=True, text=True)


def outcome(proc, out):
    """What a run promises: its submission's sha256, the row's metrics and per_question; or how it failed."""
    if proc.returncode:
        return {"exit": proc.returncode, "stderr": proc.stderr.strip().splitlines()[-1:]}
    with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
        row = json.load(f)
    return {"submission_sha256": sha256(submission(row, out)), "metrics": row.get("metrics"),
            "per_question": row.get("per_question")}


def submission(row, out):
    """The submission file of the run in OUT: the row's files.submission, else the one submission-like file."""
    named = (row.get("files") or {}).get("submission")
    if named:
        return os.path.join(out, named)
    found = [f for f in os.listdir(out) if f.startswith("submission") or f.endswith(".csv")]
    if len(found) != 1:
        sys.exit(f"unchanged: {out}: which file is the submission? row.json names none; found {found}")
    return os.path.join(out, found[0])


def measure(root, keep=None):
    root = os.path.abspath(root)
    if keep and os.path.exists(keep) and os.listdir(keep):
        sys.exit(f"unchanged: --keep {keep} is not empty; give a new folder")
    with tempfile.TemporaryDirectory(prefix="unchanged-") as tmp:
        work = keep or tmp
        os.makedirs(work, exist_ok=True)
        env = {**os.environ, "QA_BASELINE_INDEXES": os.path.join(tmp, "indexes"), "HF_HUB_OFFLINE": "1",
               "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
        indexes, runs = plan(root, work)
        with ThreadPoolExecutor(WORKERS) as pool:
            for argv, proc in zip(indexes, pool.map(lambda a: call("index", a, root, env), indexes)):
                if proc.returncode:
                    sys.exit(f"unchanged: index {' '.join(argv)} failed:\n{proc.stderr}")

            def one(name):
                out = os.path.join(work, "runs", name)
                started = time.perf_counter()
                result = outcome(call("run", [*runs[name], "--out", out], root, env), out)
                print(f"{name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
                return result

            return dict(zip(runs, pool.map(one, runs)))


def differences(a, b, path=""):
    """Lines naming each place where the JSON values A and B differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(a) + [k for k in b if k not in a]:
            where = f"{path}.{k}" if path else k
            if k not in b or k not in a:
                out.append(f"{where}: only in {'A' if k in a else 'B'}: {json.dumps(a.get(k, b.get(k)))[:200]}")
            else:
                out += differences(a[k], b[k], where)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b and type(a) is type(b) else [f"{path}: A {json.dumps(a)[:200]} != B {json.dumps(b)[:200]}"]


def compare(a, b):
    """Lines naming the differences of two results, one line for a run that failed on one side only."""
    out = []
    for name in list(a) + [k for k in b if k not in a]:
        x, y = a.get(name), b.get(name)
        if x is None or y is None:
            out.append(f"{name}: only in {'A' if y is None else 'B'}")
        elif ("exit" in x) != ("exit" in y):
            failed, side = (x, "A") if "exit" in x else (y, "B")
            out.append(f"{name}: failed in {side} only (exit {failed['exit']}: {' '.join(failed['stderr'])})")
        else:
            out += differences(x, y, name)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=".", help="the checkout to run (default: the current folder)")
    p.add_argument("--out", help="write the JSON here (default: standard output)")
    p.add_argument("--keep", help="keep the run folders under this folder (default: deleted)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two JSON files; exit 1 if they differ")
    args = p.parse_args(argv)
    if args.compare:
        loaded = []
        for path in args.compare:
            with open(path, encoding="utf-8") as f:
                loaded.append(json.load(f))
        diff = compare(*loaded)
        print("\n".join(diff) if diff else f"identical: {len(loaded[0])} runs")
        return 1 if diff else 0
    started = time.perf_counter()
    result = measure(args.root, args.keep and os.path.abspath(args.keep))
    text = json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    failed = [name for name, r in result.items() if "exit" in r]
    print(f"{len(result)} runs in {time.perf_counter() - started:.0f} s" +
          (f"; failed: {', '.join(failed)}" if failed else ""), file=sys.stderr)
    if args.out:  # else standard output is the JSON itself
        from _common import result_line  # here: the rest of this script runs without the project importable
        result_line({"runs": len(result), "seconds": time.perf_counter() - started,
                     "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()},
                    verdicts={"every run finished": not failed})
    return 0


if __name__ == "__main__":
    sys.exit(main())
