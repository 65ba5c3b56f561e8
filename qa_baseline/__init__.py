"""qa_baseline: retrieval question-answering baselines for shared tasks."""
import os

__version__ = "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
