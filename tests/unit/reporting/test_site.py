"""The results page (reporting/site.py): the leaderboard's static site read back with html.parser (every link
target there, team names escaped, the values of the tables, the manifest's checksums, the same bytes twice, the
folder replaced in one step) and driven in a real browser (Debian's chromium through playwright, from file://:
no console error, no request outside the folder, a click on a column heading reorders the rows, each run's link
opens its page with its checksum, the question filter, the statistics page); `report --html` for baseline rows.
The browser tests skip without chromium or playwright, except under CI (the environment variable CI set), where
.ci/run installs chromium and the test extra playwright."""
import hashlib
import json
import os
import shutil
from html.parser import HTMLParser

import pytest

from conftest import FIXTURES
from qa_baseline import __version__, report as report_cli, score, tasks
from qa_baseline.core.errors import UserError
from qa_baseline.reporting import leaderboard as lb, report, site
from test_leaderboard import baseline_runs
from test_report import percentile_ci, row, save

BOARD = os.path.join(FIXTURES, "leaderboard")
GOLD = os.path.join(BOARD, "gold.csv")
# a team named by its file: markup and quotes that must reach the page as text; 6 of 12 right (q1-q6)
SCRIPT = "<script>alert(\"x\")&'"
SCRIPT_ANSWERS = "ABCDABDCBADC"
BASELINE = "baseline bm25"  # test_leaderboard.baseline_runs: 9 of 12 right (q1-q9)
ORDER = ["alpha", "beta", "gamma", BASELINE, SCRIPT, "delta"]  # 100, 75, 75, 75, 50, 33.3 per cent
PER_QUESTION = {"beta": [0] + [1] * 9 + [0, 0], "delta": [0] * 8 + [1] * 4, BASELINE: [1] * 9 + [0] * 3}
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def submissions(folder):
    """The fixtures' submissions plus the team SCRIPT."""
    shutil.copytree(os.path.join(BOARD, "submissions"), folder)
    with open(os.path.join(folder, f"{SCRIPT}_en.csv"), "w", encoding="utf-8") as f:
        f.write("".join(f"q{i},{a}\n" for i, a in enumerate(SCRIPT_ANSWERS, 1)))
    return str(folder)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(board, site folder) of the fixtures with a baseline run, every pair of runs tested (Tukey HSD)."""
    tmp = tmp_path_factory.mktemp("site")
    board = lb.build(tasks.get("mcqa-en"), [GOLD], [submissions(tmp / "submissions")], baselines=baseline_runs(tmp),
                     pairs="all", test="tukey", trials=2000)
    return board, site.write_site(board, str(tmp / "out"), "python -m qa_baseline.score --html out")


class Page(HTMLParser):
    """A page's links (href, src), its tables ({id or number: rows of cell texts}) and h1."""

    def __init__(self, path):
        super().__init__()
        self.links, self.tables, self.h1, self._cell, self._table = [], {}, "", None, None
        with open(path, encoding="utf-8") as f:
            self.feed(f.read())

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.links += [a[k] for k in ("href", "src") if k in a]
        if tag == "table":
            self._table = self.tables.setdefault(a.get("id") or len(self.tables), [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = ""
        elif tag == "h1":
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._table is not None:
            self._table[-1].append(self._cell.strip())
            self._cell = None
        elif tag == "h1":
            self.h1, self._cell = self._cell, None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_pages_links_and_escaping(built):
    board, out = built
    names = sorted(os.listdir(out))
    assert [n for n in names if not n.startswith("run-")] == [
        "figure.svg", "index.html", "manifest.json", "site.css", "site.js", "stats.html"]
    assert len([n for n in names if n.startswith("run-")]) == len(ORDER)
    for name in names:
        if name.endswith(".html"):
            text = open(os.path.join(out, name), encoding="utf-8").read()
            assert "<script>alert" not in text and "://" not in text  # escaped; nothing from the network
            for link in Page(os.path.join(out, name)).links:
                assert os.path.isfile(os.path.join(out, link.split("#")[0])), (name, link)
    index = Page(os.path.join(out, "index.html"))
    assert "&lt;script&gt;alert(&quot;x&quot;)&amp;&#x27;" in open(os.path.join(out, "index.html")).read()
    header, *rows = index.tables[0]
    assert header == ["#", "Run", "accuracy (%)", "Group", f"W/T/L vs {BASELINE}"]
    assert [r[3] for r in rows] == [e.letters for e in board.entries] and rows[0][3] == "a"
    assert [r[1].removesuffix("baseline") for r in rows] == ORDER
    assert [r[0] for r in rows] == ["1", "2", "2", "", "4", "5"]
    beta = next(e for e in board.entries if e.name == "beta")
    assert rows[1][2] == "75.0[%.1f, %.1f]" % tuple(100 * v for v in percentile_ci(PER_QUESTION["beta"]))
    # wins/ties/losses against the baseline, per question: beta loses q1, wins q10; delta loses q1-q8, ties q9
    assert [r[4] for r in rows] == ["3/9/0", "1/10/1", "3/6/3", "0/12/0", "0/9/3", "3/1/8"]
    run = Page(os.path.join(out, next(link for link in index.links if link.startswith("run-2-"))))
    assert run.h1 == "beta" and beta.files == [os.path.join(board_root(board), "beta_en.csv")]
    assert ["beta_en.csv", sha256(beta.files[0])] in run.tables[1]
    assert run.tables["questions"][0] == ["Question", "Gold", "beta", BASELINE, "Outcome"]
    with open(GOLD) as f:  # the gold letter of each question: the file's last field, 0-3
        gold = [(line.split(",")[0], "ABCD"[int(line.rsplit(",", 1)[1])]) for line in f if line.strip()]
    assert [r[:2] for r in run.tables["questions"][1:]] == [list(g) for g in gold]
    assert [r[2:] for r in run.tables["questions"][1:]] == [
        [str(v), str(b), "win" if v > b else "tie" if v == b else "loss"]
        for v, b in zip(PER_QUESTION["beta"], PER_QUESTION[BASELINE])]
    stats = Page(os.path.join(out, "stats.html"))
    assert [r[0] for r in stats.tables[0]] == ["Source", "runs", "questions", "residual", "total"]
    assert stats.tables[0][2][2] == "11" and stats.tables[0][3][2] == str(5 * 11)  # 6 runs x 12 questions
    assert len(stats.tables[1]) == 1 + 15  # every pair of the 6 runs, the baseline's too
    assert stats.tables[2][0] == ["", "1", "2", "3", "4", "5", "6"] and stats.tables[2][6][0] == "6. delta"


def board_root(board):
    return os.path.dirname(board.entries[0].files[0])


def test_manifest_and_the_same_bytes(built, tmp_path):
    board, out = built
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    assert manifest["command"] == "python -m qa_baseline.score --html out" and manifest["version"] == __version__
    files = [GOLD, *(os.path.join(board_root(board), f"{n}_en.csv") for n in ("alpha", "beta", "gamma"))]
    assert {i["path"]: i["sha256"] for i in manifest["inputs"]}.items() >= {f: sha256(f) for f in files}.items()
    assert [s["path"] for s in manifest["site"]] == sorted(n for n in os.listdir(out) if n != "manifest.json")
    assert all(s["sha256"] == sha256(os.path.join(out, s["path"])) for s in manifest["site"])
    again = site.write_site(board, str(tmp_path / "again"), "python -m qa_baseline.score --html out")
    assert sorted(os.listdir(again)) == sorted(os.listdir(out))
    for name in os.listdir(out):
        assert open(os.path.join(again, name), "rb").read() == open(os.path.join(out, name), "rb").read(), name


def test_the_folder_is_replaced_in_one_step(built, tmp_path):
    board, _ = built
    out = str(tmp_path / "out")
    first = os.path.realpath(site.write_site(board, out, "c"))
    second = os.path.realpath(site.write_site(board, out, "c"))
    assert os.path.islink(out) and first != second and not os.path.exists(first)
    assert sorted(os.listdir(tmp_path)) == sorted(["out", os.path.basename(second)])  # nothing left beside it
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(UserError, match="notes: exists and is not a results site"):
        site.write_site(board, str(other), "c")
    assert os.listdir(other) == ["keep.txt"]


def test_score_and_report_write_sites(tmp_path, capsys):
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", os.path.join(BOARD, "submissions"),
                       "--html", str(tmp_path / "board")]) == 0
    assert [r[1] for r in Page(str(tmp_path / "board" / "index.html")).tables[0][1:]] == [
        "alpha", "beta", "gamma", "delta"]
    runs = save(tmp_path / "runs", [row(), row(data="/d/set_2.csv", values=(1, 1, 0, 0)),
                                    row(task="mcqa-zh", values=(0, 1))])
    assert report_cli.main([runs, "--html", str(tmp_path / "report")]) == 0
    page = Page(str(tmp_path / "report" / "index.html"))
    assert [t[0] for t in page.tables.values()][:2] == [["Data", "Corpus", "Retriever", "#Q", "accuracy (%)"]] * 2
    assert [r[0] for r in page.tables[0][1:]] == ["set_1.csv", "set_2.csv"] and len(page.tables[1]) == 2
    assert page.tables[0][1][4] == "75.0[%.1f, %.1f]" % tuple(100 * v for v in percentile_ci((1, 0, 1, 1, 0, 1, 1, 1)))
    assert page.tables[2][0][:2] == ["Run", "Commit"] and len(page.tables[2]) == 4  # the manifest of 3 runs
    assert os.path.isfile(tmp_path / "report" / "figure.svg")
    manifest = json.load(open(tmp_path / "report" / "manifest.json"))
    assert sorted(i["path"] for i in manifest["inputs"]) == sorted(
        os.path.join(runs, f"run{i}", "row.json") for i in range(3))


