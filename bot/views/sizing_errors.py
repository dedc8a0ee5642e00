"""Why a sizing question could not be read, in the user's language: /fit, its follow-ups,
a pasted config and the Mini App's calculator say it the same way."""

from __future__ import annotations

from estimator.gpus import closest
from estimator.i18n import Translator
from estimator.parse import QueryError
from estimator.parsing.text import read_method


def unknown_gpu_text(i18n: Translator, name: str) -> str:
    """A card the catalog does not know, as written, with the one card it is a near miss of."""
    near = closest(name)
    if near is not None:
        return i18n("clarify-gpu-suggest", value=name[:40], near=near)
    return i18n("clarify-gpu-unknown", value=name[:40])


def error_text(i18n: Translator, error: QueryError, asked: str = "") -> str:
    """The error in the user's language: what was wrong and what is allowed. Its example
    keeps the method the user `asked` for (or names none), never swaps in another."""
    method, ruled_out = read_method(asked)
    example = " ".join(
        ["13b", method.value] if method else ["13b", *(f"no-{m.value}" for m in ruled_out)]
    )
    if error.code == "unknown_gpu" and error.value and closest(error.value) is not None:
        return unknown_gpu_text(i18n, error.value)
    key = f"fitb-error-{error.code}"
    if error.code == "unknown_key" and error.value:
        key = "fitb-error-unknown_key-near"
    if not i18n.has(key):
        key = "fit-not-understood"
    return i18n(
        key,
        key=error.key or "",
        value=(error.value or "")[:40],
        allowed=", ".join(error.allowed)[:300],
        example=example,
    )
