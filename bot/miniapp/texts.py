"""The Mini App's texts: the bot's own Fluent files (estimator/locales/<lang>/miniapp.ftl),
sent as they are for the app to format (@fluent/bundle, with the same plural rules).

The app fetches them once (/app/texts.json) in every language, before it knows whose it is:
the language is in the initData, which only the page sees (Telegram hands it over in the
URL's fragment), or the user's stored setting, which /app/api/me tells.
"""

from __future__ import annotations

from importlib import resources

from estimator.i18n import LANGUAGES

FILE = "miniapp.ftl"


def app_texts() -> dict[str, str]:
    """{language: the Fluent source of its miniapp.ftl}."""
    folder = resources.files("estimator").joinpath("locales")
    return {language: folder.joinpath(language, FILE).read_text("utf-8") for language in LANGUAGES}
