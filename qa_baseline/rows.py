"""Baseline rows: what one run measured, printed as a line and saved as runs/.../row.json.

A row carries what makes it reproducible: data checksum, index manifest, parameters, package versions,
git commit. `python -m qa_baseline.report` turns saved rows into the overview-paper table."""
import glob
import json
import os
import subprocess

from . import ROOT, fileio
from .config import WORKSPACE
from .errors import UserError
from .versions import versions
from .fileio import write_json

RUNS = os.path.join(WORKSPACE, "runs")
REQUIRED = ("task", "data", "corpus", "retriever", "metrics")


def git_commit():
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def run_dir(task, data, corpus, variant):
    parts = [fileio.stem(data), corpus, variant] if corpus != "-" else [fileio.stem(data), variant]
    return os.path.join(RUNS, task, "--".join(parts))


def format_row(row):
    params = " ".join(f"{k}={v}" for k, v in row["params"].items())
    metrics = "  ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in row["metrics"].items())
    return (f"{row['task']}\t{os.path.basename(row['data'])}\t{row['corpus']}\t{row['retriever']}\t"
            f"{params}\t#q={row['questions']}\t{metrics}")


def save_row(out_dir, row):
    row = {**row, "git_commit": git_commit(), "versions": versions()}
    write_json(os.path.join(out_dir, "row.json"), row)
    print(format_row(row))
    return row


def read_rows(folder):
    """(path, row) of every FOLDER/**/row.json, oldest file first; a file that is not a run row is a UserError."""
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "row.json"), recursive=True),
                       key=lambda p: (os.path.getmtime(p), p)):
        try:
            with open(path, encoding="utf-8") as f:
                row = json.load(f)
        except ValueError as e:
            raise UserError(f"{path}: not JSON ({e}); re-run its task") from None
        if not isinstance(row, dict) or not all(k in row for k in REQUIRED):
            raise UserError(f"{path}: not a run row (it needs {', '.join(REQUIRED)}); re-run its task")
        found.append((path, row))
    return found
