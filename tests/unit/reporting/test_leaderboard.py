"""The leaderboard (score --submissions): every submission validated, invalid ones listed and left out, ranks
with ties, bootstrap intervals, the paired randomisation test against its exact value, baseline runs joining,
multi-file teams, the formats (LaTeX compiled when pdflatex is there) and the figure."""
import itertools
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline import score, tasks
from qa_baseline.core.errors import UserError
from qa_baseline.reporting import leaderboard as lb
from qa_baseline.reporting.plot import count_points
from qa_baseline.scoring import tukey
from qa_baseline.scoring.significance import holm, randomisation_test
from qa_baseline.scoring.validate import Errors
from test_report import percentile_ci

BOARD = os.path.join(FIXTURES, "leaderboard")
GOLD, SUBMISSIONS = os.path.join(BOARD, "gold.csv"), os.path.join(BOARD, "submissions")
# gold.csv: 12 questions. alpha answers all, beta misses q1, q11, q12, gamma q3-q5, delta q1-q8; broken is invalid


def exact_p(a, b):
    """The exact two-sided paired permutation p-value: all 2^n sign patterns of the differences."""
    d = np.asarray(a, float) - np.asarray(b, float)
    observed = abs(d.mean())
    means = [abs(np.dot(signs, d)) / len(d) for signs in itertools.product((1, -1), repeat=len(d))]
    return sum(m >= observed - 1e-12 for m in means) / len(means)


def test_randomisation_test_approximates_the_exact_test():
    rng = np.random.default_rng(7)
    a, b = rng.random(10), rng.random(10) * 0.8
    p = randomisation_test(a, b, permutations=20000)
    assert abs(p - exact_p(a, b)) < 0.01
    assert randomisation_test(a, b, permutations=20000) == p  # seeded
    assert randomisation_test(a, a) == 1.0
    assert randomisation_test([1] * 10, [0] * 10, permutations=20000) == pytest.approx(2 / 1024, abs=0.001)
    with pytest.raises(ValueError):
        randomisation_test([1, 0], [1])


def board(**options):
    return lb.build(tasks.get("mcqa-en"), [GOLD], [SUBMISSIONS], **options)


def test_ranks_ties_intervals_and_tests():
    b = board()
    assert [(e.rank, e.name, e.metrics["accuracy"]) for e in b.entries] == [
        (1, "alpha", 1.0), (2, "beta", 0.75), (2, "gamma", 0.75), (4, "delta", pytest.approx(4 / 12))]
    assert [e.name for e in b.invalid] == ["broken"] and b.invalid[0].count == 13
    assert "broken_en.csv:1: answer 'E' is not one of A, B, C, D" in b.invalid[0].problems[0]
    for e in b.entries:
        assert e.ci["accuracy"] == percentile_ci(e.per_question["accuracy"])
    alpha, beta, gamma, delta = b.entries
    # exact p-values: alpha vs beta differ on 3 questions (2/8), beta and gamma score the same (1), gamma vs
    # delta on 5 questions, all in gamma's favour (2/32)
    assert alpha.p_next == pytest.approx(0.25, abs=0.015)
    assert beta.p_next == 1.0
    assert gamma.p_next == pytest.approx(0.0625, abs=0.01)
    assert delta.p_next is None
    assert gamma.p_next == pytest.approx(exact_p(gamma.per_question["accuracy"], delta.per_question["accuracy"]),
                                         abs=0.01)
    assert board().entries[0].p_next == alpha.p_next  # seeded: the same table every time


def test_markdown_table(capsys):
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == ("**Leaderboard of mcqa-en on gold.csv (12 questions): 4 runs ranked by accuracy, shown with "
                        "its 95% bootstrap confidence interval (1,000 resamples, seed 0); 1 invalid run left "
                        "out. p (next): paired approximate randomisation test on accuracy (10,000 permutations, "
                        "two-sided, seed 0) of each run with the next run, not corrected for multiple comparisons; "
                        "* p < 0.05.**")
    assert lines[2:4] == ["| Rank | Run | accuracy (%) [95% CI] | p (next) |", "|---:|---|---:|---:|"]
    assert lines[4].startswith("| 1 | alpha | 100.0 [100.0, 100.0] | 0.2")
    assert lines[5] == f"| 2 | beta | 75.0 [50.0, 100.0] | 1.000 |"
    assert lines[6].startswith("| 2 | gamma | 75.0 [") and not lines[6].endswith("* |")  # p = 0.0625: no star
    low, high = percentile_ci([0.0] * 8 + [1.0] * 4)  # delta: q1-q8 wrong, q9-q12 right
    assert lines[7] == f"| 4 | delta | 33.3 [{100 * low:.1f}, {100 * high:.1f}] |  |"
    assert lines[-1] == "Left out (invalid): broken (13 problems)"
    assert "left out: broken (" in captured.err and "broken_en.csv:3: duplicate id 'q2'" in captured.err


