"""Makes the command reference, docs/reference/*.md, from each command's own `--help`.

`make reference` (or `.venv/bin/python docs/reference/make.py [FOLDER]`) runs the console script `qa-baseline`
beside the interpreter and writes one page per command it dispatches, one per task's `run --task TASK
--help`, and README.md listing them. The help is wrapped at 100 columns whatever the terminal. tests/system/test_docs.py makes the pages again into a temporary
folder and fails when the committed ones differ, so they cannot go stale."""
from __future__ import annotations

import glob
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from qa_baseline import tasks
from qa_baseline.__main__ import COMMANDS
from qa_baseline.core.fileio import atomic_write

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(os.path.dirname(sys.executable), "qa-baseline")  # the console script, as users call it
COLUMNS = "100"
NOTE = "Generated from the command's own `--help` by [make.py](make.py) (`make reference`); do not edit."


@dataclass(frozen=True)
class Page:
    name: str               # the file's name, less .md
    argv: tuple[str, ...]   # the arguments after `qa-baseline`
    what: str               # one line for the index

    @property
    def command(self) -> str:
        return " ".join(("qa-baseline", *self.argv))


def pages() -> list[Page]:
    """Every page: the dispatcher, each command, then each task's run options."""
    return [Page("qa-baseline", ("--help",), "the commands"),
            *(Page(name, (name, "--help"), what) for name, (_, what) in COMMANDS.items()),
            *(Page(f"run-{task}", ("run", "--task", task, "--help"), f"`run`'s options for {task}")
              for task in tasks.ids())]


def help_text(page: Page) -> str:
    """PAGE's --help as a user sees it in a 100-column terminal of the project root, without their configs."""
    if not os.path.exists(SCRIPT):
        raise SystemExit(f"error: {SCRIPT} is missing (fix: install the package: make install)")
    env = {key: value for key, value in os.environ.items() if key != "QA_BASELINE_CONFIGS"}
    env.update(COLUMNS=COLUMNS, LINES="50", HF_HUB_OFFLINE="1", PYTHONIOENCODING="utf-8")
    done = subprocess.run([SCRIPT, *page.argv], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"error: `{page.command}` exited with {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def markdown(page: Page, text: str) -> str:
    return f"# `{page.command}`\n\n{NOTE}\n\n```text\n{text.rstrip()}\n```\n"


def index(all_pages: list[Page]) -> str:
    lines = ["# Command reference", "", NOTE.replace("the command's own", "each command's"), "",
             "`qa-baseline COMMAND` is the same as `python -m qa_baseline COMMAND` and "
             "`python -m qa_baseline.COMMAND`.", ""]
    lines += [f"- [`{page.command.removesuffix(' --help')}`]({page.name}.md): {page.what}" for page in all_pages]
    return "\n".join(lines) + "\n"


def generate(folder: str) -> list[str]:
    """Write every page and README.md into FOLDER, remove other .md files there; the names written."""
    all_pages = pages()
    with ThreadPoolExecutor(max_workers=4) as pool:
        texts = list(pool.map(help_text, all_pages))
    files = {f"{page.name}.md": markdown(page, text) for page, text in zip(all_pages, texts)}
    files["README.md"] = index(all_pages)
    os.makedirs(folder, exist_ok=True)
    for name, content in files.items():
        with atomic_write(os.path.join(folder, name)) as f:
            f.write(content)
    for stale in glob.glob(os.path.join(folder, "*.md")):
        if os.path.basename(stale) not in files:
            os.remove(stale)
    return sorted(files)


if __name__ == "__main__":
    written = generate(sys.argv[1] if len(sys.argv) > 1 else HERE)
    print(f"wrote {len(written)} pages")
