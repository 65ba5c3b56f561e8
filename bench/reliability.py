"""Reliability under bad input, kills and concurrency (issue 16): reruns every figure of the README's
*Reliability* section. Nothing under indexes/ or runs/ is touched (temporary folders only).

  fuzz        seeded mutations (truncation, dropped/duplicated/swapped lines, random and control bytes, NUL,
              UTF-16, BOMs, CR/CRLF, bad UTF-8, huge lines up to 17 MiB, binary and gzip garbage, DOCTYPEs,
              headers, non-finite numbers...) of the test fixtures, read in this process by every task's gold
              reader, input reader and submission validator and by the corpus reader, under a 2 GiB
              address-space limit (a reader holding a whole file, or /dev/zero, fails there). A UserError (one
              line) or a submission problem listed by the validator is clean; any other exception (MemoryError
              included) is a traceback; a case running over 10 s is a hang.
  kill        `index --corpus vital-en --force` (BM25, 10,033 passages) killed with SIGKILL at K points spread
              over its duration: after each kill a run answers byte-identically from the previous index; the
              next build removes every leftover. Then a dense build (minilm, a 400-passage slice, shards of 25)
              killed K times while encoding (each at a random moment after its first new shard) and resumed:
              its files are byte-identical to an uninterrupted build.
  concurrent  two BM25 builds of one folder at once; two dense builds at once; R runs while another process
              rebuilds the index with --force in a loop; two runs writing one --out at once (5 times).

Run: .venv/bin/python bench/reliability.py [--cases 2880] [--kills 10] [--runs 14] [--seed 0] [--memory 2]
                                            [--only fuzz,kill,concurrent]
"""
import argparse
import glob
import gzip
import json
import os
import random
import resource
import signal
import subprocess
import tempfile
import time

from _common import PROJECT, PYTHON, result_line, table

from qa_baseline import tasks
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import Problems, UserError
from qa_baseline.corpus import read_corpus
from qa_baseline.scoring.validate import Errors

FIXTURES = os.path.join(PROJECT, "tests", "fixtures")
SCORING = os.path.join(FIXTURES, "scoring")
MCQA_SAMPLE = os.path.join(PROJECT, "examples", "mcqa-en-science-sample.csv")

# (task id, gold fixture, a valid submission of it)
SUBMISSIONS = [
    ("mcqa-en", "mcqa-en.csv", "e1,A\ne2,B\ne3,C\n"),
    ("dbqa", "dbqa.tsv", "".join(f"0.{i}\n" for i in range(11))),
    ("kbqa", "kbqa.txt", "<question id=1>\twho wrote the book one?\n<answer id=1>\tA\n=====\n<question id=2>\twhich "
                         "two?\n<answer id=2>\tB ||| C\n<question id=3>\todd ||| question\n<answer id=3>\tD\n"),
    ("openqa-en", "openqa.xml", "s\t1\tTrue\t1\tLimp Bizkit\ns\t2\tTrue\t2\t1955\tAT&T\ns\t3\tFalse\t0\n"),
    ("qac-1", "qac.tsv", "Q1\t1\t東京\tD1\nQ2\t2\t日本\tD2\t韓国\tD3\nQ3\t0\n"),
    ("datasearch", "datasearch.tsv", "<SYSDESC>fuzz</SYSDESC>\nnt-1\tKim Yu-na\nnt-2\tArizona\nnt-3\t1965\n"),
]


class Hang(Exception):
    pass


def on_alarm(signum, frame):
    raise Hang()


# --- fuzz ----------------------------------------------------------------------------------------------------

