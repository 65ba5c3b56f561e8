"""qac-1 speed with the parse store (issue 23.1), side by side in one script on ja-task1-dev over ja-qac:
(a) no store (QA_BASELINE_PARSES=off: every passage parsed, as before the store), 5 passages per question;
(b) an empty store (a fresh folder), 5 passages: the first run, which fills it;
(c) a filled store, 20 passages per question (the store filled by `index --corpus ja-qac --parse`, timed apart,
    or the one given with --store);
(d) the filled store, 5 passages: its submission must equal (a)'s (parses loaded from the store answer as
    fresh ones), as must (b)'s;
(e) (c) again: now the questions' parses are in the store too (c wrote them), so the run never loads GiNZA;
    its submission must equal (c)'s.
Each is `python -m qa_baseline.run --task qac-1 ...` in its own process (its peak RSS is its own ru_maxrss);
questions/s = questions / the child's wall time (start-up included) and the run's own `questions_per_second`
(from the pipeline's start). The machine is shared: compare the ratios, which come from one script.

Run: .venv/bin/python bench/qac_speed.py [--questions N] [--store DIR]
Targets: c >= 10x a in questions/s (and e, the run after it); b no slower than a (within 5%: in CPU seconds,
which a shared machine disturbs less than wall time, and in wall time); every peak RSS <= 1024 MB."""
import argparse
import json
import os
import sys
import tempfile
import time

from _common import PYTHON, data_dir, result_line, run_child, verdict

RSS_MB, SPEEDUP, SLOWER = 1024, 10.0, 1.05


def child(argv, env):
    """(wall s, peak RSS MB, CPU s, stderr) of ARGV (through _common.run_child); exits when it fails."""
    c = run_child(argv, {"HF_HUB_OFFLINE": "1", "QA_BASELINE_PROGRESS": "off", **env})
    return c.wall, c.rss_mb, c.cpu, c.err


def run(name, data, passages, parses, out_root, questions):
    out = os.path.join(out_root, name)
    wall, rss, cpu, _ = child([PYTHON, "-m", "qa_baseline.run", "--task", "qac-1", "--data", data, "--corpus",
                               "ja-qac", "--passages", str(passages), "--out", out], {"QA_BASELINE_PARSES": parses})
    with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
        row = json.load(f)
    with open(os.path.join(out, "submission.txt"), "rb") as f:
        submission = f.read()
    obs = row["observed"]
    fig = {"passages": passages, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": round(rss),
           "questions_per_s": round(questions / wall, 3), "run_questions_per_s": obs.get("questions_per_second"),
           "cpu_s_per_question": round(cpu / questions, 3), "parses": obs.get("passages_parsed"),
           "stage_seconds": obs.get("stage_seconds"), "MRR": row["metrics"].get("MRR")}
    print(f"({name}) {json.dumps(fig)}", file=sys.stderr, flush=True)
    return fig, submission


def subsample(n, folder):
    """The first N questions of ja-task1-dev (all of them without N)."""
    path = data_dir("tasks", "qac", "ja-task1-dev.tsv")
    if not n:
        return path
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    out = os.path.join(folder, f"ja-task1-dev-{n}.tsv")
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(lines[:n + 1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, help="the first N questions only (default: all 799)")
    ap.add_argument("--store", metavar="DIR", help="QA_BASELINE_PARSES folder of a store to fill (if needed) and "
                                                   "use for (c) and (d) (default: (b)'s, filled here)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = subsample(args.questions, tmp)
        with open(data, encoding="utf-8") as f:
            n = sum(1 for _ in f) - 1
        child([PYTHON, "-m", "qa_baseline.index", "--corpus", "ja-qac"], {})  # BM25: quick, or up to date
        print(f"qac-1 on {os.path.basename(data)} ({n} questions) over ja-qac; shared machine, "
              f"{os.cpu_count()} cores", file=sys.stderr, flush=True)
        figs, subs = {}, {}
        empty = os.path.join(tmp, "parses")
        figs["a"], subs["a"] = run("a", data, 5, "off", tmp, n)
        figs["b"], subs["b"] = run("b", data, 5, empty, tmp, n)
        store = args.store or empty
        t0 = time.perf_counter()
        _, fill_rss, fill_cpu, text = child([PYTHON, "-m", "qa_baseline.index", "--corpus", "ja-qac", "--parse"],
                                            {"QA_BASELINE_PARSES": store})
        fill = {"wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(fill_cpu, 1),
                "peak_rss_mb": round(fill_rss), "said": text.strip().splitlines()[-1]}
        print(f"(fill) {json.dumps(fill)}", file=sys.stderr, flush=True)
        figs["c"], subs["c"] = run("c", data, 20, store, tmp, n)
        figs["d"], subs["d"] = run("d", data, 5, store, tmp, n)
        figs["e"], subs["e"] = run("e", data, 20, store, tmp, n)
    a, b, c, e = figs["a"], figs["b"], figs["c"], figs["e"]
    ratios = {"c_vs_a_questions_per_s": round(c["questions_per_s"] / a["questions_per_s"], 2),
              "c_vs_a_run_questions_per_s": round(c["run_questions_per_s"] / a["run_questions_per_s"], 2),
              "c_vs_a_cpu_per_question": round(a["cpu_s_per_question"] / c["cpu_s_per_question"], 2),
              "b_vs_a_questions_per_s": round(b["questions_per_s"] / a["questions_per_s"], 2),
              "b_vs_a_cpu": round(a["cpu_s"] / b["cpu_s"], 2),
              "e_vs_a_questions_per_s": round(e["questions_per_s"] / a["questions_per_s"], 2),
              "e_vs_a_cpu_per_question": round(a["cpu_s_per_question"] / e["cpu_s_per_question"], 2)}
    verdict("(c) filled store, 20 passages / (a) no store, 5 passages, questions/s", c["questions_per_s"] /
            a["questions_per_s"], SPEEDUP)
    verdict("(e) the run after (c) / (a), questions/s", e["questions_per_s"] / a["questions_per_s"], SPEEDUP)
    verdict("peak RSS with the filled store (c, d, e)", max(figs[k]["peak_rss_mb"] for k in "cde"), RSS_MB,
            higher_is_better=False, unit="MB")
    verdict("peak RSS of the runs that parse (a, b)", max(figs[k]["peak_rss_mb"] for k in "ab"), RSS_MB,
            higher_is_better=False, unit="MB")
    verdicts = {"b_no_slower_than_a_cpu": b["cpu_s"] <= a["cpu_s"] * SLOWER,
                "b_no_slower_than_a_wall": b["wall_s"] <= a["wall_s"] * SLOWER,
                "b_and_d_answer_as_a": subs["b"] == subs["a"] and subs["d"] == subs["a"],
                "e_answers_as_c": subs["e"] == subs["c"]}
    result_line({"runs": figs, "fill": fill}, ratios, verdicts, questions=n,
                store="given" if args.store else "filled here")

if __name__ == "__main__":
    main()
