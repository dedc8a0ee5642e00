"""/admin for operators only, and provider alarms sent to every admin."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.admin_notify import alarm_hook, notify_admins
from estimator.i18n import translators
from monitor.alarms import AlarmEvent, AlarmKind
from monitor.offers import StockState
from monitor.pipeline import PipelineOutcome
from monitor.scrape import LayoutError, NetworkError, ScrapeResult
from monitor.subscriptions import WatchEdit
from monitor.watch_words import parse_watch
from storage import Store
from tests.bot.conftest import CHAT, make_settings, running_app
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram, make_bot
from tests.store_helpers import set_blocked

NASTY = '<script>alert("x")</script> & co'
SUBSCRIBERS = (701, 702, 703)


async def seed(db_path: Path) -> int:
    """Three users (one blocked), three subscriptions (one paused), offers, failures; returns
    the outbox depth, held back by a snooze so the running sender cannot change it."""
    store = await Store.open(db_path)
    try:
        for chat in SUBSCRIBERS:
            await store.ensure_user(chat, language="ru", timezone="UTC")
        await store.add_subscription(701, parse_watch("h100"))
        await store.add_subscription(702, parse_watch("h100 max=1000"))
        paused = await store.add_subscription(703, parse_watch("4090"))
        await store.edit_watch(703, paused.id, WatchEdit(paused=True))
        await set_blocked(store, 703, True)

        now = datetime.now(UTC)
        until = now + timedelta(days=1)
        for chat in SUBSCRIBERS:
            await store.defer_chat(chat, until)
        # Sold out first, then back in stock: the second snapshot queues "appeared" alerts.
        for stock, age in ((StockState.OUT_OF_STOCK, 10), (StockState.IN_STOCK, 5)):
            selectel = tuple(
                make_offer(f"h100-{i}", 300 + i, stock, provider="selectel", gpu="H100 SXM")
                for i in range(3)
            )
            fetched = now - timedelta(minutes=age)
            await store_snapshot(store, ScrapeResult("selectel", selectel, fetched))
        immers = (make_offer("4090", 90, provider="immers"),)
        await store_snapshot(store, ScrapeResult("immers", immers, now - timedelta(hours=3)))
        for _ in range(3):
            await store.record_failure("immers", NetworkError("immers", NASTY), now, 20.0)
        await store.record_failure("hostkey", LayoutError("hostkey", "x" * 900), now, 1.0)
        return await store.pending_count()
    finally:
        await store.close()


async def test_admin_gets_health_table_and_counts(telegram: FakeTelegram, db_path: Path):
    pending = await seed(db_path)
    assert pending == 6  # three H100 offers appeared, for two active subscriptions
    async with running_app(telegram, db_path, admin_ids=frozenset({CHAT})):
        after = telegram.mark()
        telegram.push_message(CHAT, "/admin")
        call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    text = call.result["text"]
    assert text.startswith("🛠 gpuradar: панель оператора")
    assert "Пользователи: 4 (заблокировали бота: 1)" in text  # the admin counts too
    assert "Подписки: активных 2, на паузе 1" in text
    assert "Предложений в продаже: 4" in text
    assert f"Очередь отправки: {pending}" in text
    lines = text.splitlines()
    selectel = next(line for line in lines if "Selectel" in line)
    assert selectel.startswith("✅ Selectel: последний успех ")
    assert selectel.endswith("(5 мин назад)")
    immers = next(line for line in lines if "immers.cloud" in line)
    assert immers.startswith("⚠️ immers.cloud: последний успех ")
    assert immers.endswith("(3 ч назад), 3 ошибки подряд")
    assert f"NetworkError {NASTY}" in text  # escaped on the way, literal on screen
    assert "HOSTKEY: ни одного успеха, 1 ошибка подряд" in text
    layout = next(line for line in lines if "LayoutError" in line)
    assert layout.endswith("x…")
    assert len(layout) < 300  # a provider's long error is trimmed


async def test_admin_with_empty_database_says_nothing_polled(telegram: FakeTelegram, db_path):
    async with running_app(telegram, db_path, admin_ids=frozenset({CHAT})):
        after = telegram.mark()
        telegram.push_message(CHAT, "/admin", language_code="en")
        call = await telegram.wait_for_call("sendMessage", after=after)
    text = call.result["text"]
    assert "Subscriptions: 0 active, 0 paused" in text
    assert "Outbox: 0 pending" in text
    assert "No provider has been polled yet." in text


async def test_non_admin_gets_the_unknown_command_reply(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path, admin_ids=frozenset({CHAT + 1})):
        after = telegram.mark()
        telegram.push_message(CHAT, "/admin")
        call = await telegram.wait_for_call("sendMessage", after=after)
        # An admin writing in a group is not shown the table either.
        after = telegram.mark()
        telegram.push_message(-100500, "/admin", user_id=CHAT + 1)
        group = await telegram.wait_for_call("sendMessage", after=after)
    assert call.result["text"].startswith("Не знаю команду /admin.")
    assert group.result["text"].startswith("Не знаю команду /admin.")


async def test_no_admins_configured_means_nobody_is_admin(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/admin")
        call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.result["text"].startswith("Не знаю команду /admin.")


FAILING = AlarmEvent(AlarmKind.FAILING, "immers", 3, error_class="NetworkError", error=NASTY)


async def test_notify_admins_sends_one_message_per_admin(telegram: FakeTelegram):
    async with make_bot(telegram) as bot:
        sent = await notify_admins(bot, {11, 12}, FAILING, translators(), "ru")
    assert sent == 2
    for admin in (11, 12):
        [text] = telegram.texts(admin)
        assert text.startswith("🚨 immers.cloud: 3 неудачных опроса подряд.")
        assert f"Последняя ошибка: NetworkError {NASTY}" in text
    assert all(call.ok for call in telegram.calls if call.method == "sendMessage")


async def test_failing_admin_chat_is_logged_not_raised(
    telegram: FakeTelegram, caplog: pytest.LogCaptureFixture
):
    telegram.block_chat(12)
    caplog.set_level(logging.WARNING, logger="gpuradar.admin")
    recovered = AlarmEvent(AlarmKind.RECOVERED, "selectel", 4)
    async with make_bot(telegram) as bot:
        sent = await notify_admins(bot, [12, 11], recovered, translators(), "en")
    assert sent == 1
    assert telegram.texts(11) == ["✅ Selectel works again after 4 failed refreshes in a row."]
    assert telegram.texts(12) == []
    assert "could not tell admin 12 that selectel is recovered" in caplog.text


async def test_alarm_hook_tells_admins_once_per_change(telegram: FakeTelegram, tmp_path: Path):
    settings = make_settings(telegram, tmp_path / "x.sqlite3", admin_ids=frozenset({11, 12}))
    failure = PipelineOutcome("hostkey", False, error=NetworkError("hostkey", "refused"))
    async with make_bot(telegram) as bot:
        hook = alarm_hook(bot, settings, translators())
        for outcome in [failure] * 5 + [PipelineOutcome("hostkey", True, offers=3)] * 2:
            await hook(outcome)
    for admin in (11, 12):
        texts = telegram.texts(admin)
        assert len(texts) == 2
        assert texts[0].startswith("🚨 HOSTKEY: 3 неудачных опроса подряд.")
        assert texts[1] == "✅ HOSTKEY снова работает после 5 неудачных опросов подряд."


async def test_alarm_hook_without_admins_sends_nothing(telegram: FakeTelegram, tmp_path: Path):
    settings = make_settings(telegram, tmp_path / "x.sqlite3")
    failure = PipelineOutcome("hostkey", False, error=NetworkError("hostkey", "refused"))
    async with make_bot(telegram) as bot:
        hook = alarm_hook(bot, settings, translators(), threshold=1)
        await hook(failure)
    assert not [call for call in telegram.calls if call.method == "sendMessage"]
