"""Process settings that every engine of a run reads (encoders, faiss, the run's row), from the environment:
QA_BASELINE_THREADS (threads of encoders and faiss; default: the machine's cores) and QA_BASELINE_DEVICE
(where encoders run: cpu, cuda, cuda:N; default cpu). Ray's encoding actors get theirs through `environment`."""
import os

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
