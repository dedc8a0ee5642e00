"""/start payloads through the real bot: a shared watch offers its button, a shared sizing is
answered, and a damaged, overlong or old link gets one short line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.deep_links import MAX_AGE, VERSION, WORDS_VERSION, LinkKind, encode_link
from estimator.fit_words import understand
from estimator.stated_codec import stated_text
from monitor.watch_codec import encode
from monitor.watch_words import parse_watch
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_watch import reply
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually


def link(kind: LinkKind, text: str, *, days_ago: int = 0, version: str = VERSION) -> str:
    today = datetime.now(UTC).date() - timedelta(days=days_ago)
    payload = encode_link(kind, text, today=today, version=version)
    assert payload is not None
    return payload


@pytest.mark.parametrize("version", [VERSION, WORDS_VERSION])
async def test_a_shared_watch_offers_to_subscribe_and_the_button_does(
    telegram: FakeTelegram, db_path: Path, version: str
):
    # Version 1: a link shared before the typed texts, carrying the /watch words.
    typed = encode(parse_watch("h100 max=650"))
    assert typed is not None
    value = typed if version == VERSION else "h100 max=650"
    async with running_app(telegram, db_path) as application:
        text = await reply(telegram, f"/start {link(LinkKind.WATCH, value, version=version)}")
        [button] = telegram.last_message(CHAT).buttons()
        assert "H100" in text
        assert "650" in text
        assert button.text.startswith("🔔 Следить")
        telegram.press(CHAT, button.text)

        async def subscribed() -> bool:
            return len(await application.store.subscriptions_of(CHAT)) == 1

        await eventually(subscribed)
        [watch] = await application.store.subscriptions_of(CHAT)
    assert watch.filter.max_rub_per_gpu_hour == 650


async def test_a_shared_sizing_is_answered_as_fit(telegram: FakeTelegram, db_path: Path):
    parsed = understand("13b qlora ctx=4096")
    assert parsed is not None
    typed = link(LinkKind.SIZING, stated_text(parsed))
    # A link shared before the typed texts carries the /fit command: it still opens.
    old = link(LinkKind.SIZING, "13b qlora ctx=4096", version=WORDS_VERSION)
    forged = link(LinkKind.SIZING, "~1s13,aqlora,mNoSuchModel")
    async with running_app(telegram, db_path):
        opened = await reply(telegram, f"/start {typed}")
        opened_old = await reply(telegram, f"/start {old}")
        refused = await reply(telegram, f"/start {forged}")
        asked = await reply(telegram, "/fit 13b qlora ctx=4096")
    assert opened == asked
    assert opened_old == asked
    assert "повреждена" in refused


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ("w1p000_!!!", "повреждена"),
        ("hello", "повреждена"),
        ("w1p000_" + "a" * 58, "слишком длинная"),
        (None, "устарела"),
        ("f1p" + "0" * 3 + "_" + "aGk", "устарела"),  # made on 2026-01-01
    ],
)
async def test_links_that_open_nothing_get_one_short_line(
    telegram: FakeTelegram, db_path: Path, payload: str | None, said: str
):
    if payload is None:
        payload = link(LinkKind.WATCH, "h100", days_ago=MAX_AGE.days + 1)
    async with running_app(telegram, db_path):
        text = await reply(telegram, f"/start {payload}")
    assert said in text
    assert len(text) < 200