def mutate(data, rng):
    """DATA (bytes) with one random defect."""
    lines = data.split(b"\n")
    pos = rng.randrange(len(data) + 1)
    kind = rng.randrange(24)
    if kind == 0:
        return data[:pos]
    if kind == 1 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines)
    if kind == 2:
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i + 1] + lines[i:])
    if kind == 3 and len(lines) > 1:
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if kind == 4:
        return data[:pos] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 20))) + data[pos:]
    if kind == 5 and data:
        return data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1:]
    if kind == 6:
        return data[:pos] + b"\x00" + data[pos:]
    if kind == 7:
        return data[:pos] + bytes([rng.choice([1, 7, 8, 11, 12, 27, 28, 31, 127])]) + data[pos:]
    if kind == 8:
        return data.decode("utf-8", "replace").encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32"]))
    if kind == 9:
        return rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]) + data
    if kind == 10:
        return data.replace(b"\n", rng.choice([b"\r\n", b"\r", b"\n\n", b"\x85", "\u2028".encode()]))
    if kind == 11:
        return b""
    if kind == 12:
        return b"\n" * rng.randint(1, 5)
    if kind == 13:
        a, b = rng.sample([b"\t", b",", b" ", b"|||", b"="], 2)
        return data.replace(a, b)
    if kind == 14:
        return data[:pos] + rng.choice([b"\t", b",", b"\t\t", b'"', b"'", b"<", b">", b"&"]) + data[pos:]
    if kind == 15:
        bad = rng.choice([b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"])  # not UTF-8
        return data[:pos] + bad + data[pos:]
    if kind == 16:
        odd = rng.choice(["😀", "\u202e", "e\u0301", "\ufeff", "\u00a0", "𠀀", "\ufffd"]).encode()
        return data[:pos] + odd + data[pos:]
    if kind == 17:
        return data[:pos] + b"a" * rng.choice([1 << 10, 1 << 20, 17 << 20]) + data[pos:]
    if kind == 18:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 2048)))
    if kind == 19:
        return gzip.compress(data)[:rng.randrange(1, 40)]
    if kind == 20:
        return data.replace(b"1", rng.choice([b"nan", b"inf", b"-inf", b"1e999", b"-0", b"0x1", b"1_0", b""]))
    if kind == 21:
        return rng.choice([b"id,answer\n", b"qid\tanswer\n", b"score\n", b"question\tsentence\tlabel\n"]) + data
    if kind == 22:
        return b'<!DOCTYPE r [<!ENTITY a "x">]>\n' + data if rng.random() < 0.5 else data[:pos] + b"&a;" + data[pos:]
    return data + rng.choice([b"\n", b"", b"\n\n", b" ", b"\t"]) * rng.randint(1, 3)


def targets():
    """(name, fixture path or bytes, reader(path) -> number of problems listed) of every reader and validator."""
    out = []
    for task_id, gold_name, submission in SUBMISSIONS:
        task, gold_path = tasks.get(task_id), os.path.join(SCORING, gold_name)
        gold = task.read_gold(gold_path)
        out.append((f"{task_id} gold", gold_path, lambda path, task=task: task.read_gold(path) and 0))
        if task.has_pipeline:
            out.append((f"{task_id} input", gold_path, lambda path, task=task: task.read_input(path) and 0))

        def validate(path, task=task, gold=gold):
            errors = Errors()
            task.read_submission(path, gold, errors)
            return len(errors)
        out.append((f"{task_id} submission", submission.encode(), validate))
    corpus = os.path.join(FIXTURES, "tiny-en.jsonl")
    for policy in ("stop", "skip"):
        out.append((f"corpus jsonl ({policy})", corpus,
                    lambda path, policy=policy: list(read_corpus(corpus_config(path), Problems(policy))) and 0))
    return out


