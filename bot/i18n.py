"""Fluent texts in Russian and English, with CLDR plural forms.

Every string argument is HTML-escaped here, once, so a handler cannot forget to escape a user's
or a provider's text. Markup that is already safe is passed as `Html`.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from importlib import resources

from fluent.runtime import FluentBundle, FluentResource

from monitor.users import LANGUAGES, Language

logger = logging.getLogger(__name__)

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
        text, errors = self._bundle.format_pattern(message.value, _escaped(args))
        for error in errors:
            logger.error("text %r (%s): %s", key, self.language, error)
        return str(text)

    def has(self, key: str) -> bool:
        return self._bundle.has_message(key)


def _escaped(args: Mapping[str, FluentArg]) -> dict[str, FluentArg]:
    return {
        name: (
            value
            if isinstance(value, Html) or not isinstance(value, str)
            else html.escape(value, quote=False)
        )
        for name, value in args.items()
    }


def read_locale_source(language: Language) -> str:
    folder = resources.files("bot").joinpath("locales", language)
    return "\n".join(
        entry.read_text("utf-8")
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".ftl")
    )


def load_translators(fallback_language: Language = "en") -> dict[Language, Translator]:
    """Build one Translator per supported language from `bot/locales/<lang>/*.ftl`."""
    bundles: dict[Language, FluentBundle] = {}
    for language in LANGUAGES:
        # use_isolating=False: Telegram would show the bidi isolation marks as junk.
        bundle = FluentBundle([language], use_isolating=False)
        bundle.add_resource(FluentResource(read_locale_source(language)))
        bundles[language] = bundle
    fallback = Translator(fallback_language, bundles[fallback_language])
    return {
        language: fallback
        if language == fallback_language
        else Translator(language, bundle, fallback)
        for language, bundle in bundles.items()
    }
