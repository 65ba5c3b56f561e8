"""`make bench`: run the bench scripts and append each one's last line (one JSON object: _common.result_line)
to bench/results.jsonl, with the git commit, the date and the machine's core count, so that figures can be
compared over time (bench/speed_table.py makes the README's speed table of them).

The quick set (QUICK, a few minutes on a free 2-core machine) by default; --heavy (`make bench
BENCH_HEAVY=1`) adds the long ones (HEAVY: builds, encoders, Ray, synthetic millions); or name scripts
(`make bench BENCHES="organizer_speed mcqa_speed"`). A script that fails, or whose last line is not a JSON
object, is recorded as {"bench", "error"} and the others run on; the exit status is 1 if any failed.

Run: .venv/bin/python bench/collect.py [--heavy] [--out bench/results.jsonl] [--dry-run] [NAME ...]"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

from _common import BENCH, PROJECT, PYTHON, run_child

# name -> arguments; the quick set first
QUICK = {"organizer_speed": [], "datasearch_quality": [], "reliability": ["--only", "fuzz"],
         "startup_memory": [], "kbqa_quality": [], "mcqa_speed": ["--repeats", "3", "--cold-repeats", "3"]}
HEAVY = {"unchanged": ["--out", "{tmp}/unchanged.json"], "dbqa_speed": [], "dense_encode": [], "faiss_search": [],
         "index_throughput": [], "ingest_memory": [], "ray_encode": [],
         "ray_encode ": ["--passages", "5114", "--shard-size", "8192", "--actors", "1,2", "--no-local"],
         "kb_build": [], "scale": [], "reliability ": [], "mcqa_fusion": [], "mcqa_fusion ": ["--task", "mcqa-zh"],
         "qac_speed": [],
         "fold_orders": ["--", "--task", "qac-2", "--data", "../shared/data/tasks/qac/ja-task2-dev.tsv",
                         "--corpus", "ja-qac", "--folds", "5"]}  # a trailing space: the same script, other arguments


def commit() -> str:
    """The checkout's commit, with `-dirty` when tracked files differ from it."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=PROJECT, capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def last_json(out: str):
    """The last non-blank line of OUT as a JSON object, else None."""
    lines = [line for line in out.splitlines() if line.strip()]
    try:
        value = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def run_one(name: str, args: list, tmp: str) -> dict:
    script = os.path.join(BENCH, name.strip() + ".py")
    argv = [PYTHON, script, *(a.replace("{tmp}", tmp) for a in args)]
    print(f"bench: {' '.join(argv[1:])}", file=sys.stderr, flush=True)
    child = run_child(argv, check=False)
    sys.stdout.write(child.out)
    result = last_json(child.out) if child.rc == 0 else None
    if result is None:
        why = f"exit {child.rc}" if child.rc else "its last line is not a JSON object"
        tail = (child.err.strip().splitlines() or [""])[-1][:300]
        result = {"bench": name.strip(), "error": f"{why}: {tail}"}
    return {**result, "args": args, "wall_s": round(child.wall, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="scripts to run (default: the quick set; with --heavy, all)")
    ap.add_argument("--heavy", action="store_true", help="add the heavy benches")
    ap.add_argument("--out", default=os.path.join(BENCH, "results.jsonl"))
    ap.add_argument("--dry-run", action="store_true", help="list what would run")
    args = ap.parse_args()
    known = {**QUICK, **HEAVY}
    chosen = {n: known.get(n, []) for n in args.names} if args.names else {**QUICK, **(HEAVY if args.heavy else {})}
    missing = [n for n in chosen if not os.path.isfile(os.path.join(BENCH, n.strip() + ".py"))]
    if missing:
        sys.exit(f"bench: no script bench/{missing[0].strip()}.py")
    if args.dry_run:
        print("\n".join(f"{n.strip()} {' '.join(a)}".strip() for n, a in chosen.items()))
        return 0
    stamp = {"commit": commit(), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "cores": os.cpu_count()}
    failed = 0
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        for name, extra in chosen.items():
            result = {**run_one(name, extra, tmp), **stamp}
            failed += "error" in result
            with open(args.out, "a", encoding="utf-8") as f:  # one line per bench, as it ends
                f.write(json.dumps(result, ensure_ascii=False) + "\n")
            print(f"bench: {name.strip()}: {result.get('error', 'recorded')} -> {args.out}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
