"""qa_baseline: retrieval question-answering baselines for shared tasks."""
import os

__version__ = "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# oneDNN caches one compiled kernel per input shape (up to 1,024): encoding batches of every length grew peak
# memory by ~100 MB over 16k passages; without the cache it stays flat at the same speed (bench/dense_encode.py)
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")
# onnxruntime (the cross-encoder and ONNX encoders) sends telemetry from a native thread (DNS lookups of
# mobile.events.data.microsoft.com) and keeps events and a device id under ~/.cache/Microsoft unless this is
# set before it loads; nothing here may use the network at run time (tests/system/test_reliability.py)
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# Anserini's JVM runs inside this process (pyjnius) and in Ray's workers: HotSpot uses SIGSEGV for its own
# control flow (implicit null checks, safepoints), and Ray's failure-signal handler, installed by ray.init after
# the JVM started, takes such a signal for a crash and kills the process (ray-project/ray#36415; seen here in
# the tests: JVM first, Ray second, a merge of Lucene indexes segfaulted). Read by Ray when it is imported.
os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")