def fuzz(cases, seed, work, memory):
    """Every reader on CASES mutated inputs in all, under an address-space limit of MEMORY bytes."""
    rng = random.Random(seed)
    found = targets()
    per = max(1, cases // len(found))
    signal.signal(signal.SIGALRM, on_alarm)
    names = ("cases", "one-line errors", "problems listed", "accepted", "tracebacks", "hangs")
    rows, total, examples = [], dict.fromkeys(names, 0), []
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (memory, hard))  # a reader that holds a whole file fails here
    for name, source, reader in found:
        base = source if isinstance(source, bytes) else open(source, "rb").read()
        suffix = ".jsonl" if name.startswith("corpus") else os.path.splitext(source)[1] if isinstance(source, str) \
            else ".txt"
        counts = dict.fromkeys(names, 0)
        for i in range(per):
            data = base
            for _ in range(rng.randint(1, 3)):
                data = mutate(data, rng)
            path = os.path.join(work, f"case{'.gz' if rng.random() < 0.03 else ''}{suffix}")
            with open(path, "wb") as f:
                f.write(data)
            if i == per - 1:  # and the paths that are not files
                path = rng.choice(["/dev/zero", work, os.path.join(work, "missing")])
            counts["cases"] += 1
            signal.alarm(10)
            try:
                counts["problems listed" if reader(path) else "accepted"] += 1
            except UserError as e:
                counts["one-line errors"] += 1
                if "\n" in str(e):
                    counts["tracebacks"] += 1
                    examples.append((name, f"multi-line error: {str(e)[:200]!r}"))
            except Hang:
                counts["hangs"] += 1
                examples.append((name, f"hang on {data[:60]!r}"))
            except Exception as e:  # noqa: BLE001  (what this counts)
                counts["tracebacks"] += 1
                examples.append((name, f"{type(e).__name__}: {str(e)[:160]} on {data[:60]!r}"))
            finally:
                signal.alarm(0)
            os.remove(path) if os.path.isfile(path) and path.startswith(work) else None
        rows.append([name, *counts.values()])
        for k, v in counts.items():
            total[k] += v
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    rows.append(["total", *total.values()])
    table(["reader", *total], rows)
    for name, what in examples[:10]:
        print(f"  {name}: {what}")
    return total


# --- children ------------------------------------------------------------------------------------------------

