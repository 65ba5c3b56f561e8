"""How KB names and questions are compared: one normalisation, its qualifier-free variant, its sound.

normalise(text): Unicode NFKC, case folding, all whitespace removed, and the characters that names are
written with or without dropped: book-title marks 《》〈〉<>, quotes "'“”‘’「」『』 and middle dots ·・•
(`史蒂芬·霍金` = `史蒂芬霍金`). Questions and names go through the same function, so a name matches the
question wherever its normalised form is a substring of the normalised question.
base_name(key): a normalised subject name without a trailing qualifier in brackets (NFKC turns `（…）`
into `(…)`): `高等数学(第二版)` -> `高等数学`; a name that is all qualifier keeps it.
sound(key): the toneless pinyin of every Han character (its most common reading, from pypinyin's
dictionary), other characters kept: `陈军` and `陈俊` both sound `chen jun `. Only keys with two or more Han
characters have a sound (one syllable matches too much)."""
from __future__ import annotations

import functools
import re
import unicodedata

from ..core.hints import requires

DROPPED = "《》〈〉<>\"'“”‘’「」『』·・•"
_DROP = str.maketrans("", "", DROPPED)
_QUALIFIER = re.compile(r"\([^()]*\)$")


def normalise(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().translate(_DROP).split())


def base_name(key: str) -> str:
    base = _QUALIFIER.sub("", key)
    return base if base and base != key else key


def _toneless(reading):
    return "".join(c for c in unicodedata.normalize("NFD", reading) if not unicodedata.combining(c))


@functools.cache
def _sound_table() -> dict[int, str]:
    """Han character -> its toneless pinyin and a space; pypinyin (the kbqa extra) loads on the first use."""
    pinyin_dict = requires("kbqa", "pypinyin.pinyin_dict").pinyin_dict
    return {code: _toneless(readings.split(",")[0]) + " " for code, readings in pinyin_dict.items()}


def sound(key: str) -> str | None:
    """The key's pinyin, or None when it has fewer than two Han characters."""
    spoken = key.translate(_sound_table())
    return spoken if spoken.count(" ") >= 2 else None
