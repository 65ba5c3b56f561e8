"""Process settings that every engine of a run reads (encoders, faiss, the run's row), from the environment:
QA_BASELINE_THREADS (threads of encoders and faiss; default: the machine's cores) and QA_BASELINE_DEVICE
(where encoders run: cpu, cuda, cuda:N; default cpu). Ray's encoding actors get theirs through `environment`;
`fewer_collections`, the garbage collector's pace for steps that build millions of small objects; and
`deferred_interrupt`, Ctrl-C while native calls run on worker threads."""
import gc
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

THREADS, DEVICE = "QA_BASELINE_THREADS", "QA_BASELINE_DEVICE"


def threads() -> int:
    """Threads of encoders and faiss: QA_BASELINE_THREADS, else the machine's cores."""
    return int(os.environ.get(THREADS) or os.cpu_count() or 1)


def device() -> str:
    """Where encoders run: QA_BASELINE_DEVICE (cpu, cuda, cuda:N), default cpu."""
    return os.environ.get(DEVICE) or "cpu"


def environment(device: str, threads: int) -> dict[str, str]:
    """The environment variables that give a child process (a Ray actor) DEVICE and THREADS."""
    return {DEVICE: device, THREADS: str(threads)}


COLLECT_EVERY = (50_000, 50, 100)  # gc thresholds in fewer_collections (Python's default: 700, 10, 10)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the cyclic garbage collector started 70 times less often (COLLECT_EVERY), then
    restore its thresholds. Candidate extraction makes ~1,000 feature dicts per question and keeps what it
    finds: with the default thresholds the collections that walk the objects kept so far took half of a
    qac-1 run at 20 passages with a filled parse store (30 s against 16 s, the same peak RSS: these objects
    hold no cycles, so collecting later frees nothing later)."""
    before = gc.get_threshold()
    gc.set_threshold(*COLLECT_EVERY)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def deferred_interrupt() -> Iterator[threading.Event]:
    """Run the block with Ctrl-C (SIGINT) deferred: it sets the event yielded (the block's workers check it and
    start nothing more) and KeyboardInterrupt is raised when the block has ended. Raised at once, it lands
    wherever the main thread is, also between taking a lock of concurrent.futures and the `with` that releases
    it: the pool's workers then wait for that lock forever (the cross-encoder hung after one Ctrl-C), or the
    interpreter exits while native calls still run on worker threads, whose return into a finalising
    interpreter aborts the process ("terminate called without an active exception"). Outside the main thread
    (the only one that handles signals), or where SIGINT is ignored, the block runs as it is."""
    stop = threading.Event()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield stop
        return
    signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)
    if stop.is_set():
        raise KeyboardInterrupt
