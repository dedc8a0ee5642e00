"""Escaping audit: `<`, `&` and `"` from providers and from users reach the screen literally.

Every reply goes through the fake Telegram, which parses HTML as Telegram does: an unescaped
character would come back as a 400 (call.ok False) instead of a message.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.delivery.alert_text import render_alerts
from estimator.i18n import translators
from monitor.flood import BURST
from monitor.offers import Offer, StockState
from monitor.scrape import ApiError, ScrapeResult
from monitor.watch_words import parse_watch
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram, make_bot
from tests.store_helpers import outbox_rows

NASTY = '<b>&"x</b>'
PROVIDER = '<i>&"prov'
SUBSCRIBER = 777


def nasty(offer: Offer, **fields: object) -> Offer:
    """The offer with every free-text field a provider controls set to markup."""
    values: dict[str, object] = {
        "sku": f"{offer.sku}{NASTY}",
        "location": f"loc{NASTY}",
        "gpu_raw": f"raw{NASTY}",
        "title": f"title{NASTY}",
        "note": f"note{NASTY}",
    }
    values.update(fields)
    return dataclasses.replace(offer, **values)  # type: ignore[arg-type]


def snapshot(stock: StockState) -> dict[str, tuple[Offer, ...]]:
    return {
        # A GPU name nobody knows, shown raw.
        "selectel": (
            nasty(make_offer("odd", 50.0, stock, provider="selectel"), gpu=NASTY, gpu_known=False),
        ),
        # A known GPU (so /fit, /history and /watch 4090 find it) with a provider-named id.
        PROVIDER: (nasty(make_offer("4090", 40.0, stock, provider=PROVIDER)),),
    }


async def seed(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        await store.ensure_user(SUBSCRIBER, language="ru", timezone="UTC")
        await store.add_subscription(SUBSCRIBER, parse_watch("4090"))
        # Delivery would race the test for the alert rows: hold them back.
        now = datetime.now(UTC)
        await store.defer_chat(SUBSCRIBER, now + timedelta(days=1))
        for stock, age in ((StockState.OUT_OF_STOCK, 10), (StockState.IN_STOCK, 5)):
            for provider, offers in snapshot(stock).items():
                fetched = now - timedelta(minutes=age)
                await store_snapshot(store, ScrapeResult(provider, offers, fetched))
        await store.record_failure("hostkey", ApiError("hostkey", f"result {NASTY}"), now, 1.0)
    finally:
        await store.close()


async def replies_to(telegram: FakeTelegram, texts: list[str]) -> list[tuple[str, str]]:
    """Send each text and collect (text, plain reply) for every message the bot answered with."""
    answers: list[tuple[str, str]] = []
    for text in texts:
        before = telegram.mark()
        await telegram.wait_confirmed(telegram.push_message(CHAT, text))
        calls = [c for c in telegram.calls[before:] if c.method in ("sendMessage", "sendPhoto")]
        assert calls, f"no answer to {text!r}"
        for call in calls:
            assert call.ok, f"{text!r}: {call.description}"
            answers.append((text, call.result.get("text") or call.result.get("caption") or ""))
    return answers


async def test_provider_strings_are_shown_literally(telegram: FakeTelegram, db_path: Path):
    await seed(db_path)
    commands = [
        "/prices",
        "/stock",
        "/prices 4090",
        "/history 4090",
        "/fit llama 2 7b qlora",
        "/admin",
    ]
    async with running_app(telegram, db_path, handle_as_tasks=False, admin_ids=frozenset({CHAT})):
        answers = dict(await replies_to(telegram, commands))
    prices = answers["/prices"]
    assert NASTY in prices  # the unknown GPU's raw name
    assert f"loc{NASTY}" in prices
    assert PROVIDER in prices
    assert f"loc{NASTY}" in answers["/stock"]
    assert f"loc{NASTY}" in answers["/prices 4090"]
    assert PROVIDER in answers["/history 4090"]  # the 30-day low's provider, in the caption
    assert PROVIDER in answers["/fit llama 2 7b qlora"]
    admin = answers["/admin"]
    assert f"{PROVIDER}: последний успех" in admin
    assert f"ApiError result {NASTY}" in admin  # a provider's error text


async def test_alerts_with_provider_strings_are_valid_html(telegram: FakeTelegram, db_path: Path):
    await seed(db_path)
    store = await Store.open(db_path)
    try:
        rows = await outbox_rows(store, SUBSCRIBER)
    finally:
        await store.close()
    assert rows, "the seed should have queued an 'appeared' alert"
    shared = translators()
    async with make_bot(telegram) as bot:
        for language in ("ru", "en"):
            for message in render_alerts(rows, shared[language]):
                await bot.send_message(SUBSCRIBER, message.text, reply_markup=message.markup)
    texts = telegram.texts(SUBSCRIBER)
    assert len(texts) == 2
    for text in texts:
        assert f"loc{NASTY}" in text
        assert PROVIDER in text


async def test_user_text_is_shown_literally(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path, handle_as_tasks=False):
        answers = await replies_to(
            telegram,
            [
                "/watch <b>",
                f"/watch {NASTY}",
                '/watch 4090 provider=<b>&"',
                "/settings tz <x>",
                f"/settings quiet {NASTY}",
                f"/settings {NASTY}",
                "/fit <script>",
                f"/fit 7b qlora gpu={NASTY}",
                f"/prices {NASTY}",
                f"/history {NASTY}",
                f"/{NASTY}",
                NASTY,
                '<script>alert("x") & more</script>',
                "/fit " + "<" * 1100,  # /fit reads up to 1000 characters
                "/watch " + "&" * 400,
                "/settings tz " + '"' * 400,
                "/prices " + "<" * 400,
                "/history " + "&" * 400,
            ],
        )
    by_text = dict(answers)
    assert "<b>" in by_text["/watch <b>"]
    assert NASTY in by_text[f"/watch {NASTY}"]
    assert "<x>" in by_text["/settings tz <x>"]
    assert NASTY in by_text[f"/settings quiet {NASTY}"]
    assert NASTY in by_text[f"/prices {NASTY}"]
    assert NASTY in by_text[f"/history {NASTY}"]
    assert "<b>&" in by_text[f"/{NASTY}"]  # the unknown command, echoed up to its first space
    for text in ("/fit ", "/watch ", "/settings tz ", "/prices ", "/history "):
        [(_, long_reply)] = [(t, r) for t, r in answers if t.startswith(text) and len(t) > 400]
        assert "Слишком длин" in long_reply, text
        assert len(long_reply) < 200


async def test_flood_of_30_messages_in_a_second_gets_the_burst_and_one_notice(
    telegram: FakeTelegram, db_path: Path
):
    sent = 1_800_000_000
    async with running_app(telegram, db_path, throttle_interval=1.0, handle_as_tasks=False):
        first = telegram.mark()
        replies_at: list[tuple[int, str]] = []
        # 30 messages within one second, then one a second later and one after that.
        dates = [sent] * 30 + [sent + 1, sent + 2]
        for date in dates:
            before = telegram.mark()
            await telegram.wait_confirmed(telegram.push_message(CHAT, "/prices", date=date))
            replies_at += [
                (date - sent, call.result["text"])
                for call in telegram.calls[before:]
                if call.method == "sendMessage"
            ]
        assert all(call.ok for call in telegram.calls[first:])
    notices = [t for t, text in replies_at if text.startswith("Слишком много сообщений")]
    answers = [t for t, text in replies_at if not text.startswith("Слишком много сообщений")]
    assert answers == [0] * int(BURST) + [1, 2]
    assert notices == [0]
    # The notice came at the first message dropped, right after the burst's answers.
    assert replies_at[int(BURST)][1].startswith("Слишком много сообщений")
