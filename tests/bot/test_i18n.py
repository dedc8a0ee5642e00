import re
from pathlib import Path

from fluent.syntax import FluentParser, ast

from bot.fake_telegram.html import parse_telegram_html
from bot.i18n import Html, load_translators, read_locale_source
from monitor.users import Language

BOT_DIR = Path(__file__).resolve().parents[2] / "bot"


def message_ids(language: Language) -> set[str]:
    resource = FluentParser().parse(read_locale_source(language))
    junk = [entry for entry in resource.body if isinstance(entry, ast.Junk)]
    assert not junk, f"{language}: unparsable Fluent: {junk[0].content!r}"
    return {entry.id.name for entry in resource.body if isinstance(entry, ast.Message)}


def test_both_languages_have_the_same_keys():
    assert message_ids("ru") == message_ids("en")


def test_every_literal_key_used_in_code_exists():
    used = set()
    for path in BOT_DIR.rglob("*.py"):
        used |= set(re.findall(r"""i18n\(\s*["']([a-z0-9-]+)["']""", path.read_text()))
    assert used, "the scan found no keys: the pattern is broken"
    missing = used - message_ids("ru")
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
    translators = load_translators()
    for language, translator in translators.items():
        for key in message_ids(language):
            text = translator(key, **sample)
            assert text != key
            parse_telegram_html(text)  # raises on a tag Telegram would reject


def test_string_arguments_are_escaped_and_html_is_trusted():
    ru = load_translators()["ru"]
    assert "&lt;Вася &amp; co&gt;" in ru("start-greeting", name="<Вася & co>")
    assert "<i>x</i>" in ru("prices-per-gpu", price=Html("<i>x</i>"))


def test_missing_key_falls_back_to_english_then_to_the_key(caplog):
    translators = load_translators()
    assert translators["ru"]("no-such-key") == "no-such-key"
    assert "no-such-key" in caplog.text