def browser():
    """Playwright's sync API and the chromium binary; skips (fails under CI) when either is missing."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[test]')"
    if not missing and not os.path.isfile(CHROMIUM):
        missing = "chromium is not installed (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: under CI the browser tests never skip (.ci/run installs chromium)")
        pytest.skip(missing)
    return sync_playwright


def test_in_a_browser(built):
    board, out = built
    base = "file://" + os.path.abspath(out)  # the link itself: requests must stay under it
    requests, errors = [], []
    with browser()() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = chromium.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: (errors.append(f"dialog {d.message}"), d.dismiss()))

            def runs():
                return page.locator("table.sortable tbody tr td:nth-child(2) a").all_inner_texts()
            page.goto(f"{base}/index.html")
            assert runs() == ORDER
            page.click("th:has-text('Run')")
            assert runs() == sorted(ORDER)
            page.click("th:has-text('Run')")
            assert runs() == sorted(ORDER, reverse=True)
            page.goto(f"{base}/index.html")
            page.click("th:has-text('accuracy')")  # ascending; equal scores keep their order
            assert runs() == ["delta", SCRIPT, "beta", "gamma", BASELINE, "alpha"]
            assert page.locator("img[src='figure.svg']").evaluate("img => img.naturalWidth") > 0
            for e in board.entries:
                page.goto(f"{base}/index.html")
                page.get_by_role("link", name=e.name, exact=True).click()
                assert page.locator("h1").inner_text() == e.name
                assert sha256(e.files[0]) in page.content()
                if e.name == "delta":  # against the baseline: wins q10-q12, ties q9, loses q1-q8
                    for button, shown in (("losses", 8), ("wins", 3), ("ties", 1), ("all", 12)):
                        page.click(f"[data-filter] button:has-text('{button}')")
                        assert page.locator("#questions tbody tr:visible").count() == shown
            page.click("nav a:has-text('Statistics')")
            assert page.locator("h1").inner_text() == "Statistics of mcqa-en"
            assert page.locator("table.heat tbody tr").count() == 6
        finally:
            chromium.close()
    assert errors == []
    assert requests and [u for u in requests if not u.startswith(base + "/")] == []


def test_a_folder_named_with_a_trailing_slash(built, tmp_path):
    """`--html site/` (as a shell completes it) writes the site, and writes it again over itself."""
    board, _ = built
    for _ in range(2):
        site.write_site(board, str(tmp_path / "site") + "/", "python -m qa_baseline.score --html site/")
    assert os.path.isfile(tmp_path / "site" / "index.html")
    assert sorted(p.name.split(".v-")[0] for p in tmp_path.iterdir()) == [".site", "site"]  # one version kept
