"""Speed of the randomised Tukey HSD test (qa_baseline.scoring.tukey.tukey_hsd) on the size of a large campaign:
30 runs x 1,000 questions x 5,000 trials, on a seeded random 0/1 matrix (accuracy-like) and a continuous one
(MRR-like), no shared data needed. Against the other vectorised way of drawing the permutations, argsort of random
keys (same chunks, same statistic), and the target of 10 s on 2 cores. Median of --repeats passes.

`.venv/bin/python bench/tukey_speed.py [--repeats 3] [--runs 30] [--questions 1000] [--trials 5000]`"""
import argparse
import time

import numpy as np

from _common import load_info, median, result_line, spread, table, verdict

from qa_baseline.scoring.tukey import CHUNK_VALUES, tukey_hsd

TARGET_S = 10.0


def argsort_ranges(X, trials, seed=0):
    """The trials' ranges of run means, each question's column permuted by argsort of uniform random keys."""
    rng = np.random.default_rng(seed)
    m, n = X.shape
    columns, chunk = X.T[None], max(1, CHUNK_VALUES // (m * n))
    ranges = []
    for start in range(0, trials, chunk):
        order = rng.random((min(chunk, trials - start), n, m)).argsort(axis=2)
        sums = np.take_along_axis(columns, order, axis=2).sum(axis=1)
        ranges.append((sums.max(axis=1) - sums.min(axis=1)) / n)
    return np.concatenate(ranges)


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed passes of each; median reported (default 3)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--trials", type=int, default=5000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    shape = (args.runs, args.questions)
    matrices = {"binary": (rng.random(shape) < np.linspace(0.3, 0.6, args.runs)[:, None]).astype(float),
                "continuous": rng.beta(np.linspace(2, 2.6, args.runs)[:, None], 3, shape)}
    print(f"{args.runs} runs x {args.questions:,} questions x {args.trials:,} trials; {load_info()}", flush=True)
    rows, figures, ratios = [], {}, {}
    for name, X in matrices.items():
        ours = timed(lambda: tukey_hsd(X, trials=args.trials), args.repeats)
        theirs = timed(lambda: argsort_ranges(X, args.trials), args.repeats)
        result = tukey_hsd(X, trials=args.trials)
        significant = int((result.p[np.triu_indices(args.runs, 1)] < 0.05).sum())
        rows.append([name, spread(ours), spread(theirs), f"{median(theirs) / median(ours):.2f}x",
                     f"{significant} / {args.runs * (args.runs - 1) // 2}"])
        figures[f"{name}_seconds"] = median(ours)
        figures[f"{name}_argsort_seconds"] = median(theirs)
        ratios[f"{name}_argsort_vs_ours"] = median(theirs) / median(ours)
    print()
    table(["matrix", "tukey_hsd s median (min-max)", "argsort keys s", "argsort / ours", "pairs p < 0.05"], rows)
    print()
    verdict("slowest tukey_hsd", max(figures["binary_seconds"], figures["continuous_seconds"]), TARGET_S,
            higher_is_better=False, unit="s")
    result_line(figures, ratios, runs=args.runs, questions=args.questions, trials=args.trials)


if __name__ == "__main__":
    main()
