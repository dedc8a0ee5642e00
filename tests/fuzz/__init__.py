"""Fuzz tests: parsers fed arbitrary input never crash, replies stay valid HTML.

Example counts are sized so `pytest tests/fuzz` stays well under 30 s on two cores. Set
`HYPOTHESIS_PROFILE=deep` for a ten times longer run (see conftest.py).
"""

from __future__ import annotations

import os

from hypothesis import settings

from bot.fake_telegram.html import parse_telegram_html, utf16_len

TELEGRAM_TEXT_LIMIT = 4096  # UTF-16 code units of the text left after entity parsing
DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"


def fuzz(max_examples: int) -> settings:
    """Settings for one fuzz test: `max_examples` (×10 in the deep profile).

    deadline=None: the first example of a test pays for loading the GPU and model catalogs
    and the Fluent bundles (cached afterwards), and this shared two-core machine has noisy
    timing; a per-example deadline would only report that noise as a flaky failure.
    """
    return settings(max_examples=max_examples * (10 if DEEP else 1), deadline=None)


def assert_telegram_html(message: str) -> str:
    """`message` is accepted by Telegram's HTML parse mode and fits one message."""
    plain = parse_telegram_html(message)
    assert plain.strip(), f"empty message: {message!r}"
    assert 1 <= utf16_len(plain) <= TELEGRAM_TEXT_LIMIT, f"{utf16_len(plain)} UTF-16 units"
    return plain
