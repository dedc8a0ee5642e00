"""estimator.i18n: the one text system, every package's messages in both languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fluent.syntax import FluentParser, FluentSerializer, ast

from bot.fake_telegram.html import parse_telegram_html
from estimator.i18n import Html, Language, _decimal_comma, read_locale_source, translators

ROOT = Path(__file__).resolve().parents[2]
# A literal key, as the bot's handlers (`i18n("key")`) and the estimator's renderers
# (`translator(language)("key")`) pass it.
_LITERAL_KEY = re.compile(r"""(?:\bi18n|\btranslator\(\w+\))\(\s*["']([a-z0-9_-]+)["']""")


def message_ids(language: Language) -> set[str]:
    resource = FluentParser().parse(read_locale_source(language))
    junk = [entry for entry in resource.body if isinstance(entry, ast.Junk)]
    assert not junk, f"{language}: unparsable Fluent: {junk[0].content!r}"
    return {entry.id.name for entry in resource.body if isinstance(entry, ast.Message)}


def test_both_languages_have_the_same_keys():
    assert message_ids("ru") == message_ids("en")


def test_every_literal_key_used_in_code_exists():
    used: dict[str, set[str]] = {}
    for package in ("bot", "monitor", "estimator"):
        for path in (ROOT / package).rglob("*.py"):
            used[package] = used.get(package, set()) | set(
                _LITERAL_KEY.findall(path.read_text("utf-8"))
            )
    assert all(used.values()), f"the scan found no keys in some package: {used}"
    every = set().union(*used.values())
    missing = every - message_ids("ru")
    assert not missing


def test_every_text_is_valid_telegram_html_in_both_languages():
    sample = {
        "name": "<Вася & co>",
        "feature": "x",
        "command": "/x",
        "value": "<b>",
        "language": "ru",
        "timezone": "UTC",
        "offset": "+0",
        "local_time": "12:00",
        "window": "23:00–08:00",
    }
    shared = translators()
    for language, translator in shared.items():
        for key in message_ids(language):
            text = translator(key, **sample)
            assert text != key
            parse_telegram_html(text)  # raises on a tag Telegram would reject


def test_string_arguments_are_escaped_and_html_is_trusted():
    ru = translators()["ru"]
    assert "&lt;Вася &amp; co&gt;" in ru("start-greeting", name="<Вася & co>")
    assert "<i>x</i>" in ru("prices-per-gpu", price=Html("<i>x</i>"))


def test_a_users_bidirectional_controls_are_not_echoed():
    # U+202E RIGHT-TO-LEFT OVERRIDE and U+2066 LEFT-TO-RIGHT ISOLATE inside a name or a command.
    text = translators()["ru"]("start-greeting", name="Вася\u202e\u2066ypwen")
    assert "Васяypwen" in text
    assert not {"\u202e", "\u2066"} & set(text)


def test_missing_key_falls_back_to_english_then_to_the_key(caplog):
    shared = translators()
    assert shared["ru"]("no-such-key") == "no-such-key"
    assert "no-such-key" in caplog.text


def plural_messages(language: Language) -> dict[str, tuple[set[str], set[str]]]:
    """Message id -> (the variables it picks plural forms by, every variable it uses)."""
    resource = FluentParser().parse(read_locale_source(language))
    found: dict[str, tuple[set[str], set[str]]] = {}
    for entry in resource.body:
        if not isinstance(entry, ast.Message) or entry.value is None:
            continue
        source = FluentSerializer().serialize_entry(entry)
        selectors = set(re.findall(r"\{\s*\$(\w+)\s*->", source))
        if selectors:
            found[entry.id.name] = (selectors, set(re.findall(r"\$(\w+)", source)))
    return found


def test_every_plural_renders_for_every_russian_form(caplog: pytest.LogCaptureFixture):
    shared = translators()
    assert len(plural_messages("ru")) >= 15  # the scan works
    for language, translator in shared.items():
        for key, (selectors, variables) in plural_messages(language).items():
            for number in (0, 1, 2, 5, 11, 21, 22, 25, 101):
                values: dict[str, str | int] = dict.fromkeys(variables, "x")
                values.update(dict.fromkeys(selectors, number))
                translator(key, **values)
    assert "text " not in caplog.text  # no Fluent formatting error was logged


@pytest.mark.parametrize(
    ("key", "count", "expected"),
    [
        ("prices-footer-all", 1, "1 предложение"),
        ("prices-footer-all", 3, "3 предложения"),
        ("prices-footer-all", 11, "11 предложений"),
        ("prices-footer-all", 21, "21 предложение"),
        ("watch-matches-now", 2, "Уже подходит сейчас: 2 предложения"),
        ("watch-matches-now", 5, "Уже подходит сейчас: 5 предложений"),
        ("settings-muted", 1, "🔕 1 подписка молчит"),
        ("settings-muted", 3, "🔕 3 подписки молчат"),
        ("settings-muted", 12, "🔕 12 подписок молчат"),
        ("alert-title-quiet", 22, "Сводка за тихие часы</b>: 22 изменения"),
        ("alert-title-watch", 1, "<b>H100</b>: изменение по подписке"),
        ("alert-title-watch", 21, "<b>H100</b>: 21 изменение по подписке"),
        ("args-too-long", 41, "уложитесь в 41 символ."),
        ("watch-limit", 20, "Не больше 20 подписок."),
    ],
)
def test_russian_plural_forms(key: str, count: int, expected: str):
    ru = translators()["ru"]
    values: dict[str, str | int] = {
        "count": count,
        "limit": count,
        "total": count,
        "label": "H100",
        "until": "x",
    }
    assert expected in ru(key, **values)


def test_russian_texts_write_a_decimal_comma_in_numbers_and_only_there():
    assert _decimal_comma("18.7") == "18,7"
    assert _decimal_comma("7.4–14.6") == "7,4–14,6"
    assert _decimal_comma("-0.5") == "-0,5"
    assert _decimal_comma("167.8 МБ") == "167,8 МБ"  # a size with its unit (size_text)
    assert _decimal_comma("4.27e+11") == "4,27e+11"  # FLOP per token
    kept_too = ("Llama 3.1", "3.1 8B")
    for kept in ("Llama-3.1-8B", "ctx=4096", "4096", "v1.2.3", "3.1b", Html("<b>1.5</b>"), 2.5):
        assert _decimal_comma(kept) == kept
    for kept in kept_too:
        assert _decimal_comma(kept) == kept
    ru, en = translators()["ru"], translators()["en"]
    assert "18,7" in ru("fit-peak", peak="18.7")
    assert "18.7" in en("fit-peak", peak="18.7")
