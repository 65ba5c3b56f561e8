"""MCQA beyond the published rule (issue 26): `--scorer fused` (BM25 and dense option scores normalised within the
question, weighted) and `--scorer learned` (a model over option features, kept where it beats the rule on
held-out folds), on the six-passage fixture corpus; each expected value is computed here independently."""
import json
import os

import numpy as np
import pytest

from conftest import FIXTURES
from qa_baseline.core.errors import UserError
from qa_baseline.indexes.dense import build_dense
from qa_baseline.retrievers import open_retriever
from qa_baseline.tasks.mcqa import evidence, fusion, learned
from qa_baseline.tasks.mcqa.formats import Question

SAMPLE = os.path.join(FIXTURES, "mcqa-sample.csv")
CORPUS = os.path.join(FIXTURES, "tiny-en.jsonl")
RULE_ANSWERS = "q1,A\nq2,B\nq3,C\nq4,A\n"  # the published rule's answers on the sample (tests/unit/tasks/test_mcqa.py)


@pytest.fixture(scope="module")
def both_cfg(tiny_cfg):
    build_dense(tiny_cfg, "minilm", shard_size=4)
    return tiny_cfg


def run(tmp_path, name, *args):
    from qa_baseline import run as run_module
    out = str(tmp_path / name)
    run_module.main(["--task", "mcqa-en", "--data", SAMPLE, "--corpus", CORPUS, "--encoder", "minilm", "--out", out,
                     "--trace", *args])
    with open(os.path.join(out, "row.json"), encoding="utf-8") as f:
        row = json.load(f)
    with open(os.path.join(out, "trace.jsonl"), encoding="utf-8") as f:
        trace = [json.loads(line) for line in f]
    with open(row["files"]["submission"], encoding="utf-8") as f:
        return row, trace, f.read()


def fails(tmp_path, capsys, *args):
    """The one-line error of a run that stops with a usage error (exit status 2)."""
    with pytest.raises(SystemExit) as stopped:
        run(tmp_path, "failed", *args)
    assert stopped.value.code == 2
    return capsys.readouterr().err


