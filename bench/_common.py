"""Helpers shared by the bench/ scripts: data location, child runs with their own peak RSS, medians, tables,
verdicts against targets, and the one JSON line every script prints last (result_line; `make bench` collects
these lines into bench/results.jsonl: bench/collect.py)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(BENCH)
sys.path.insert(0, PROJECT)

import qa_baseline  # noqa: E402

PYTHON = os.path.join(PROJECT, ".venv", "bin", "python")
if not os.path.exists(PYTHON):
    PYTHON = sys.executable


def data_dir(*parts):
    """A path under ../shared/data; exits with a clear message when it is absent."""
    path = os.path.normpath(os.path.join(qa_baseline.ROOT, "..", "shared", "data", *parts))
    if not os.path.exists(path):
        sys.exit(f"bench: {path} is missing; these benchmarks need the shared data at "
                 f"{os.path.normpath(os.path.join(qa_baseline.ROOT, '..', 'shared', 'data'))}")
    return path


class Child:
    """Result of one child process: wall seconds, peak RSS in MB, exit status, stdout, stderr, CPU seconds."""

    def __init__(self, wall, rss_mb, rc, out, err, cpu=0.0):
        self.wall, self.rss_mb, self.rc, self.out, self.err, self.cpu = wall, rss_mb, rc, out, err, cpu

    def last_line(self):
        lines = [ln for ln in self.out.splitlines() if ln.strip()]
        return lines[-1] if lines else ""


# A tiny launcher between us and each measured child: on exec Linux carries the exec-ing process's peak RSS over
# into the new program's ru_maxrss, so a child spawned straight from this (possibly big) process would report at
# least our own peak. The launcher (python -S, ~8 MB) spawns the target, waits for it and reports its rusage.
LAUNCH = """import os, sys, time
t0 = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{usage.ru_maxrss} {time.perf_counter() - t0} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_child(argv, env=None, cwd=PROJECT, check=True):
    """Run ARGV to completion; returns its wall time, its own peak RSS (the child and its waited-for children;
    through LAUNCH, so not inflated by ours) and its output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rusage") as rusage:
        proc = subprocess.run([sys.executable, "-S", "-c", LAUNCH, rusage.name, *argv], stdout=out, stderr=err,
                              cwd=cwd, env={**os.environ, **(env or {})})
        out.seek(0)
        err.seek(0)
        maxrss_kb, wall, cpu = rusage.read().split() or ("0", "0", "0")
        child = Child(float(wall), int(maxrss_kb) / 1024, proc.returncode, out.read(), err.read(), float(cpu))
    if check and child.rc != 0:
        sys.exit(f"bench: child failed (exit {child.rc}): {' '.join(argv)[:300]}\n{child.err[-3000:]}")
    return child


def task_settings(task_id):
    """(Task, its Settings, default data file) as `python -m qa_baseline.run --task TASK_ID` makes them: the
    Settings defaults, then the task config TASK_ID.yaml; the first existing file of its `data`."""
    from qa_baseline import tasks
    from qa_baseline.core.config import task_config
    from qa_baseline.run import default_data
    from qa_baseline.core.settings import make_settings
    task = tasks.get(task_id)
    config = task_config(task_id)
    data = config.pop("data", None)
    return task, make_settings(task.Settings, config, {}), default_data(task_id, data)


def median(xs):
    return statistics.median(xs)


def spread(xs, fmt="{:.2f}"):
    """'median (min-max)' of repeated measurements."""
    return f"{fmt.format(median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def table(header, rows):
    """Print a plain-text table; cells are str()-ed, first column left-aligned, the others right-aligned."""
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    print(fmt([str(h) for h in header]))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))


VERDICTS = {}  # name -> what verdict() printed, for result_line


def verdict(name, value, target, higher_is_better=True, unit="x"):
    """Print VALUE against its target (a ratio by default) and whether the target is met (kept for
    result_line)."""
    ok = value >= target if higher_is_better else value <= target
    sign = ">=" if higher_is_better else "<="
    sep = "" if unit in ("x", "", "%") else " "
    print(f"{name}: {value:.2f}{sep}{unit} (target {sign} {target}{sep}{unit}) -> {'MET' if ok else 'MISSED'}")
    VERDICTS[name] = {"value": round(float(value), 4), "target": target, "op": sign, "unit": unit, "met": bool(ok)}
    return ok


def _plain(x):
    """X with numpy scalars and arrays, tuples and sets as JSON's numbers and lists; floats to 6 significant
    digits (figures, not bits)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set)):
        return [_plain(v) for v in x]
    if hasattr(x, "tolist"):  # numpy
        return _plain(x.tolist())
    if isinstance(x, float):
        return float(f"{x:.6g}")
    return x


def result_line(figures, ratios=None, verdicts=None, **more):
    """Print, as the script's LAST line, one JSON object: {"bench": the script's name, "figures": FIGURES
    (measured values, units in their names: seconds, per_s, mb...), "ratios": RATIOS (ours / the alternative,
    or the target's ratio), "verdicts": every verdict() printed so far and VERDICTS (name -> True/False or a
    dict), "load": the load average when it ends, "cores", **MORE}. `make bench` appends it to
    bench/results.jsonl with the commit and the date (bench/collect.py); bench/speed_table.py makes the
    README's speed table of those lines."""
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    line = {"bench": os.path.splitext(os.path.basename(sys.argv[0]))[0], "figures": figures, "ratios": ratios or {},
            "verdicts": {**VERDICTS, **(verdicts or {})}, "load": load, "cores": os.cpu_count(), **more}
    print(json.dumps(_plain(line), ensure_ascii=False), flush=True)
    return line


def load_info():
    """One line on other load on the machine, so readers can judge noisy figures."""
    try:
        return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    except OSError:
        return f"{os.cpu_count()} cores"
