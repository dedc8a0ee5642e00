"""Which language to answer a message in, when the message itself may not say.

`language_of` reads Cyrillic as Russian and anything else as English, so «?», «👍», «550» or a
bare `dataset=20k` from a Russian user were answered in English. Here only words decide:
Cyrillic is Russian, an English word is English, and a text with no words — no letters, or
only the bot's own vocabulary (key=value pairs, GPU, model and method names, sizes) — is
answered in the language the caller falls back on (the user's setting, or the language of
the conversation it continues).
"""

from __future__ import annotations

import re

from estimator import gpus
from estimator.models import find_model_in_text
from estimator.parsing.patterns import SIZE, compiled, language_of
from estimator.parsing.words import COMMAND_METHOD_WORDS

_PAIR = re.compile(r"\S+\s*=\s*\S*")
# Two-letter runs are units and keys ("gb", "bs", "8k"), not English.
_WORD = re.compile(r"[a-z]{3,}", re.IGNORECASE)


def reply_language(text: str, fallback: str) -> str:
    """ "ru" for Cyrillic, "en" for an English word, else `fallback`."""
    if language_of(text) == "ru":
        return "ru"
    rest = _PAIR.sub(" ", text)
    for _label, start, end in reversed(gpus.find_in_text(rest)):
        rest = rest[:start] + " " + rest[end:]
    found = find_model_in_text(rest)
    if found is not None:
        _model, start, end = found
        rest = rest[:start] + " " + rest[end:]
    rest = compiled(SIZE).sub(" ", rest)
    words = [word for word in _WORD.findall(rest) if word.lower() not in COMMAND_METHOD_WORDS]
    return "en" if words else fallback
