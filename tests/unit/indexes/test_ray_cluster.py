"""Ray keeps every worker busy (qa_baseline/indexes/distributed.py): a corpus of fewer shards than twice the actors
is cut into pieces of whole encoder batches, which give the vectors of a local build to the bit; the actor pool
is sized node by node; on a two-node cluster simulated on this machine (ray.cluster_utils.Cluster, nodes of 1
and 3 CPUs) both actors of a one-shard corpus encode, and the index equals a local build's.

Skipped without the `scale` extra; the cluster test skips when this process is already connected to a Ray."""
import json
import os
import random
import sys
import time

import numpy as np
import pytest

from conftest import FIXTURES
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import UserError
from qa_baseline.encoders.base import Encoder
from qa_baseline.indexes.dense import build_dense

ray = pytest.importorskip("ray", reason="needs the scale extra: pip install '.[scale]' (Ray)")
from qa_baseline.indexes.distributed import ShardEncoder, capacity, piece_size, pieces, plan, ray_encoder  # noqa: E402


def test_piece_size_gives_every_actor_two_pieces_when_the_corpus_allows():
    assert piece_size(5114, 8192, 2, 32) == 1280  # one shard of 5,114: 4 pieces (3 x 1,280 + 1,274), not 1
    assert piece_size(3 * 8192, 8192, 2, 32) == 4096  # 3 shards < 4: each in 2 pieces, 6 in all
    assert piece_size(3 * 8192 + 10, 8192, 2, 32) == 8192  # 4 shards: a shard is a piece
    assert piece_size(1_000_000, 8192, 16, 32) == 8192
    assert piece_size(100, 8192, 2, 32) == 32  # 4 batches: 4 pieces (3 x 32 + 4)
    assert piece_size(12, 8192, 2, 2) == 2  # 3 per piece would make 3 pieces for 2 x 2 actors: 6 of 2
    assert piece_size(50, 8192, 2, 32) == 32  # 2 batches: 2 pieces, as many as the corpus allows
    for passages, actors in [(5114, 2), (20000, 3), (9000, 8), (300, 4), (70, 2)]:
        piece = piece_size(passages, 8192, actors, 32)
        full, rest = divmod(passages, 8192)
        count = full * -(-8192 // piece) + -(-rest // piece)
        assert piece % 32 == 0 and count >= min(2 * actors, -(-passages // 32))


def test_capacity_counts_actors_node_by_node():
    nodes = [{"CPU": 1.0}, {"CPU": 3.0}]
    assert [capacity(nodes, cpus, gpu=False) for cpus in (1, 2, 3, 4)] == [4, 1, 1, 0]  # not 4 // 2 = 2
    gpus = [{"CPU": 8.0, "GPU": 2.0}, {"CPU": 2.0, "GPU": 4.0}, {"CPU": 4.0}]
    assert capacity(gpus, 2, gpu=True) == 2 + 1


class Recorder(Encoder):
    """Encoder.encode over a fake model that records its forward passes; a vector depends on its whole batch
    (as padding makes a real one depend on it, in the last bits)."""

    def __init__(self, max_chars):
        self.cfg, self.prefix, self.dim, self.normalize = {"max_chars": max_chars}, {"passage": "p: "}, 2, False
        self.passes = []

    def _encode(self, texts, kind):
        self.passes.append(tuple(texts))
        return np.array([[len(t), len(texts) * 10 + max(map(len, texts))] for t in texts], dtype=np.float32)


def test_pieces_run_the_forward_passes_of_the_whole_shard():
    rng = random.Random(1)
    texts = ["".join(rng.choice("ab ") for _ in range(rng.randrange(1, 12))) for _ in range(23)]  # ties in length
    for max_chars, batch, size in [(None, 3, 6), (5, 3, 6), (8, 2, 2), (None, 4, 24)]:
        local = Recorder(max_chars)
        whole = local.encode(texts, batch_size=batch)
        cut, ray_like = pieces(texts, max_chars, size), Recorder(max_chars)
        assert sorted(i for piece in cut for i in piece) == list(range(len(texts)))
        assert len(cut) == -(-len(texts) // size)
        vectors = np.zeros_like(whole)
        for piece in cut:
            vectors[piece] = ray_like.encode([texts[i] for i in piece], batch_size=batch)
        assert ray_like.passes == local.passes  # the same batches, in the same order
        assert vectors.tobytes() == whole.tobytes()


class Recording(ShardEncoder):
    """ShardEncoder that notes, in the file QA_BASELINE_TEST_LOG, which process encoded each piece; each piece
    takes at least 0.5 s, as real pieces (thousands of passages) take seconds: a piece of 2 passages is done
    before the next one is read, and would go to the same idle actor."""

    def __call__(self, batch):
        with open(os.environ["QA_BASELINE_TEST_LOG"], "a") as f:
            f.writelines(f"{os.getpid()} {len(pos)}\n" for pos in batch["pos"].to_pylist())
        time.sleep(0.5)
        return super().__call__(batch)


@pytest.fixture(scope="module")
def cluster():
    """Two Ray nodes of 1 and 3 CPUs on this machine, this process connected to them."""
    if ray.is_initialized():
        pytest.skip("this process is already connected to a Ray (another test module's)")
    from ray.cluster_utils import Cluster
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 100 << 20})
    nodes.add_node(num_cpus=3, object_store_memory=100 << 20)
    ray.init(address=nodes.address, include_dashboard=False, logging_level="ERROR")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Recording, defined here, runs on the nodes
    yield nodes
    ray.shutdown()
    nodes.shutdown()


def test_the_pool_is_sized_node_by_node(cluster):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    assert plan(None, 1) == (4, {"num_cpus": 1}, "cpu")
    assert plan(None, 2) == (1, {"num_cpus": 2}, "cpu")  # 4 CPUs in all, yet room for one actor of 2
    assert plan(2, 1) == (2, {"num_cpus": 1}, "cpu")
    with pytest.raises(UserError, match=r"^--ray-actors 2 x --ray-cpus 2: the nodes of the Ray cluster \(1 CPU, "
                                        r"3 CPUs\) hold 1 such actor "):
        plan(2, 2)
    with pytest.raises(UserError, match="hold 0 such actors"):
        plan(None, 4)


def test_both_actors_encode_a_one_shard_corpus_and_the_index_equals_a_local_build(cluster, tmp_path, monkeypatch):
    with open(os.path.join(FIXTURES, "tiny-en.jsonl"), encoding="utf-8") as f:
        passages = [json.loads(line) for line in f]
    corpus = tmp_path / "twelve.jsonl"  # 12 passages: one shard of the default 8,192
    corpus.write_text("".join(json.dumps({**p, "id": f"{p['id']}-{k}"}) + "\n" for k in "ab" for p in passages))
    log = tmp_path / "pieces.log"
    encode = ray_encoder(actors=2, batch=2, env={"QA_BASELINE_TEST_LOG": str(log)}, actor=Recording)
    folder = build_dense(corpus_config(str(corpus)), "minilm-onnx", root=str(tmp_path / "ray"), encode=encode)
    pieces_done = [line.split() for line in log.read_text().splitlines()]
    assert sorted(int(n) for _, n in pieces_done) == [2] * 6  # 12 passages, batches of 2, 2 actors: 6 pieces
    assert len({pid for pid, _ in pieces_done}) == 2  # both actors worked
    monkeypatch.setenv("QA_BASELINE_THREADS", "1")  # as the actors run
    monkeypatch.setattr(Encoder, "batch_size", 2)
    local = build_dense(corpus_config(str(corpus)), "minilm-onnx", root=str(tmp_path / "local"))
    for name in ("docids.jsonl", "shards/00000.jsonl", "shards/00000.npy"):
        assert open(os.path.join(folder, name), "rb").read() == open(os.path.join(local, name), "rb").read()
