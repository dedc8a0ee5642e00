"""The estimator's own texts (Russian and English Fluent files), so the CLI and the bot word
answers identically. Plain-string arguments are HTML-escaped; `Markup` passes through."""

from __future__ import annotations

import html
from functools import cache
from importlib import resources

from fluent.runtime import FluentBundle, FluentResource

LANGUAGES = ("ru", "en")


class Markup(str):
    """Already-safe Telegram HTML."""

    __slots__ = ()


@cache
def _bundle(language: str) -> FluentBundle:
    folder = resources.files("estimator").joinpath("locales", language)
    source = "\n".join(
        entry.read_text("utf-8")
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".ftl")
    )
    bundle = FluentBundle([language], use_isolating=False)
    bundle.add_resource(FluentResource(source))
    return bundle


def text(language: str, key: str, **args: str | int | float) -> str:
    bundle = _bundle(language if language in LANGUAGES else "en")
    message = bundle.get_message(key)
    if message.value is None:  # pragma: no cover - every key has a value
        return key
    # Numbers stay numbers so that Fluent picks the plural form («32 слоя», «2 слоя»).
    safe = {
        name: value
        if isinstance(value, Markup) or not isinstance(value, str)
        else html.escape(value, quote=False)
        for name, value in args.items()
    }
    formatted, errors = bundle.format_pattern(message.value, safe)
    if errors:
        raise KeyError(f"{key} ({language}): {errors[0]}")
    return str(formatted)


def has(language: str, key: str) -> bool:
    return _bundle(language).has_message(key)