def child(args, env, **kw):
    return subprocess.Popen([PYTHON, "-m", *args], cwd=PROJECT, env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def finish(proc, timeout=600):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def run_mcqa(env, out, extra=()):
    """(exit status, stderr, submission bytes) of an mcqa-en run on the 20-question sample over vital-en."""
    rc, _, err = finish(child(["qa_baseline.run", "--task", "mcqa-en", "--corpus", "vital-en", "--data", MCQA_SAMPLE,
                               "--out", out, *extra], env))
    path = os.path.join(out, "qa_baseline_en.csv")
    return rc, err, open(path, "rb").read() if rc == 0 and os.path.exists(path) else None


def leftovers(folder):
    """(names, bytes) beside the index links that are neither a link, its current version, nor a lock file."""
    if not os.path.isdir(folder):
        return [], 0
    names = os.listdir(folder)
    current = {os.path.basename(os.path.realpath(os.path.join(folder, n))) for n in names
               if os.path.islink(os.path.join(folder, n))}
    extra = [n for n in names if n not in current and not n.endswith(".lock") and not os.path.islink(
        os.path.join(folder, n))]
    size = sum(os.path.getsize(os.path.join(d, f)) for n in extra for d, _, fs in os.walk(os.path.join(folder, n))
               for f in fs) + sum(os.path.getsize(os.path.join(folder, n)) for n in extra
                                  if os.path.isfile(os.path.join(folder, n)))
    return extra, size


def bm25_build(env, force=True):
    return child(["qa_baseline.index", "--corpus", "vital-en", "--no-dense", *(["--force"] if force else [])], env)


def slice_corpus(work, n=400):
    path = os.path.join(work, "slice.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for i, p in enumerate(read_corpus(corpus_config("vital-en"), Problems())):
            if i == n:
                break
            f.write(json.dumps({"id": p["id"], "title": p["title"], "contents": p["contents"]}) + "\n")
    return path


def dense_build(env, corpus, force=False):
    return child(["qa_baseline.index", "--corpus", corpus, "--dense", "minilm", "--shard-size", "25",
                  *(["--force"] if force else [])], env)


def dense_files(root):
    folder = os.path.join(root, "slice", "dense-minilm")
    names = ["faiss.index", "docids.jsonl"] + sorted(os.path.join("shards", n)  # hidden files too
                                                     for n in os.listdir(os.path.join(folder, "shards")))
    return {n: open(os.path.join(folder, n), "rb").read() for n in names}


# --- kill ----------------------------------------------------------------------------------------------------

def kill(points, work):
    env = {"QA_BASELINE_INDEXES": os.path.join(work, "idx")}
    finish(bm25_build(env))
    rc, err, reference = run_mcqa(env, os.path.join(work, "ref"))
    assert rc == 0, err
    started = time.time()
    finish(bm25_build(env))
    duration = time.time() - started
    folder = os.path.join(work, "idx", "vital-en")
    answered, most_left, most_bytes = 0, 0, 0
    for i in range(points):
        proc = bm25_build(env)
        time.sleep(duration * (i + 0.5) / points)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        names, size = leftovers(folder)
        most_left, most_bytes = max(most_left, len(names)), max(most_bytes, size)
        rc, err, got = run_mcqa(env, os.path.join(work, f"after-kill-{i}"))
        answered += rc == 0 and got == reference
    finish(bm25_build(env, force=False))
    after = leftovers(folder)
    rows = [["BM25 build of vital-en killed (SIGKILL)", points, f"{duration:.1f} s build",
             f"{answered}/{points} runs identical after a kill",
             f"up to {most_left} leftovers ({most_bytes / 2**20:.1f} MB) -> {len(after[0])} after the next build"]]
    # dense: kill while encoding, resume, compare with an uninterrupted build
    corpus = slice_corpus(work)
    ref_env = {"QA_BASELINE_INDEXES": os.path.join(work, "dense-ref")}
    started = time.time()
    rc, _, err = finish(dense_build(ref_env, corpus))
    assert rc == 0, err
    dense_s = time.time() - started
    reference_files = dense_files(ref_env["QA_BASELINE_INDEXES"])
    env = {"QA_BASELINE_INDEXES": os.path.join(work, "dense")}
    shards = os.path.join(work, "dense", "slice", ".dense-minilm.partial", "shards", "*.npy")
    done = lambda: len(glob.glob(shards))  # noqa: E731
    rng, shards_at_kill = random.Random(0), []
    for i in range(points):  # each build is killed at a random moment of the shard after its first new one
        before, proc = done(), dense_build(env, corpus)
        while done() == before and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(rng.uniform(0, 1.5))  # about one shard of 25 passages
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        shards_at_kill.append(done())
    rc, _, err = finish(dense_build(env, corpus))
    same = rc == 0 and dense_files(env["QA_BASELINE_INDEXES"]) == reference_files
    partial_left = os.path.exists(os.path.join(work, "dense", "slice", ".dense-minilm.partial"))
    rows.append(["dense build of a 400-passage slice killed while encoding", points, f"{dense_s:.1f} s build",
                 f"resumed index byte-identical: {same} (shards done at the kills: {shards_at_kill})",
                 f"partial folder left: {partial_left}"])
    table(["what", "kills", "duration", "result", "leftovers"], rows)
    return rows


# --- concurrent ----------------------------------------------------------------------------------------------

def concurrent(runs, work):
    env = {"QA_BASELINE_INDEXES": os.path.join(work, "idx")}
    finish(bm25_build(env))
    rc, err, reference = run_mcqa(env, os.path.join(work, "ref"))
    assert rc == 0, err
    rows = []
    # two builds of one folder at once
    procs = [bm25_build(env), bm25_build(env)]
    results = [finish(p) for p in procs]
    waited = sum("another build is running" in err for _, _, err in results)
    rc, _, got = run_mcqa(env, os.path.join(work, "after-two"))
    rows.append(["two BM25 builds of one folder at once", f"exit {[r for r, _, _ in results]}",
                 f"{waited} waited for the other", f"run identical: {got == reference}",
                 f"leftovers: {len(leftovers(os.path.join(work, 'idx', 'vital-en'))[0])}"])
    # two dense builds at once
    corpus = slice_corpus(work)
    denv = {"QA_BASELINE_INDEXES": os.path.join(work, "dense")}
    procs = [dense_build(denv, corpus), dense_build(denv, corpus)]
    results = [finish(p) for p in procs]
    waited = sum("another build is running" in err for _, _, err in results)
    partial = os.path.exists(os.path.join(work, "dense", "slice", ".dense-minilm.partial"))
    complete = os.path.exists(os.path.join(work, "dense", "slice", "dense-minilm", "faiss.index"))
    rows.append(["two dense builds at once", f"exit {[r for r, _, _ in results]}", f"{waited} waited for the other",
                 f"index complete: {complete}", f".partial left: {partial}"])
    # runs during a rebuild loop
    stop = os.path.join(work, "stop")
    loop = subprocess.Popen(["bash", "-c", f"n=0; while [ ! -e {stop} ]; do {PYTHON} -m qa_baseline.index --corpus "
                             f"vital-en --no-dense --force 2>/dev/null; n=$((n+1)); done; echo $n"],
                            cwd=PROJECT, env={**os.environ, **env}, stdout=subprocess.PIPE, text=True)
    ok = errors = tracebacks = 0
    for i in range(runs):
        rc, err, got = run_mcqa(env, os.path.join(work, f"during-{i}"))
        ok += rc == 0 and got == reference
        errors += rc != 0
        tracebacks += "Traceback" in err
    open(stop, "w").close()
    rebuilds = loop.communicate(timeout=600)[0].strip()
    rows.append([f"{runs} runs while another process rebuilds with --force", f"{rebuilds} rebuilds",
                 f"{ok}/{runs} identical", f"{errors} failed, {tracebacks} tracebacks",
                 f"leftovers: {len(leftovers(os.path.join(work, 'idx', 'vital-en'))[0])}"])
    # two runs writing one --out at once
    consistent = 0
    for i in range(5):
        out = os.path.join(work, f"shared-{i}")
        procs = [child(["qa_baseline.run", "--task", "mcqa-en", "--corpus", "vital-en", "--data", MCQA_SAMPLE,
                        "--out", out, "--team", team] + (["--trace"] if team == "a" else []), env) for team in "ab"]
        codes = [finish(p)[0] for p in procs]
        row = json.load(open(os.path.join(out, "row.json")))
        files = sorted(os.listdir(out))
        expected = sorted(["row.json", *(os.path.basename(p) for p in row["files"].values())])
        consistent += codes == [0, 0] and files == expected
    rows.append(["two runs into one --out at once (teams a, b; a with --trace)", "5 times", "",
                 f"{consistent}/5 folders hold exactly one run", ""])
    table(["what", "", "", "result", ""], rows)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=2880, help="fuzzed inputs in all (default 2880)")
    ap.add_argument("--kills", type=int, default=10, help="kill points per build kind (default 10)")
    ap.add_argument("--runs", type=int, default=14, help="runs during the rebuild loop (default 14)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--memory", type=float, default=2.0, help="fuzz: address-space limit in GiB (default 2)")
    ap.add_argument("--only", default="fuzz,kill,concurrent")
    args = ap.parse_args()
    parts = args.only.split(",")
    figures = {}
    with tempfile.TemporaryDirectory(prefix="qa-reliability-") as work:
        if "fuzz" in parts:
            os.makedirs(os.path.join(work, "fuzz"))
            started = time.time()
            figures["fuzz"] = dict(fuzz(args.cases, args.seed, os.path.join(work, "fuzz"), int(args.memory * 2**30)))
            figures["fuzz"]["seconds"] = time.time() - started
            print(f"fuzz: {figures['fuzz']['seconds']:.1f} s\n")
        if "kill" in parts:
            os.makedirs(os.path.join(work, "kill"))
            figures["kill"] = [" | ".join(map(str, row)) for row in kill(args.kills, os.path.join(work, "kill"))]
            print()
        if "concurrent" in parts:
            os.makedirs(os.path.join(work, "concurrent"))
            figures["concurrent"] = [" | ".join(map(str, row)) for row in
                                     concurrent(args.runs, os.path.join(work, "concurrent"))]
    fuzz_ok = {k: v for k, v in figures.get("fuzz", {}).items() if k in ("tracebacks", "hangs")}
    result_line(figures, verdicts={f"fuzz: no {k}": v == 0 for k, v in fuzz_ok.items()})


if __name__ == "__main__":
    main()
