"""Speed of the organizer's tools against named alternatives (no shared data needed: seeded synthetic inputs).

1. qa_baseline.scoring.trec_eval vs pytrec_eval (trec_eval's C code) on a 200-query x 1,000-document run, trec_eval's
   official measures: in process, after parsing (both get the same dicts; target >= 0.5x pytrec_eval's speed),
   and as whole commands, `python -m qa_baseline.eval RUN QRELS` vs a `python -c` that reads both files into
   pytrec_eval's dicts and prints its figures (PYTREC_CLI; target >= 0.8x); the figures of both must agree.
2. The leaderboard's paired randomisation test vs scipy.stats.permutation_test (paired, same permutations) on
   two systems x 2,000 questions, and a whole 30-team leaderboard (intervals + tests) of 2,000 questions.

`.venv/bin/python bench/organizer_speed.py [--repeat 3]`"""
import argparse
import os
import random
import sys
import tempfile
import time

import numpy as np

from _common import PYTHON, load_info, result_line, run_child, spread, table, verdict

from qa_baseline.scoring import trec_eval as trec
from qa_baseline.scoring.significance import bootstrap_ci, randomisation_test


# pytrec_eval as a whole command: the shortest honest reading of both files and the official measures' means
PYTREC_CLI = """import sys, pytrec_eval
run, qrels = {}, {}
for line in open(sys.argv[1]):
    q, _, d, _, s, _ = line.split()
    run.setdefault(q, {})[d] = float(s)
for line in open(sys.argv[2]):
    q, _, d, r = line.split()
    qrels.setdefault(q, {})[d] = int(r)
names = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"}
res = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
for m in sorted(next(iter(res.values()))):
    print(f"{m}\\tall\\t{pytrec_eval.compute_aggregated_measure(m, [v[m] for v in res.values()]):.4f}")
"""


def same_output(ours, theirs):
    """Whether every figure pytrec_eval's command printed is printed, equal to 4 decimals, by ours."""
    mine = {f[0].strip(): f[2] for f in (line.split("\t") for line in ours.splitlines()) if len(f) == 3}
    return all(f"{float(mine.get(m.strip(), 'nan')):.4f}" == v for m, _, v in
               (line.split("\t") for line in theirs.splitlines()))


def synthetic_run(queries=200, docs=1000, seed=0):
    rng = random.Random(seed)
    run = {f"q{q}": {f"d{d}": round(rng.random() * 20, 4) for d in rng.sample(range(20000), docs)}
           for q in range(queries)}
    qrels = {q: {d: rng.choice([0, 1, 1, 2]) for d in rng.sample(sorted(ranked), 40)} for q, ranked in run.items()}
    return run, qrels


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return times, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(load_info())
    try:
        import pytrec_eval
    except ImportError:
        sys.exit("bench: needs pytrec-eval-terrier (the test extra: .venv/bin/pip install pytrec-eval-terrier==0.5.11)")
    run, qrels = synthetic_run()
    measures = trec.parse_measures(None)
    ours, (_, summary) = timed(lambda: trec.evaluate({q: list(d.items()) for q, d in run.items()}, qrels, measures),
                               args.repeat)
    names = {m for m in measures if m != "num_q"}
    theirs, reference = timed(lambda: pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run), args.repeat)
    agree = all(abs(v - pytrec_eval.compute_aggregated_measure(n, [r[n] for r in reference.values()])) < 1e-9
                for n, v in summary[1:])
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = os.path.join(tmp, "run.trec"), os.path.join(tmp, "qrels.txt")
        with open(run_path, "w") as f:
            for q, ranked in run.items():
                for r, (d, s) in enumerate(sorted(ranked.items(), key=lambda x: -x[1]), 1):
                    f.write(f"{q} Q0 {d} {r} {s} synthetic\n")
        with open(qrels_path, "w") as f:
            for q, judged in qrels.items():
                f.writelines(f"{q} 0 {d} {rel}\n" for d, rel in judged.items())
        cli, pytrec_cli = [], []
        for _ in range(args.repeat):  # side by side, alternating
            cli.append(run_child([PYTHON, "-m", "qa_baseline.eval", run_path, qrels_path]))
            pytrec_cli.append(run_child([PYTHON, "-c", PYTREC_CLI, run_path, qrels_path]))
    cli_agree = same_output(cli[0].out, pytrec_cli[0].out)
    cli, pytrec_cli = [c.wall for c in cli], [c.wall for c in pytrec_cli]
    print(f"\n1. trec_eval measures (official set) of 200 queries x 1,000 documents; figures agree: {agree} "
          f"(in process), {cli_agree} (commands)")
    table(["", "seconds", "vs pytrec_eval"],
          [["pytrec_eval (C)", spread(theirs, "{:.3f}"), "1.00x"],
           ["qa_baseline.scoring.trec_eval", spread(ours, "{:.3f}"), f"{min(theirs) / min(ours):.2f}x"],
           ["python -c '...pytrec_eval...' (parse + print)", spread(pytrec_cli, "{:.2f}"), "1.00x"],
           ["python -m qa_baseline.eval (parse + print)", spread(cli, "{:.2f}"),
            f"{min(pytrec_cli) / min(cli):.2f}x"]])
    figures = {"eval_s": min(ours), "pytrec_eval_s": min(theirs), "eval_command_s": min(cli),
               "pytrec_eval_command_s": min(pytrec_cli)}
    ratios = {"eval_vs_pytrec_eval": min(theirs) / min(ours), "command_vs_pytrec_eval": min(pytrec_cli) / min(cli)}
    verdict("qa_baseline.eval speed / pytrec_eval's, in process", ratios["eval_vs_pytrec_eval"], 0.5)
    verdict("qa_baseline.eval speed / pytrec_eval's, whole commands", ratios["command_vs_pytrec_eval"], 0.8)

    rng = np.random.default_rng(0)
    a, b = rng.random(2000) < 0.62, rng.random(2000) < 0.6
    ours, p = timed(lambda: randomisation_test(a, b), args.repeat)
    from scipy.stats import permutation_test
    theirs, res = timed(lambda: permutation_test((a.astype(float), b.astype(float)), lambda x, y: np.mean(x - y),
                                                 permutation_type="samples", n_resamples=10000, random_state=0),
                        args.repeat)
    teams = [(rng.random(2000) < 0.4 + i / 100).astype(float) for i in range(30)]
    board, _ = timed(lambda: ([bootstrap_ci(t) for t in teams],
                              [randomisation_test(x, y) for x, y in zip(teams, teams[1:])]), args.repeat)
    print(f"\n2. paired randomisation test, 10,000 permutations, 2,000 questions "
          f"(p = {p:.4f}; scipy: {res.pvalue:.4f})")
    table(["", "seconds", "vs scipy"],
          [["scipy.stats.permutation_test (paired)", spread(theirs, "{:.3f}"), "1.00x"],
           ["qa_baseline.scoring.significance", spread(ours, "{:.3f}"), f"{min(theirs) / min(ours):.2f}x"],
           ["30-team leaderboard statistics (30 CIs + 29 tests)", spread(board, "{:.2f}"), ""]])
    figures.update({"randomisation_s": min(ours), "scipy_permutation_s": min(theirs), "leaderboard_30_teams_s": min(board)})
    ratios["randomisation_vs_scipy"] = min(theirs) / min(ours)
    result_line(figures, ratios, {"figures_agree": bool(agree and cli_agree)})


if __name__ == "__main__":
    main()
