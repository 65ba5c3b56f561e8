"""The documentation: the command reference is current, relative links resolve, the guides stay short,
answer the questions they are for and state no figure that the results do not hold."""
import functools
import glob
import importlib.util
import os
import re
import sys

from qa_baseline import ROOT

GUIDES = ("baselines.md", "campaign.md", "submitting.md")
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img [^>]*src=\"([^\"]+)\"")
CODE_SPAN = re.compile(r"`[^`]*`")
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


@functools.cache
def reference_maker():
    """docs/reference/make.py as a module (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("reference_make", os.path.join(ROOT, "docs", "reference", "make.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def lines(path):
    """(line number, text) of PATH's lines outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
            elif not fenced:
                yield number, line


def prose(path):
    """(line number, text) of PATH's lines outside fenced code blocks, inline code spans removed."""
    for number, line in lines(path):
        yield number, CODE_SPAN.sub("", line)


def anchors(path):
    """GitHub's anchors of PATH's headings: lower case, punctuation dropped, spaces to hyphens, repeats -1, -2."""
    seen = {}
    for _, line in lines(path):
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            yield slug if count == 0 else f"{slug}-{count}"


def broken_links(paths):
    """'FILE:LINE: TARGET' for each relative link of PATHS whose file, or heading anchor, does not exist."""
    problems = []
    for path in paths:
        for number, line in prose(path):
            for match in LINK.finditer(line):
                target = match.group(1) or match.group(2)
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                name, _, anchor = target.partition("#")
                goal = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
                if not os.path.exists(goal) or (anchor and anchor not in set(anchors(goal))):
                    problems.append(f"{os.path.relpath(path, ROOT)}:{number}: {target}")
    return problems


def test_reference_is_made_from_the_commands_help(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")  # the pages wrap at 100 columns whatever the terminal
    written = reference_maker().generate(str(tmp_path))
    committed = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "docs", "reference", "*.md")))
    assert committed == written, "docs/reference/ lacks or has extra pages: run `make reference`"
    for name in written:
        with open(tmp_path / name, encoding="utf-8") as new, \
                open(os.path.join(ROOT, "docs", "reference", name), encoding="utf-8") as old:
            assert old.read() == new.read(), f"docs/reference/{name} is stale: run `make reference`"


def test_reference_covers_every_command_and_task():
    make = reference_maker()
    names = {page.name for page in make.pages()}
    assert {"qa-baseline", "run", "index", "search", "score", "report", "eval"} <= names
    assert {"run-dbqa", "run-mcqa-en", "run-qac-3", "run-datasearch"} <= names
    with open(os.path.join(ROOT, "docs", "reference", "score.md"), encoding="utf-8") as f:
        page = f.read()
    assert page.startswith("# `qa-baseline score --help`\n")
    assert "usage: qa-baseline score" in page and "--questions TEST" in page


def test_relative_links_resolve():
    paths = [os.path.join(ROOT, "README.md"), *glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)]
    assert broken_links(paths) == []


def test_broken_links_are_found(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n## Step 1. Install `it`\n\n## Step 1. Install `it`\n", encoding="utf-8")
    (tmp_path / "b.md").write_text(
        "[ok](a.md) [ok](a.md#top) [ok](a.md#step-1-install-it-1) [web](https://example.org/x.md)\n"
        "[gone](c.md) [no heading](a.md#install) <img src=\"pic.png\">\n"
        "```\n[in code](d.md)\n```\n`[in a span](e.md)` [self](#nothing)\n", encoding="utf-8")
    found = broken_links([str(tmp_path / "b.md")])
    b = os.path.relpath(tmp_path / "b.md", ROOT)
    assert found == [f"{b}:2: c.md", f"{b}:2: a.md#install", f"{b}:2: pic.png", f"{b}:6: #nothing"]


def guide(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return f.read()


def test_guides_answer_their_questions():
    # how to lay out a submissions folder
    assert "teams/\n  alpha/ " in guide("campaign.md")
    # how to validate without the gold
    assert "qa-baseline score --task mcqa-en --questions test_en.csv --submission MyTeam_en.csv" in guide("submitting.md")
    # how to drop the manifest
    assert "report runs --format latex --no-manifest" in guide("baselines.md")
    # what dbqa's default reranker does without --train
    assert "**Without `--train`, `auto` runs `cross`**" in guide("baselines.md")


def test_guides_are_short():
    words = {name: len(guide(name).split()) for name in GUIDES}
    assert all(count < 1500 for count in words.values()), words


CONVENTIONS = {"0.05", "0.8"}  # the significance level and the power a guide names: settings, not results


def test_guides_state_only_published_figures():
    """A decimal a guide's prose states is one the README or docs/results.md holds (output pasted in code
    blocks is what the command printed and is not checked)."""
    published = ""
    for name in ("README.md", os.path.join("docs", "results.md")):
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            published += f.read()
    stated = [f"{name}:{number}: {figure}" for name in GUIDES
              for number, line in prose(os.path.join(ROOT, "docs", name))
              for figure in DECIMAL.findall(re.sub(r"\]\([^)]*\)|<img [^>]*>", "", line))
              if figure not in published and figure not in CONVENTIONS]
    assert stated == []


def test_the_readme_speed_table_is_the_latest_bench_lines():
    """README.md's speed table is bench/speed_table.py's, made from bench/results.jsonl's latest lines."""
    spec = importlib.util.spec_from_file_location("speed_table", os.path.join(ROOT, "bench", "speed_table.py"))
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    rows = [row for row in table.latest(os.path.join(ROOT, "bench", "results.jsonl"))
            if row.get("bench") in table.README_BENCHES]
    assert {row["bench"] for row in rows} == set(table.README_BENCHES)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        assert table.block(f.read()) == table.markdown(rows).strip("\n")