def test_json_and_csv(capsys):
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--format", "json",
                       "--permutations", "1000", "--resamples", "200", "--seed", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["measure"], data["questions"], data["permutations"], data["resamples"], data["seed"]) == (
        "accuracy", 12, 1000, 200, 3)
    assert [e["name"] for e in data["entries"]] == ["alpha", "beta", "gamma", "delta"]
    assert data["invalid"][0]["name"] == "broken" and len(data["invalid"][0]["problems"]) == 13
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "rank,name,team,run,kind,accuracy,ci_low,ci_high,p_next,files"
    assert out[1].startswith("1,alpha,alpha,,team,1.0,1.0,1.0,0.2")


def test_latex_has_a_label_and_compiles(tmp_path, capsys):
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\label{tab:leaderboard-mcqa-en}" in tex and r"accuracy (\%)\\ \scriptsize {[}95\% CI{]}" in tex
    assert r"* p $<$ 0.05" in tex and max(map(len, tex.splitlines())) <= 100
    from test_latex import compile_latex
    compile_latex(tmp_path, tex, "article")


def baseline_runs(tmp_path):
    """A runs folder with a baseline run on the gold's questions (9 of 12 right) and one on other data."""
    runs = tmp_path / "runs"
    for folder, answers in [("gold--vital-en--bm25", "ABCDABCDAAAA"), ("dev--vital-en--bm25", "ABC")]:
        (runs / folder).mkdir(parents=True)
        sub = runs / folder / "qa_baseline_en.csv"
        sub.write_text("".join(f"q{i},{a}\n" for i, a in enumerate(answers, 1)))
        (runs / folder / "row.json").write_text(json.dumps({
            "task": "mcqa-en", "data": f"/d/{folder}.csv", "corpus": "vital-en", "retriever": "bm25", "metrics": {},
            "files": {"submission": str(sub)}}))
    return str(runs)


def test_baseline_runs_join(tmp_path, capsys):
    b = board(baselines=baseline_runs(tmp_path))
    assert [(e.rank, e.name, e.kind) for e in b.entries] == [
        (1, "alpha", "team"), (2, "beta", "team"), (2, "gamma", "team"), (None, "baseline bm25", "baseline"),
        (4, "delta", "team")]  # the baseline: 9/12 like beta and gamma, listed after the teams of its score
    err = capsys.readouterr().err
    assert "dev--vital-en--bm25/row.json: a run on other data (9 problems against the gold)" in err


def test_baselines_stay_outside_the_chain_of_tests(tmp_path, capsys):
    """gamma is tested against delta, the next team, not against the baseline between them; the baseline has
    no p-value."""
    alpha, beta, gamma, baseline, delta = board(baselines=baseline_runs(tmp_path), permutations=2000).entries
    assert gamma.p_next == randomisation_test(gamma.per_question["accuracy"], delta.per_question["accuracy"], 2000)
    assert gamma.p_next != randomisation_test(gamma.per_question["accuracy"], baseline.per_question["accuracy"], 2000)
    assert baseline.p_next is None and delta.p_next is None
    assert beta.p_next == 1.0  # beta and gamma: the same score
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--baselines",
                       str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert "4 runs and 1 baseline (unranked) ranked by accuracy" in out
    assert "| baseline bm25 | 75.0 [" in out and out.split("| baseline bm25 |")[1].split("\n")[0] \
        .endswith("|  |")


def test_holm_matches_a_hand_computed_example():
    # m = 4, ascending: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04, raised to 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # 0.5 x 2 = 1.0, capped; 0.9 raised to it
    assert holm([0.02, 0.02, 0.5]) == pytest.approx([0.06, 0.06, 0.5])
    assert holm([0.04]) == [0.04] and holm([]) == []


