"""Dense encoding on a Ray cluster (the optional `scale` extra): `python -m qa_baseline.index --corpus NAME
--dense ENCODER --ray [auto|ADDRESS]`. BM25 builds on Ray are in merge.py.

`ray_encoder(...)` returns a drop-in for dense.encode_shards, so a Ray build shares everything else with a
local one: the fingerprint, the `.partial` folder, the shard numbering (dense.corpus_shards), the shard files
(dense.write_shard), the faiss build and the manifest; a build interrupted on Ray resumes locally or on Ray
at the missing shards, and the result equals a local build (tests/unit/indexes/test_scale.py).
  1. Before any work: the encoder is loaded once on every node that can host an encoding actor (a Ray task
     pinned to the node); a node without the encoder's package or model, or whose encoder differs from this
     machine's (Encoder.decides), stops the build with one error line naming the node.
  2. The corpus is a Ray Dataset (CorpusSource): one read task on this machine's node (where the corpus files
     are) streams the shards still to encode, one row (and one block) per piece. A shard is one piece unless
     the corpus has fewer shards than twice the actors: then each shard is cut into pieces of whole encoder
     batches (piece_size), so that every actor gets work (5,114 passages are one shard of 8,192, and were
     one actor's work). A piece holds whole batches of the shard's own length-sorted order (pieces), so the
     actors run exactly the forward passes a local build runs: the vectors are the same to the bit.
  3. `map_batches` with an actor pool (ShardEncoder) encodes them, a piece per call, on whichever actor is
     least busy: each actor loads the encoder once; one GPU per actor when the cluster has GPUs
     (QA_BASELINE_DEVICE=cuda in the actor), else `cpus` CPUs per actor (as many threads); pool size `actors`
     (default: as many as the nodes hold, node by node: plan).
  4. This process puts each shard together from its pieces and writes it once complete (shards in any
     order); Ray restarts a killed actor and retries its piece (Ray Data's actor pools retry without limit),
     and a job killed outright resumes on the next run at the missing shards.
Nothing but the corpus files needs to be on this machine only: vectors come back through Ray's object store,
so the workers need no shared file system, just the same project and encoder installed (`make install`,
`pip install ".[scale]"`)."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypedDict

import numpy as np

from ..core.hints import requires

ray = requires("scale", "ray")  # the scale extra: Ray Data (and pyarrow)
import pyarrow as pa  # noqa: E402
from ray.data import ActorPoolStrategy, DataContext
from ray.data.block import BlockMetadata
from ray.data.datasource import Datasource, ReadTask
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
from tqdm import tqdm as _tqdm  # the type of core.progress.tqdm's bars

from ..core.config import CorpusConfig, known_encoders
from ..core.errors import Problems, UserError
from ..core.hints import plural
from ..core.process import environment
from ..core.progress import tqdm
from ..encoders import Encoder, load_encoder
from .dense import corpus_shards, passage_count, shard_done, write_shard
from .layout import passage_text

GPU_BATCH = 256  # texts per forward pass on a GPU (CPU actors use the encoder's own, as a local build does)


def connect(address: str = "auto") -> ModuleType:
    """Ray, connected: `auto` joins the cluster in RAY_ADDRESS or the one `ray start` runs on this machine, else
    starts a local one; any other ADDRESS (HOST:PORT, ray://HOST:PORT) joins that cluster."""
    import logging
    if not ray.is_initialized():
        try:
            ray.init(address=None if address == "auto" else address, logging_level=logging.ERROR,
                     include_dashboard=False)
        except (ConnectionError, ValueError, RuntimeError) as e:
            raise UserError(f"cannot connect to Ray at {address}: {str(e).splitlines()[0]} (start a cluster with "
                            "`ray start --head`, or give --ray auto to run on this machine)") from None
    logging.getLogger("ray.data").setLevel(logging.ERROR)  # our own progress line says what Ray Data would
    ctx = DataContext.get_current()
    ctx.enable_progress_bars = ctx.print_on_execution_start = ctx.enable_auto_log_stats = False
    return ray


def worker_env(device: str, threads: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment of the encoding actors and indexing tasks: this machine's qa_baseline, Hugging Face and
    Ray-signal settings (a task runs Anserini's JVM in the worker: qa_baseline/__init__.py), the device and the
    threads of each actor, then EXTRA."""
    keep = {k: v for k, v in os.environ.items() if k.startswith("QA_BASELINE_") or k.endswith("_OFFLINE")
            or k == "RAY_DISABLE_FAILURE_SIGNAL_HANDLER"}
    return {"HF_HUB_DISABLE_PROGRESS_BARS": "1", **keep, **environment(device, threads),  # no bar per actor
            **(extra or {})}


def capacity(nodes: list[dict[str, float]], cpus: int, gpu: bool) -> int:
    """How many actors of CPUS CPUs (and one GPU each when GPU) the NODES (their Resources) hold, node by node:
    an actor runs on one node, so a node of 3 CPUs holds one actor of 2 CPUs, not 1.5."""
    return sum(min(int(n.get("GPU", 0)), int(n.get("CPU", 0)) // cpus) if gpu else int(n.get("CPU", 0)) // cpus
               for n in nodes)


def plan(actors: int | None = None, cpus: int = 1) -> tuple[int, dict[str, int], str]:
    """(actors, resources per actor, device) on this cluster: one GPU (and CPUS CPUs) per actor when it has
    GPUs, else CPUS CPUs; by default as many actors as its nodes hold (capacity)."""
    if cpus < 1:
        raise UserError(f"--ray-cpus must be at least 1, not {cpus}")
    nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    gpu = any(n.get("GPU", 0) >= 1 for n in nodes)
    room = capacity(nodes, cpus, gpu)
    if room < (actors or 1) or (actors is not None and actors < 1):
        sizes = ", ".join(sorted(plural(int(n.get("CPU", 0)), "CPU") + (f" {plural(int(n.get('GPU', 0)), 'GPU')}"
                                                                          if gpu else "") for n in nodes))
        raise UserError(f"--ray-actors {actors or 1} x --ray-cpus {cpus}: the nodes of the Ray cluster ({sizes}) "
                        f"hold {room} such actor{'s' * (room != 1)} ({'one GPU and ' * gpu}{plural(cpus, 'CPU')} "
                        "each, on one node; fix: fewer actors or CPUs per actor)")
    if gpu:
        return actors or room, {"num_gpus": 1, "num_cpus": cpus}, "cuda"
    return actors or room, {"num_cpus": cpus}, "cpu"


def piece_size(passages: int, shard_size: int, actors: int, batch: int) -> int:
    """Passages per piece: a whole shard when the corpus has at least 2 x ACTORS shards; else the shards cut
    into pieces of whole encoder batches (of BATCH), as large as still makes at least 2 x ACTORS pieces in all
    when the corpus has as many batches (5,114 passages in one shard, 2 actors, batches of 32: 4 pieces of
    1,280)."""
    full, rest = divmod(passages, shard_size)
    if full + bool(rest) >= 2 * actors or passages < 1:
        return shard_size
    lengths = [shard_size] * full + [rest] * bool(rest)
    each = -(-2 * actors // len(lengths))  # pieces per shard
    size = -(-max(lengths) // each)
    for whole in range(-(-size // batch), 0, -1):  # batches per piece: the most that makes enough pieces
        piece = min(shard_size, whole * batch)
        if sum(-(-n // piece) for n in lengths) >= 2 * actors:
            return piece
    return min(shard_size, batch)


def pieces(texts: list[str], max_chars: int | None, size: int) -> list[list[int]]:
    """The positions in a shard of TEXTS of each piece of SIZE passages (a multiple of the batch), in the order
    Encoder.encode sorts a shard (longest first; the text cut at MAX_CHARS as the encoder cuts it; equal
    lengths in shard order): a piece is then whole batches of that order, which its actor sorts the same."""
    if size >= len(texts):
        return [list(range(len(texts)))]
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i][:max_chars]))
    return [order[start:start + size] for start in range(0, len(order), size)]


def encoder_source(encoder: Encoder) -> str:
    """What loads ENCODER on another machine: its config name, else its folder or model id."""
    return encoder.name if encoder.name in known_encoders() else encoder.cfg["model"]


Spec = dict[str, object]  # an encoder's Encoder.decides() or Encoder.spec()


def probe(source: str, lang: str) -> tuple[Spec, Spec] | str:
    """Load the encoder here (a Ray task on one node): (Encoder.decides, Encoder.spec), or the error line."""
    try:
        encoder = load_encoder(source, lang)
        return encoder.decides(), encoder.spec()
    except UserError as e:
        return str(e)


def first_line(e: BaseException) -> str:
    cause = getattr(e, "cause", None)
    return str(cause if cause is not None else e).strip().splitlines()[-1 if cause is None else 0]


def preflight(encoder: Encoder, lang: str, resources: dict[str, int], env: dict[str, str]) -> list[Spec]:
    """Load the encoder on every node that can host an actor, before any work; a UserError naming the node
    when one cannot load it or loads another model. Returns the nodes' encoder specs (Encoder.spec: with
    the engine's precision and versions there, e.g. fp16 on GPUs)."""
    kind = "GPU" if resources.get("num_gpus") else "CPU"
    need = resources.get("num_gpus") or resources["num_cpus"]
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(kind, 0) >= need]
    if not nodes:
        raise UserError(f"no node of the Ray cluster has {need} {kind}{'s' * (need > 1)} for one encoding actor "
                        "(lower --ray-cpus)")
    task = ray.remote(probe)
    refs = {n["NodeManagerAddress"] + f" ({n['NodeID'][:8]})" * (len(nodes) > 1): task.options(
        **resources, max_retries=0, runtime_env={"env_vars": env},
        scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(encoder_source(encoder), lang)
        for n in nodes}  # by address and id: nodes may share an address (several on one machine)
    expected = encoder.decides()
    specs: list[Spec] = []
    for node, ref in refs.items():
        try:
            result: tuple[Spec, Spec] | str = ray.get(ref)
        except ray.exceptions.RayError as e:
            raise UserError(f"Ray node {node}: cannot load encoder {encoder.name}: {first_line(e)} (install the "
                            "project on every node: make install; pip install '.[scale]')") from None
        if isinstance(result, str):
            raise UserError(f"Ray node {node}: {result}")
        decides, spec = result
        if decides != expected:
            differ = sorted(k for k in {*expected, *decides} if expected.get(k) != decides.get(k))
            raise UserError(f"Ray node {node}: encoder {encoder.name} differs from this machine's ({', '.join(differ)}); "
                            "install the same model and packages on every node")
        specs.append(spec)
    return specs


class Counts(TypedDict):
    """What the read task counted: passages, shards, bad records skipped and the first of them."""
    passages: int
    shards: int
    skipped: int
    examples: list[str]


class Tally:
    """A Ray actor that keeps what the read task counted for the driver."""

    def __init__(self) -> None:
        self.counts: Counts | None = None

    def put(self, counts: Counts) -> None:
        self.counts = counts

    def get(self) -> Counts | None:
        return self.counts


class CorpusSource(Datasource):
    """The corpus as a Ray Dataset: one read task, on the driver's node (where the corpus files are), reads it
    with the local reader (same passages, numbering and bad-record policy as a local build) and yields one
    row per piece (PIECE passages: piece_size, pieces) of each shard still to encode: shard, size (its
    passages), pos (the piece's positions in it), ids, titles, texts (passage_text), the last four as lists."""

    def __init__(self, cfg: CorpusConfig, shard_size: int, done: set[int], policy: str, tally: Any,
                 piece: int | None = None, max_chars: int | None = None) -> None:
        super().__init__()
        self.cfg, self.shard_size, self.done, self.policy, self.tally = cfg, shard_size, done, policy, tally
        self.piece, self.max_chars = piece or shard_size, max_chars

    @property
    def supports_distributed_reads(self) -> bool:
        return False  # read on the driver's node

    def estimate_inmemory_data_size(self) -> int | None:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                       data_context: DataContext | None = None) -> list[ReadTask]:
        meta = BlockMetadata(num_rows=None, size_bytes=None, input_files=None, exec_stats=None)
        return [ReadTask(self.read, meta, per_task_row_limit=per_task_row_limit)]

    def read(self) -> Iterator[pa.Table]:
        problems = Problems(self.policy)
        passages = shards = 0
        for shard, batch in corpus_shards(self.cfg, self.shard_size, problems):
            passages, shards = passages + len(batch), shards + 1
            if shard not in self.done:
                texts = [passage_text(p, self.cfg) for p in batch]
                for pos in pieces(texts, self.max_chars, self.piece):
                    yield pa.table({"shard": [shard], "size": [len(batch)], "pos": [pos],
                                    "ids": [[batch[i]["id"] for i in pos]], "titles": [[batch[i]["title"] for i in pos]],
                                    "texts": [[texts[i] for i in pos]]})
        ray.get(self.tally.put.remote(Counts(passages=passages, shards=shards, skipped=problems.count,
                                             examples=problems.examples)))


class ShardEncoder:
    """The map_batches actor: loads the encoder once, then encodes the pieces of each batch (one row per
    piece of a shard: CorpusSource), each with Encoder.encode as a local build encodes its shard; returns
    shard, size, pos, ids, titles and the float32 vectors as bytes."""

    def __init__(self, source: str, lang: str, batch_size: int | None = None) -> None:
        self.encoder = load_encoder(source, lang)
        self.batch_size = batch_size

    def __call__(self, batch: pa.Table) -> pa.Table:
        vectors = [self.encoder.encode(texts, batch_size=self.batch_size).tobytes()
                   for texts in batch["texts"].to_pylist()]
        return pa.table({"shard": batch["shard"], "size": batch["size"], "pos": batch["pos"], "ids": batch["ids"],
                         "titles": batch["titles"], "vectors": pa.array(vectors, type=pa.large_binary())})


@dataclass
class Part:
    """A shard being put together: its ids, titles and vectors so far, the pieces seen (by their first
    position) and the passages left."""
    ids: list[str]
    titles: list[str]
    vectors: np.ndarray
    left: int
    seen: set[int] = field(default_factory=set)


class Shards:
    """The driver's side: puts each shard together from its pieces (rows of ShardEncoder) and writes it to
    FOLDER once complete; a piece that comes twice (a retried one) counts once."""

    def __init__(self, folder: str, bar: _tqdm) -> None:
        self.folder, self.bar = folder, bar
        self.open: dict[int, Part] = {}

    def add(self, row: dict[str, Any]) -> None:
        shard, pos, size = row["shard"], row["pos"], row["size"]
        if shard_done(self.folder, shard):
            return
        vectors = np.frombuffer(row["vectors"], dtype=np.float32).reshape(len(pos), -1)
        part = self.open.setdefault(shard, Part([""] * size, [""] * size, np.zeros((size, vectors.shape[1]),
                                                                                   np.float32), size))
        if pos[0] in part.seen:
            return
        part.seen.add(pos[0])
        part.vectors[pos] = vectors
        for i, doc, title in zip(pos, row["ids"], row["titles"]):
            part.ids[i], part.titles[i] = doc, title
        part.left -= len(pos)
        self.bar.update(len(pos))
        if not part.left:
            del self.open[shard]
            write_shard(self.folder, shard, [{"id": i, "title": t} for i, t in zip(part.ids, part.titles)],
                        part.vectors)


def ray_error(e: BaseException | None) -> UserError | None:
    """A UserError raised on a worker (a bad corpus record), found inside Ray's wrappers; else None."""
    seen: set[int] = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, UserError) and not isinstance(e, ray.exceptions.RayError):
            return UserError(str(e))
        e = getattr(e, "cause", None) or e.__cause__ or e.__context__
    return None


def ray_encoder(address: str = "auto", actors: int | None = None, cpus: int = 1, env: dict[str, str] | None = None,
                actor: type = ShardEncoder, batch: int | None = None) -> Callable[..., int]:
    """A drop-in for dense.encode_shards that encodes on Ray (see the module's docstring). ADDRESS: the
    cluster (connect); ACTORS: pool size; CPUS: CPUs (threads) per CPU actor; ENV: more environment for the
    workers; ACTOR: the map_batches class (ShardEncoder); BATCH: texts per forward pass (default: the
    encoder's own on CPUs, as a local build, GPU_BATCH on GPUs)."""

    def encode(cfg: CorpusConfig, encoder: Encoder, folder: str, shard_size: int, problems: Problems,
               progress: bool = True) -> int:
        connect(address)
        size, resources, device = plan(actors, cpus)
        env_vars = worker_env(device, cpus, env)
        specs = preflight(encoder, cfg.lang, resources, env_vars)
        nodes = len(specs)
        if specs and specs[0] != encoder.spec():  # the manifest names the engine that made the vectors
            encoder.spec = lambda: specs[0]  # type: ignore[method-assign]
        os.makedirs(os.path.join(folder, "shards"), exist_ok=True)
        done = {int(f[:-len(".npy")]) for f in os.listdir(os.path.join(folder, "shards")) if f.endswith(".npy")}
        total = passage_count(cfg, folder)
        per_pass = batch or (GPU_BATCH if device == "cuda" else encoder.batch_size)
        piece = piece_size(total, shard_size, size, per_pass)
        print(f"Ray: encoding with {size} {device.upper()} actor{'s' * (size > 1)} on {nodes} node"
              f"{'s' * (nodes > 1)} ({resources}), pieces of {piece:,} passages; {plural(len(done), 'shard')} "
              "already done", file=sys.stderr)
        tally: Any = ray.remote(num_cpus=0)(Tally).remote()
        # a block per piece: Ray Data would otherwise pack the read's rows into blocks of up to 128 MB, and a
        # block goes to one actor; then a piece per call (batch_size=1 row), on whichever actor is least busy
        DataContext.get_current().target_max_block_size = 1
        # the first piece goes out once every actor has loaded its encoder: else the first actor ready takes
        # the first pieces (up to 4 in flight each) while the others load, and the last ones may find no work
        DataContext.get_current().wait_for_min_actors_s = 3600
        source = CorpusSource(cfg, shard_size, done, problems.policy, tally, piece,
                              int(encoder.cfg.get("max_chars") or 0) or None)  # as Encoder.encode cuts texts
        ds = ray.data.read_datasource(source, num_cpus=0).map_batches(
            actor, fn_constructor_args=(encoder_source(encoder), cfg.lang, per_pass), batch_size=1,
            batch_format="pyarrow", compute=ActorPoolStrategy(size=size), runtime_env={"env_vars": env_vars},
            **resources)
        bar = tqdm(total=total, desc=f"encoding {cfg.name} ({encoder.name}, Ray)",
                   unit=" passages", disable=not progress or None, mininterval=1.0)
        shards = Shards(folder, bar)
        try:
            for rows in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
                for row in rows.to_pylist():
                    shards.add(row)
        except Exception as e:
            raise ray_error(e) or e
        finally:
            bar.close()
        counts = ray.get(tally.get.remote())
        problems.count, problems.examples = counts["skipped"], counts["examples"]
        missing = [s for s in range(counts["shards"]) if not shard_done(folder, s)]
        if missing:
            raise UserError(f"Ray finished without shards {', '.join(map(str, missing[:10]))} of {folder} (fix: run "
                            "the same command again to encode the missing shards)")
        return counts["passages"]

    return encode
