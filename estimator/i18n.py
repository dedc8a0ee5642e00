"""The project's one text system: Fluent messages in Russian and English, with CLDR plural forms.

Every package's texts are in `estimator/locales/<lang>/*.ftl` and are read by this one
Translator: the bot's replies, the estimator's answers (the CLI words them identically) and
the /watch describer. It sits in the estimator because that is the one package every other
may import (the estimator imports nothing of ours).

Every string argument is HTML-escaped here, once, so a caller cannot forget to escape a user's
or a provider's text. Markup that is already safe is passed as `Html`.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Literal

from fluent.runtime import FluentBundle, FluentResource

logger = logging.getLogger(__name__)

Language = Literal["ru", "en"]
LANGUAGES: tuple[Language, ...] = ("ru", "en")
FALLBACK_LANGUAGE: Language = "en"

FluentArg = str | int | float | Decimal | date | datetime


class Html(str):
    """A string that is already valid Telegram HTML and must not be escaped again."""

    __slots__ = ()


class Translator:
    """Formats messages for one language, falling back to another for missing keys."""

    def __init__(
        self, language: Language, bundle: FluentBundle, fallback: Translator | None = None
    ) -> None:
        self.language = language
        self._bundle = bundle
        self._fallback = fallback

    def __call__(self, key: str, /, **args: FluentArg) -> str:
        if not self._bundle.has_message(key):
            if self._fallback is not None:
                return self._fallback(key, **args)
            logger.error("missing text %r", key)
            return key
        message = self._bundle.get_message(key)
        if message.value is None:
            logger.error("text %r has no value", key)
            return key
        # Numbers stay numbers so that Fluent picks the plural form («32 слоя», «2 слоя»).
        prepared = _escaped(args)
        if self.language == "ru":
            prepared = {name: _decimal_comma(value) for name, value in prepared.items()}
        text, errors = self._bundle.format_pattern(message.value, prepared)
        for error in errors:
            logger.error("text %r (%s): %s", key, self.language, error)
        return str(text)

    def has(self, key: str) -> bool:
        return self._bundle.has_message(key)


# A number written for the reader ("18.7", "7.4–14.6", "4.27e+11"), alone or with its unit
# ("167.8 МБ", size_text): digits, points, dashes, an exponent, then at most one unit word.
_WRITTEN_NUMBER = re.compile(r"-?\d+\.\d+(?:e[+-]\d+)?(?:\s?[–-]\s?-?\d+\.\d+)?(?:\s[^\d\s]+)?")
_POINT = re.compile(r"(?<=\d)\.(?=\d)")


def _decimal_comma(value: FluentArg) -> FluentArg:
    """Russian writes a decimal comma (18,7 ГиБ), as the bot's ₽ amounts already do: a number
    the code wrote as text ("18.7", gib() and friends) gets one, whoever formatted it."""
    if isinstance(value, str) and not isinstance(value, Html) and _WRITTEN_NUMBER.fullmatch(value):
        return _POINT.sub(",", value)
    return value


# Unicode's bidirectional controls (embeddings, overrides, isolates and the marks): echoed
# inside a reply, a user's «\u202e» would turn the rest of the line around.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(args: Mapping[str, FluentArg]) -> dict[str, FluentArg]:
    return {
        name: (
            value
            if isinstance(value, Html) or not isinstance(value, str)
            else html.escape(_BIDI_CONTROLS.sub("", value), quote=False)
        )
        for name, value in args.items()
    }


def read_locale_source(language: Language) -> str:
    folder = resources.files("estimator").joinpath("locales", language)
    return "\n".join(
        entry.read_text("utf-8")
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".ftl")
    )


@cache
def translators() -> Mapping[Language, Translator]:
    """One Translator per supported language, built once: every package shares them."""
    bundles: dict[Language, FluentBundle] = {}
    for language in LANGUAGES:
        # use_isolating=False: Telegram would show the bidi isolation marks as junk.
        bundle = FluentBundle([language], use_isolating=False)
        bundle.add_resource(FluentResource(read_locale_source(language)))
        bundles[language] = bundle
    fallback = Translator(FALLBACK_LANGUAGE, bundles[FALLBACK_LANGUAGE])
    return {
        language: fallback
        if language == FALLBACK_LANGUAGE
        else Translator(language, bundle, fallback)
        for language, bundle in bundles.items()
    }


def translator(language: str) -> Translator:
    """The Translator for `language`; an unsupported one reads English."""
    shared = translators()
    return next(
        (shared[known] for known in LANGUAGES if known == language), shared[FALLBACK_LANGUAGE]
    )