def copies(tmp_path, times=3):
    """The sample's questions TIMES times under new ids: a training file of 12 questions with answers."""
    with open(SAMPLE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    path = tmp_path / "train.csv"
    path.write_text("".join(f"c{c}-{line}\n" for c in range(times) for line in lines), encoding="utf-8")
    return str(path)


# ---- normalisation and fusion, by hand ----

def test_normalisers_ranks_and_fusion_by_hand():
    sd = 3.5 ** 0.5  # mean 3, population variance (4 + 1 + 0 + 9) / 4
    assert evidence.zscore([1.0, 2.0, 3.0, 6.0]) == pytest.approx([-2 / sd, -1 / sd, 0.0, 3 / sd])
    assert evidence.zscore([2.0, 2.0, 2.0, 2.0]) == [0.0, 0.0, 0.0, 0.0]  # no spread: no evidence either way
    assert evidence.share([1.0, 3.0, 0.0, 4.0]) == [0.125, 0.375, 0.0, 0.5]
    assert evidence.share([0.0, 0.0, 0.0, 0.0]) == [0.25] * 4 and evidence.share([-1.0, 1.0, 0, 0]) == [0, 1, 0, 0]
    assert evidence.ranks([0.5, 2.0, 2.0, 1.0]) == [4, 1, 2, 3]  # a tie ranks the earlier option first
    bm25, dense = [10.0, 0.0, 5.0, 5.0], [0.30, 0.50, 0.40, 0.40]
    zb, zd = [(np.array(x) - np.mean(x)) / np.std(x) for x in (bm25, dense)]
    assert fusion.fuse(bm25, dense, 0.25, "z") == pytest.approx(list(0.75 * zb + 0.25 * zd))
    assert fusion.fuse(bm25, dense, 0.6, "share") == pytest.approx(
        list(0.4 * np.array(bm25) / 20 + 0.6 * np.array(dense) / 1.6))
    assert evidence.rank_points([0.5, 2.0, 2.0, 1.0]) == [0.0, 3.0, 2.0, 1.0]  # 4 - rank, a tie as ranks
    # rank: BM25 gives A 3 points, C 2, D 1, B 0 (C before D: a tie goes to the earlier); dense B 3, C 2, D 1, A 0
    assert fusion.fuse(bm25, dense, 0.5, "rank") == [1.5, 1.5, 2.0, 1.0]
    assert fusion.fuse(bm25, dense, 0.2, "rank") == pytest.approx([2.4, 0.6, 2.0, 1.0])
    with pytest.raises(UserError, match="--normalise must be one of z, share, rank"):
        fusion.fuse(bm25, dense, 0.5, "minmax")


def ev(qid, gold, bm25, dense):
    """Evidence whose option queries each found one hit of the given score."""
    q = Question(qid, "q", ["a", "b", "c", "d"], gold, 1)
    return evidence.Evidence(q, {"bm25": [[("x", s)] for s in bm25], "dense": [[("x", s)] for s in dense]})


def test_fitted_weight_is_the_best_accuracy_nearest_one_half():
    # q1: BM25 right, dense wrong; q2: dense right, BM25 wrong but close; both right for 0.16 < w < 0.5
    evs = [ev("1", "A", [3, 1, 1, 1], [0.3, 0.4, 0.3, 0.3]), ev("2", "B", [2, 1.8, 1, 1], [0.1, 0.9, 0.1, 0.1])]
    name, w, curves = fusion.fit(evs, 3, "z")
    curve = curves["z"]
    assert name == "z" and set(curves) == {"z"}
    expected = {}
    for weight in fusion.WEIGHTS:  # independently: numpy z-scores, argmax (the first of equals)
        right = 0
        for e in evs:
            b, d = ([h[0][1] for h in e.hits[p]] for p in ("bm25", "dense"))
            s = (1 - weight) * (b - np.mean(b)) / np.std(b) + weight * (d - np.mean(d)) / np.std(d)
            right += "ABCD"[int(np.argmax(s))] == e.question.gold
        expected[weight] = right / 2
    assert curve == pytest.approx(expected) and max(expected.values()) == 1.0
    assert w == max(x for x in fusion.WEIGHTS if expected[x] == 1.0)  # the best weights lie below 0.5
    with pytest.raises(UserError, match="--weight must be between 0 and 1"):
        fusion.check_weight(1.5)


# ---- the fused scorer end to end ----

def test_fused_run_scores_each_option_as_the_rule_says(both_cfg, tmp_path):
    row, trace, answers = run(tmp_path, "fused", "--scorer", "fused", "--weight", "0.3")
    bm25, dense = open_retriever("bm25", both_cfg, {}), open_retriever("dense", both_cfg, {"encoder": "minilm"})
    queries = [f"{t['question']} {o['text']}" for t in trace for o in t["options"]]  # as the run: one batch
    found = {"bm25": bm25.search(queries, 3), "dense": dense.search(queries, 3)}
    for i, t in enumerate(trace):
        b, d = (np.array([np.mean([s for _, s in h[:3]]) if h else 0.0 for h in found[p][4 * i:4 * i + 4]])
                for p in ("bm25", "dense"))
        fused = 0.7 * (b - b.mean()) / b.std() + 0.3 * (d - d.mean()) / d.std()
        assert [o["score"] for o in t["options"]] == pytest.approx(list(fused), abs=1e-9)
        assert [o["features"]["bm25"] for o in t["options"]] == pytest.approx(list(b), abs=1e-9)
        assert [o["features"]["dense_z"] for o in t["options"]] == pytest.approx(list((d - d.mean()) / d.std()))
        assert t["answer"] == "ABCD"[int(np.argmax(fused))]
        assert [h["docid"] for h in t["options"][0]["hits"]["dense"]] == [x for x, _ in found["dense"][4 * i]]
    assert answers == "".join(f"{t['id']},{t['answer']}\n" for t in trace)
    assert row["retriever"] == "fused" and row["metrics"]["accuracy"] == 1.0
    assert {k: row["settings"][k] for k in ("scorer", "weight", "normalise", "encoder", "k1")} == \
        {"scorer": "fused", "weight": 0.3, "normalise": "z", "encoder": "minilm", "k1": 0.9}
    assert set(row["index_manifest"]) == {"bm25", "dense"}


def test_fused_fits_its_weight_on_repeated_train_files(both_cfg, tmp_path, capsys):
    train = copies(tmp_path)
    row, _, answers = run(tmp_path, "fit", "--scorer", "fused", "--train", train, "--train", SAMPLE)
    curves = row["observed"]["train_accuracy"]  # every normalisation (none was given), every weight
    best = max(a for curve in curves.values() for a in curve.values())
    name = next(n for n in ("z", "share", "rank") if best in curves[n].values())  # ties: the first of these
    fitted = min((float(w) for w, a in curves[name].items() if a == best), key=lambda w: (abs(w - 0.5), w))
    assert (row["settings"]["normalise"], row["settings"]["weight"]) == (name, fitted) and best == 1.0
    assert set(curves) == {"z", "share", "rank"} and all(len(c) == 21 for c in curves.values())
    assert [t["file"] for t in row["settings"]["train"]] == ["train.csv", "mcqa-sample.csv"]
    assert row["observed"]["fitted_on"] == ["train.csv", "mcqa-sample.csv"]
    assert "give --weight or --train (to fit the weight), not both" in \
        fails(tmp_path, capsys, "--scorer", "fused", "--train", train, "--weight", "0.5")
    assert "leave out --retriever dense" in fails(tmp_path, capsys, "--scorer", "fused", "--retriever", "dense")
    unanswered = tmp_path / "test.csv"
    unanswered.write_text('t1,"What is frozen water?","ice","milk","dog","sun"\n', encoding="utf-8")
    assert f"--train {unanswered}: no answers (the 7th field, correct) to fit on" in \
        fails(tmp_path, capsys, "--scorer", "fused", "--train", str(unanswered))


# ---- the learned scorer ----

def items(golds, column=None):
    """Training items of noise features where bm25 always points at option A, and feature COLUMN at the answer."""
    names = learned.names("zh")
    rng = np.random.default_rng(0)
    out = []
    for g in golds:
        X = rng.normal(size=(4, len(names)))
        X[:, names.index("bm25")] = [4.0, 1.0, 1.0, 1.0]
        if column:
            X[:, names.index(column)] = np.where(np.arange(4) == g, 3.0, -3.0)
        out.append(learned.Item(X, g))
    return out, names


@pytest.mark.parametrize("learner", ["logistic", "lambdamart"])
def test_keep_if_better_keeps_a_model_only_where_it_wins(learner):
    wins, names = items([1, 2, 3] * 10, "dense_z")  # bm25 is always wrong, dense_z right
    model, found = learned.choose_model(wins, learner, names)
    assert found["kept"] == learner and found["heldout_accuracy"] == {"rule": 0.0, learner: 1.0}
    assert learned.accuracy(model, wins, names) == 1.0
    rule_right, names = items([0] * 10)  # bm25 is always right: nothing beats it, the rule stays
    model, found = learned.choose_model(rule_right, learner, names)
    assert model == learned.RULE and found["kept"] == "rule" and found["heldout_accuracy"]["rule"] == 1.0
    with pytest.raises(UserError, match="at least 5 are needed"):
        learned.choose_model(wins[:3], learner, names)


def test_logistic_c_is_chosen_on_held_out_folds_of_the_training_questions():
    """A clean signal: every C answers all held-out questions, and the tie goes to the largest C. A weak signal
    among many noise features: the Cs' held-out counts differ, and fit takes the best of them."""
    clean, _ = items([1, 2, 3, 0] * 10, "dense_z")
    assert {learned.heldout(clean, "logistic", C=c) for c in learned.C_GRID} == {40}
    assert learned.fit(clean, "logistic").options["C"] == max(learned.C_GRID)
    rng = np.random.default_rng(1)
    weak = []
    for g in [0, 1, 2, 3] * 15:
        X = rng.normal(size=(4, 20))
        X[g, 0] += 0.8
        weak.append(learned.Item(X, g))
    right = {c: learned.heldout(weak, "logistic", C=c) for c in learned.C_GRID}
    assert len(set(right.values())) > 1
    chosen = learned.fit(weak, "logistic").options["C"]
    assert right[chosen] == max(right.values()) and chosen == max(c for c in right if right[c] == right[chosen])
    assert learned.fit(clean[:9], "logistic").options["C"] == 1.0  # too few questions for folds: C 1


def test_overlap_and_feature_names():
    assert learned.overlap("Which metal does a magnet attract?", "the magnet metal") == pytest.approx(2 / 3)
    assert learned.overlap("天空是蓝色的", "蓝天") == 1.0 and learned.overlap("q", "") == 0.0
    assert set(learned.CROSS_FEATURES) <= set(learned.names("en")) and "cross" not in learned.names("zh")
    assert learned.names("zh")[:6] == ("bm25", "bm25_z", "bm25_share", "bm25_top1", "bm25_top3", "bm25_rank")


def test_learned_run_keeps_the_rule_where_it_cannot_be_beaten(both_cfg, tmp_path, capsys):
    row, trace, answers = run(tmp_path, "learned", "--scorer", "learned", "--train", copies(tmp_path))
    found = row["observed"]["learned"]
    # the rule answers every training question: the model can at best tie on the held-out folds, so it is not kept
    assert found["kept"] == "rule" and found["heldout_accuracy"]["rule"] == 1.0 and found["train_questions"] == 12
    assert answers == RULE_ANSWERS and row["settings"]["answer_model"] == "rule"
    assert row["settings"]["scorer"] == "learned" and row["settings"]["learner"] == "logistic"
    names = learned.names("en")
    for t in trace:
        for o in t["options"]:
            assert set(o["features"]) == set(names)
            assert o["score"] == o["features"]["bm25"]  # the rule kept: an option's score is its BM25 score
        assert [o["features"]["bm25_rank"] for o in t["options"]].count(1.0) == 1
    # cross: the cross-encoder's logit of (question + option, dense's top passage); cross_bm25: of BM25's; each
    # pair scored alone, here as in the run (a pair's int8 logit does not depend on other pairs: onnxrt.py)
    from qa_baseline.encoders import load_cross_encoder
    with open(CORPUS, encoding="utf-8") as f:
        docs = {r["id"]: r for r in map(json.loads, f)}
    text = lambda d: f"{docs[d]['title']}\n{docs[d]['contents'][:learned.PASSAGE_CHARS]}"  # noqa: E731
    wanted = {(i, j, name): (f"{t['question']} {o['text']}", text(o["hits"][part][0]["docid"]))
              for i, t in enumerate(trace) for name, part in (("cross", "dense"), ("cross_bm25", "bm25"))
              for j, o in enumerate(t["options"])}
    model = load_cross_encoder("ms-marco-cross")
    logit = {pair: float(model.score([pair])[0]) for pair in set(wanted.values())}
    for (i, j, name), pair in wanted.items():
        assert trace[i]["options"][j]["features"][name] == pytest.approx(logit[pair], abs=1e-6)
    assert any(wanted[i, j, "cross"] != wanted[i, j, "cross_bm25"] for i, j, _ in wanted)  # the two passages differ
    t = trace[0]
    bm25_cross = np.array([o["features"]["cross_bm25"] for o in t["options"]])
    assert [o["features"]["cross_bm25_z"] for o in t["options"]] == \
        pytest.approx(list((bm25_cross - bm25_cross.mean()) / bm25_cross.std()), abs=1e-9)
    assert "--scorer learned needs --train FILE" in fails(tmp_path, capsys, "--scorer", "learned")


# ---- Chinese: no cross-encoder ----

ZH_CORPUS = [("z1", "光合作用", "绿色植物利用阳光进行光合作用，制造养分并释放氧气。"),
             ("z2", "磁铁", "磁铁能够吸引铁、钴、镍等金属。"),
             ("z3", "水", "水在零度结冰，在一百度沸腾。"),
             ("z4", "月球", "月球绕地球运行，反射太阳的光。")]
ZH_QUESTIONS = [("1", "绿色植物利用什么制造养分？", "阳光", "铁", "冰", "月球", "A"),
                ("2", "磁铁能够吸引什么？", "水", "铁", "光", "氧气", "B"),
                ("3", "水在多少度结冰？", "一百度", "五十度", "零度", "十度", "C"),
                ("4", "什么绕地球运行？", "月球", "磁铁", "阳光", "植物", "A"),
                ("5", "植物释放什么气体？", "氧气", "氮气", "氢气", "氦气", "A")]


def test_chinese_fused_and_learned_runs_without_a_cross_encoder(index_root, tmp_path):
    from qa_baseline import run as run_module
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    corpus = tmp_path / "zh.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "title": t, "contents": c}, ensure_ascii=False) + "\n"
                              for i, t, c in ZH_CORPUS), encoding="utf-8")
    data = tmp_path / "zh.csv"
    data.write_text("".join(f'{c}-{i},"{q}","{a}","{b}","{cc}","{d}",{gold}\n' for c in range(2)
                            for i, q, a, b, cc, d, gold in ZH_QUESTIONS), encoding="utf-8")
    cfg = corpus_config(str(corpus), "zh")
    build_bm25(cfg)
    build_dense(cfg, "e5-small")
    rows = {}
    for scorer, extra in (("fused", []), ("learned", ["--train", str(data), "--learner", "lambdamart"])):
        out = tmp_path / scorer
        run_module.main(["--task", "mcqa-zh", "--data", str(data), "--corpus", str(corpus), "--out", str(out),
                         "--trace", "--scorer", scorer, *extra])
        rows[scorer] = json.loads((out / "row.json").read_text(encoding="utf-8"))
        trace = [json.loads(line) for line in (out / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(trace) == 10 and all(len(t["options"]) == 4 for t in trace)
        if scorer == "learned":
            assert set(trace[0]["options"][0]["features"]) == set(learned.names("zh"))  # no cross
    assert (rows["fused"]["settings"]["normalise"], rows["fused"]["settings"]["weight"]) == fusion.UNFITTED and \
        rows["fused"]["settings"]["encoder"] == "e5-small"
    assert rows["learned"]["settings"]["learner"] == "lambdamart" and rows["learned"]["observed"]["learned"][
        "train_questions"] == 10


def test_default_normalisation_and_weight_are_the_ones_fitted_on_the_corpus():
    from qa_baseline.core.config import CorpusConfig

    def corpus(name):
        return CorpusConfig(name=name, lang="en", sources=(), analyzer="default", index=name, build="")
    assert fusion.default(corpus("shared-en")) == ("rank", 0.5)
    assert fusion.default(corpus("vital-en")) == ("share", 0.65)
    assert fusion.default(corpus("my-corpus")) == fusion.UNFITTED == ("z", 0.5)


def test_fit_tries_every_normalisation_and_keeps_the_most_accurate():
    """Two questions that z-scores answer wrongly at every weight up to 0.5 and ranks rightly at 0.5: BM25 is
    far surer of a wrong A than of the answer, its second; dense ranks the answer first and A third, by a little.
    With z-scores BM25's spread outweighs dense; with ranks the answer's 3 + 2 points beat A's 3 + 1."""
    evs = [ev("1", "B", [9, 1.1, 1, 1], [0.30, 0.32, 0.31, 0.0]), ev("2", "C", [9, 1, 1.1, 1], [0.30, 0.31, 0.32, 0.0])]
    name, w, curves = fusion.fit(evs, 3)
    assert all(curves["z"][w] == 0.0 for w in fusion.WEIGHTS if w <= 0.5) and curves["rank"][0.5] == 1.0
    best = max(a for c in curves.values() for a in c.values())
    assert best == 1.0 and name == next(n for n in ("z", "share", "rank") if best in curves[n].values())
    assert curves[name][w] == 1.0 and fusion.fit(evs, 3, "rank")[:2] == ("rank", 0.5)