def test_every_pair_of_teams(tmp_path, capsys):
    b = board(baselines=baseline_runs(tmp_path), pairs="all", permutations=2000)
    teams = [e for e in b.entries if e.kind == "team"]
    assert [(c.a, c.b) for c in b.comparisons] == [("alpha", "beta"), ("alpha", "gamma"), ("alpha", "delta"),
                                                   ("beta", "gamma"), ("beta", "delta"), ("gamma", "delta")]
    raw = [randomisation_test(a.per_question["accuracy"], c.per_question["accuracy"], 2000)
           for i, a in enumerate(teams) for c in teams[i + 1:]]
    assert [c.p for c in b.comparisons] == raw and [c.p_holm for c in b.comparisons] == holm(raw)
    assert all(e.p_next is None for e in b.entries)
    assert b.p_holm("delta", "alpha") == b.p_holm("alpha", "delta") < 0.05 and b.p_holm("beta", "beta") is None
    argv = ["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--pairs", "all",
            "--permutations", "2000"]
    assert score.main(argv) == 0
    out = capsys.readouterr().out
    assert "p (next)" not in out and "Holm-Bonferroni corrected over the 6 pairs; * p < 0.05." in out
    p = {(c.a, c.b): lb.p_text(c.p_holm) for c in b.comparisons}
    assert "| # | Run | 1 | 2 | 3 | 4 |\n|---:|---|---:|---:|---:|---:|\n" \
           f"| 1 | alpha |  | {p['alpha', 'beta']} | {p['alpha', 'gamma']} | {p['alpha', 'delta']} |" in out
    assert p["alpha", "delta"].endswith("*")
    assert score.main([*argv, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"] == "all" and len(data["comparisons"]) == 6 and set(data["comparisons"][0]) == {
        "a", "b", "diff", "p", "p_holm", "effect"}
    assert score.main([*argv, "--format", "csv"]) == 0
    header, first = capsys.readouterr().out.splitlines()[:2]
    assert header == ("rank,name,team,run,kind,accuracy,ci_low,ci_high,p[alpha],p[beta],p[gamma],"
                      "p[delta],files")
    assert first.split(",")[8:12] == ["", *(str(b.p_holm("alpha", n)) for n in ("beta", "gamma", "delta"))]


def test_multi_file_teams(tmp_path):
    golds = [os.path.join(FIXTURES, "scoring", f) for f in ("mcqa-en.csv", "mcqa-zh.csv")]
    (tmp_path / "teamA_en.csv").write_text("e1,A\ne2,B\ne3,C\n")
    (tmp_path / "teamA_zh.csv").write_text("z1,D\nz2,B\n")
    (tmp_path / "teamB_en.csv").write_text("e1,A\ne2,B\ne3,A\n")
    b = lb.build(tasks.get("mcqa-all"), golds, [str(tmp_path)])
    assert [(e.name, e.metrics["accuracy"]) for e in b.entries] == [("teamA", pytest.approx(0.8))]
    assert b.invalid[0].name == "teamB" and "1 file for 2 gold files" in b.invalid[0].problems[0]
    # one accuracy column per language, none named after a gold file (it would repeat its language's)
    assert list(b.entries[0].metrics) == ["accuracy", "accuracy[en]", "accuracy[zh]"]
    assert lb.show(b, "md").splitlines()[2] == \
        "| Rank | Run | accuracy (%) [95% CI] | accuracy[en] (%) | accuracy[zh] (%) | p (next) |"


def test_a_language_with_several_files_keeps_its_files_apart(tmp_path):
    task, golds = tasks.get("mcqa-all"), [os.path.join(FIXTURES, "scoring", "mcqa-en.csv")]
    shutil.copy(golds[0], tmp_path / "second.csv")
    golds.append(str(tmp_path / "second.csv"))
    pairs = []
    for gold_path, name in zip(golds, ("a_en.csv", "b_en.csv")):
        (tmp_path / name).write_text("e1,A\ne2,B\ne3,A\n" if name == "a_en.csv" else "e1,B\ne2,C\ne3,C\n")
        gold = task.read_gold(gold_path)
        pairs.append((gold_path, str(tmp_path / name), gold, task.read_submission(str(tmp_path / name), gold,
                                                                                   Errors(5))))
    assert task.score_files(pairs)["metrics"] == {"accuracy": pytest.approx(0.5),
                                                  "accuracy[mcqa-en]": pytest.approx(2 / 3),
                                                  "accuracy[second]": pytest.approx(1 / 3)}


def test_score_prints_measures_as_the_leaderboard_does(tmp_path, capsys):
    """`score` of one submission: md and LaTeX as the papers print each measure (per cent with one decimal,
    fractions with three), CSV and JSON raw fractions; plurals right."""
    sub = tmp_path / "ds.txt"
    sub.write_text("<SYSDESC>x</SYSDESC>\nnt-1\tKim Yu-na\nnt-2\tArizona\nnt-3\t1966\n")
    argv = ["--task", "datasearch", "--gold", os.path.join(FIXTURES, "scoring", "datasearch.tsv"),
            "--submission", str(sub)]
    assert score.main(argv) == 0
    out = capsys.readouterr().out
    assert "| EM (%) | 66.7 |" in out and "| token_F1 | 0." in out and "(datasearch, 3 questions)" in out
    assert score.main([*argv, "--format", "latex"]) == 0
    assert r"EM (\%) & 66.7 \\" in capsys.readouterr().out
    assert score.main([*argv, "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"EM,{2 / 3}"
    assert score.main([*argv, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["EM"] == 2 / 3
    one = tmp_path / "one.csv"
    one.write_text("".join(f"q{i},{'E' if i == 1 else 'A'}\n" for i in range(1, 13)))
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submission", str(one)]) == 1
    assert capsys.readouterr().err.startswith("invalid submission: 1 problem\n")


def test_plurals_for_one(tmp_path, capsys):
    shutil.copy(os.path.join(SUBMISSIONS, "alpha_en.csv"), tmp_path / "alpha_en.csv")
    (tmp_path / "bad_en.csv").write_text("".join(f"q{i},{'E' if i == 1 else 'A'}\n" for i in range(1, 13)))
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "(12 questions): 1 run ranked by accuracy" in captured.out and "1 invalid run left out" in \
        captured.out
    assert captured.out.endswith("Left out (invalid): bad (1 problem)\n") and ": 1 problem\n" in captured.err


def test_a_submission_never_stops_the_board(tmp_path, monkeypatch):
    shutil.copy(os.path.join(SUBMISSIONS, "alpha_en.csv"), tmp_path / "alpha_en.csv")
    (tmp_path / "garbage_en.csv").write_bytes(b"\xff\xfe\x00q1\x00,A\n\x00")
    (tmp_path / "odd_en.csv").write_text("q1,A\n")
    task = tasks.get("mcqa-en")
    real = task.read_submission

    def flaky(path, gold, errors):
        if path.endswith("odd_en.csv"):
            raise RuntimeError("validator bug")
        return real(path, gold, errors)
    monkeypatch.setattr(task, "read_submission", flaky)
    b = lb.build(task, [GOLD], [str(tmp_path)])
    assert [e.name for e in b.entries] == ["alpha"]
    problems = {e.name: e.problems for e in b.invalid}
    assert "UTF-8" in problems["garbage"][0]  # the validator says what the bytes are and to save as UTF-8
    assert problems["odd"] == [f"{tmp_path}/odd_en.csv: cannot be read (RuntimeError: validator bug) "
                               "(fix: check the file's format)"]


def test_exit_codes(tmp_path):
    (tmp_path / "bad.csv").write_text("q1,E\n")
    none_valid = cli("score", "--task", "mcqa-en", "--gold", GOLD, "--submissions", str(tmp_path))
    assert none_valid.returncode == 1 and "no valid run among 1" in none_valid.stderr
    assert cli("score", "--task", "mcqa-en", "--gold", GOLD, "--submissions", str(tmp_path / "nope")).returncode == 2
    assert cli("score", "--task", "mcqa-en", "--gold", GOLD, "--submission", GOLD, "--plot", "x.png").returncode == 2
    both = cli("score", "--task", "mcqa-en", "--gold", GOLD, "--submission", GOLD, "--submissions", GOLD)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    with pytest.raises(UserError, match="--measure MRR: task mcqa-en reports accuracy"):
        board(measure="MRR")


def test_plot(tmp_path):
    path = tmp_path / "board.png"
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--plot", str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from qa_baseline.reporting.plot import figure
    assert count_points(figure(lb.panels(board()))) == 4  # the four valid teams
    pdf = tmp_path / "board.pdf"
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--plot", str(pdf)]) == 0
    first = pdf.read_bytes()
    assert first.startswith(b"%PDF")
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--plot", str(pdf)]) == 0
    assert pdf.read_bytes() == first  # no date stamp: the same figure, byte for byte


@pytest.mark.parametrize("option", [["--seed", "3"], ["--measure", "accuracy"], ["--baselines"]])
def test_leaderboard_options_need_submissions(option):
    p = cli("score", "--task", "mcqa-en", "--gold", GOLD, "--submission", GOLD, *option)
    assert p.returncode == 2 and p.stderr.strip() == \
        f"error: {option[0]} is for the leaderboard: give --submissions DIR|FILE ..."


def copy(src, dst):
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(os.path.join(SUBMISSIONS, src), dst)


def test_team_folders_hold_runs_and_every_file_is_accounted_for(tmp_path, capsys):
    """Flat files are teams of one run; a folder per team holds its runs (TEAM/RUN); README, *.md, *.pdf and
    hidden files are ignored and listed, never invalid; the last stderr line sums it up."""
    teams = tmp_path / "teams"
    copy("alpha_en.csv", teams / "alpha" / "run1.csv")
    copy("delta_en.csv", teams / "alpha" / "run2.csv")
    copy("beta_en.csv", teams / "bravo" / "run1.csv")
    copy("gamma_en.csv", teams / "gamma.csv")
    copy("broken_en.csv", teams / "charlie" / "first.csv")
    for name in ("README.md", "notes.pdf", ".DS_Store", "alpha/README.txt", "alpha/.hidden"):
        (teams / name).write_text("not a run\n")
    b = lb.build(tasks.get("mcqa-en"), [GOLD], [str(teams)])
    assert [(e.rank, e.name, e.team, e.run, e.metrics["accuracy"]) for e in b.entries] == [
        (1, "alpha/run1", "alpha", "run1", 1.0), (2, "bravo", "bravo", "run1", 0.75),
        (2, "gamma", "gamma", "", 0.75), (4, "alpha/run2", "alpha", "run2", pytest.approx(4 / 12))]
    assert [(e.name, e.files) for e in b.invalid] == [("charlie", [str(teams / "charlie" / "first.csv")])]
    assert sorted(map(os.path.basename, b.ignored)) == [".DS_Store", ".hidden", "README.md", "README.txt",
                                                        "notes.pdf"]
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", str(teams), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == ("scored 4 runs of 3 teams; left out 1 invalid; ignored .DS_Store, "
                                             "README.md, .hidden, README.txt, notes.pdf")
    data = json.loads(captured.out)
    assert data["entries"][0] | {"ci": None} == {
        "rank": 1, "name": "alpha/run1", "team": "alpha", "run": "run1", "kind": "team",
        "files": [str(teams / "alpha" / "run1.csv")], "metrics": {"accuracy": 1.0}, "ci": None, "p_next":
        data["entries"][0]["p_next"], "letters": "", "wtl": None}
    assert len(data["ignored"]) == 5 and [e["name"] for e in data["invalid"]] == ["charlie"]
    # the ignored files never reach the caption as invalid runs
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", str(teams)]) == 0
    assert "1 invalid run left out" in capsys.readouterr().out


def test_files_of_one_name_are_runs_of_their_own(tmp_path, capsys):
    """alpha.txt and alpha.csv for one gold file: two runs, neither vanishes; `teams/*`: runs told apart by their
    folders, each noted."""
    copy("alpha_en.csv", tmp_path / "flat" / "alpha.csv")
    copy("delta_en.csv", tmp_path / "flat" / "alpha.txt")
    b = lb.build(tasks.get("mcqa-en"), [GOLD], [str(tmp_path / "flat")])
    assert [(e.name, e.metrics["accuracy"]) for e in b.entries] == [
        ("alpha/alpha.csv", 1.0), ("alpha/alpha.txt", pytest.approx(4 / 12))] and not b.invalid
    copy("alpha_en.csv", tmp_path / "teams" / "alpha" / "run1.csv")
    copy("beta_en.csv", tmp_path / "teams" / "bravo" / "run1.csv")
    folders = sorted(str(p) for p in (tmp_path / "teams").iterdir())  # what the shell makes of teams/*
    b = lb.build(tasks.get("mcqa-en"), [GOLD], folders)
    assert [(e.name, e.team, e.metrics["accuracy"]) for e in b.entries] == [
        ("alpha/run1", "alpha", 1.0), ("bravo/run1", "bravo", 0.75)] and not b.invalid
    assert len(b.renamed) == 2 and "named bravo/run1 (run1 names another run too)" in b.renamed[1]


def test_nesting_deeper_than_team_folders_is_one_error(tmp_path):
    copy("alpha_en.csv", tmp_path / "teams" / "alpha" / "v2" / "run1.csv")
    with pytest.raises(UserError, match=r"teams/alpha/v2: a folder inside a team's folder \(fix: runs lie one "):
        lb.build(tasks.get("mcqa-en"), [GOLD], [str(tmp_path / "teams")])
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.md").write_text("x")
    with pytest.raises(UserError, match=r"no submission files in this folder \(ignored: README.md\)"):
        lb.build(tasks.get("mcqa-en"), [GOLD], [str(tmp_path / "empty")])


def test_a_team_folder_without_runs_is_accounted_for(tmp_path):
    copy("alpha_en.csv", tmp_path / "alpha.csv")
    (tmp_path / "bravo").mkdir()
    (tmp_path / "bravo" / "README.md").write_text("our system\n")
    b = lb.build(tasks.get("mcqa-en"), [GOLD], [str(tmp_path)])
    assert [e.name for e in b.entries] == ["alpha"] and [e.name for e in b.invalid] == ["bravo"]
    assert "no run in this team's folder" in b.invalid[0].problems[0]


def test_primary_runs_and_strict(tmp_path, capsys):
    teams = tmp_path / "teams"
    copy("delta_en.csv", teams / "alpha" / "a1.csv")
    copy("alpha_en.csv", teams / "alpha" / "a2.csv")
    copy("gamma_en.csv", teams / "bravo" / "b1.csv")
    copy("beta_en.csv", teams / "bravo" / "b2.csv")
    best = lb.build(tasks.get("mcqa-en"), [GOLD], [str(teams)], primary="best")
    assert [(e.rank, e.name) for e in best.entries] == [(1, "alpha/a2"), (2, "bravo/b1")]  # b1, b2 tie: b1 first
    assert [e.name for e in best.others] == ["alpha/a1", "bravo/b2"]
    first = lb.build(tasks.get("mcqa-en"), [GOLD], [str(teams)], primary="first")
    assert [e.name for e in first.entries] == ["bravo/b1", "alpha/a1"]
    assert "(the first run of each team; 2 other runs not ranked)" in lb.caption(first)
    assert first.summary() == "scored 4 runs of 2 teams (ranked the first run of each team)"
    argv = ["--task", "mcqa-en", "--gold", GOLD, "--submissions", str(teams)]
    assert score.main([*argv, "--strict"]) == 0
    copy("broken_en.csv", teams / "charlie.csv")
    assert score.main(argv) == 0 and score.main([*argv, "--strict"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "scored 4 runs of 2 teams; left out 1 invalid"


def test_ci_none_drops_the_intervals(capsys):
    assert score.main(["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--ci", "none"]) == 0
    out = capsys.readouterr().out
    assert "| Rank | Run | accuracy (%) | p (next) |" in out and "[" not in out and "bootstrap" not in out


def test_tukey_hsd_over_every_run_in_the_table(tmp_path, capsys):
    """--pairs all --test tukey: every pair of the table's runs (the baseline too) with the test's own p, the
    effect ES_E over an independently computed V_E, letter groups that agree with the p-values, wins/ties/losses
    against the baseline, the ANOVA table and the minimum detectable difference."""
    b = board(baselines=baseline_runs(tmp_path), pairs="all", test="tukey", trials=2000, power=True)
    names = [e.name for e in b.entries]
    assert names == ["alpha", "beta", "gamma", "baseline bm25", "delta"]
    x = np.array([e.per_question["accuracy"] for e in b.entries])
    pairs = list(itertools.combinations(range(len(names)), 2))
    assert [(c.a, c.b) for c in b.comparisons] == [(names[i], names[j]) for i, j in pairs]
    result = tukey.tukey_hsd(x, 2000, 0)
    assert [c.p for c in b.comparisons] == [result.p[i, j] for i, j in pairs]
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    v_e = (residual ** 2).sum() / ((x.shape[0] - 1) * (x.shape[1] - 1))
    assert [c.effect for c in b.comparisons] == pytest.approx(
        [(x[i].mean() - x[j].mean()) / np.sqrt(v_e) for i, j in pairs])
    assert b.anova.v_e == pytest.approx(v_e)
    for (i, j), c in zip(pairs, b.comparisons):  # a shared letter exactly when the difference is not significant
        shared = bool(set(b.entries[i].letters) & set(b.entries[j].letters))
        assert shared == (c.p >= 0.05), (c, b.entries[i].letters, b.entries[j].letters)
    assert b.comparison("alpha", "delta").p < 0.05 and b.entries[0].letters == "a"
    # alpha answers all 12; the baseline 9 (q1-q9 right in its ABCDABCDA... against the gold's 0-3 cycle)
    assert b.entries[0].wtl == (3, 9, 0) and b.entries[3].wtl == (0, 12, 0)
    assert b.power == pytest.approx(tukey.min_detectable_difference(v_e, 12, 5))
    argv = ["--task", "mcqa-en", "--gold", GOLD, "--submissions", SUBMISSIONS, "--baselines", str(tmp_path / "runs"),
            "--pairs", "all", "--test", "tukey", "--trials", "2000", "--power"]
    assert score.main(argv) == 0
    out = capsys.readouterr().out
    assert "| Rank | Run | accuracy (%) [95% CI] | Group | W/T/L |" in out
    assert "| 1 | alpha | 100.0 [100.0, 100.0] | a | 3/9/0 |" in out
    assert "| Run | Run | Δ accuracy (%) | ES_E | p |" in out and "| Source | SS | df | MS | F | p |" in out
    assert "| residual | " in out and f"V_E = {v_e:.4g}" in out and "detected with power 0.8 at α = 0.05" in out
    assert score.main([*argv, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["trials"] == 2000 and len(data["comparisons"]) == 10 and data["anova"]["residual"]["df"] == 44
    assert score.main([*argv, "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\label{tab:leaderboard-mcqa-en-anova}" in tex
    if shutil.which("pdflatex"):
        from test_latex import compile_latex
        compile_latex(tmp_path, tex, "article")
    with pytest.raises(UserError, match=r"--test tukey compares every pair of runs \(fix: add --pairs all\)"):
        board(test="tukey")


@pytest.mark.parametrize("task_id, gold", [
    ("mcqa-en", "scoring/mcqa-en.csv"), ("dbqa", "scoring/dbqa.tsv"), ("kbqa", "scoring/kbqa.txt"),
    ("openqa-en", "scoring/openqa.xml"), ("qac-1", "scoring/qac.tsv"), ("qac-2", "scoring/qac.tsv"),
    ("qac-3", "answers-qac-series.tsv"), ("datasearch", "scoring/datasearch.tsv")])
def test_gold_rows_name_the_questions_that_are_scored(task_id, gold):
    """A results page shows each question's gold beside its values: one row per scored question, in order
    (qac-3 scores the follow-up questions only)."""
    task = tasks.get(task_id)
    g = task.read_gold(os.path.join(FIXTURES, gold))
    rows = task.gold_rows(g)
    assert all(isinstance(q, str) and isinstance(a, str) and q for q, a in rows)
    if task_id == "qac-3":
        assert [q for q, _ in rows] == ["S1.2"] + [q for q in g if g[q].followup][1:] and len(rows) < len(g)
        assert rows[0] == ("S1.2", "Jacksonville")
    elif task_id == "dbqa":
        assert [q for q, _ in rows] == [group.query for group in g]
    elif task_id != "mcqa-en":
        assert [q for q, _ in rows] == list(g)


def test_a_folder_named_twice_is_read_once():
    b = lb.build(tasks.get("mcqa-en"), [GOLD], [SUBMISSIONS, SUBMISSIONS + "/", os.path.join(SUBMISSIONS, "alpha_en.csv")])
    assert [e.name for e in b.entries] == ["alpha", "beta", "gamma", "delta"] and not b.renamed
