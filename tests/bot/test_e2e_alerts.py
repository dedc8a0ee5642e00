"""Alerts end to end: fake provider sites, fake Telegram, a real SQLite file and the real
scheduler job, refresh after refresh."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent

from bot.runtime import Application
from bot.scheduler import job_id
from monitor.watch_words import parse_watch
from tests.bot.conftest import CHAT, running_app
from tests.fakes.providers import (
    FakeProviders,
    Mode,
    all_sites,
)
from tests.fakes.sites.selectel import H100Control
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.store_helpers import outbox_rows


@asynccontextmanager
async def monitored_app(
    telegram: FakeTelegram, db_path: Path, h100: H100Control, **options: Any
) -> AsyncIterator[tuple[Application, FakeProviders]]:
    async with FakeProviders(all_sites()) as sites:
        h100.install(sites["selectel"])
        async with running_app(
            telegram,
            db_path,
            **options,
            monitor=True,
            **sites.urls(),
        ) as application:
            await eventually(lambda: all_refreshed(application))
            yield application, sites


async def all_refreshed(application: Application) -> bool:
    health = await application.store.provider_health()
    return {h.provider for h in health} == {"selectel", "hostkey", "immers"}


async def refresh(application: Application, provider: str = "selectel") -> None:
    """Run the provider's real scheduler job now and wait until it has finished."""
    scheduler = application.scheduler
    assert scheduler is not None
    finished: list[JobExecutionEvent] = []

    def on_done(event: JobExecutionEvent) -> None:
        if event.job_id == job_id(provider):
            finished.append(event)

    scheduler.add_listener(on_done, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    try:
        scheduler.modify_job(job_id(provider), next_run_time=datetime.now(UTC))
        await eventually(lambda: bool(finished))
    finally:
        scheduler.remove_listener(on_done)
    assert finished[0].exception is None, finished[0].exception


async def command(telegram: FakeTelegram, text: str) -> str:
    after = telegram.mark()
    telegram.push_message(CHAT, text)
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


def is_alert(message: dict[str, Any]) -> bool:
    """An alert is the message whose buttons act on alerts (AlertCallback, prefix "a")."""
    rows = (message.get("reply_markup") or {}).get("inline_keyboard") or []
    return any(
        str(button.get("callback_data", "")).startswith("a:") for row in rows for button in row
    )


def alerts_sent(telegram: FakeTelegram) -> list[str]:
    return [
        call.result["text"]
        for call in telegram.calls_of("sendMessage")
        if call.ok and is_alert(call.result)
    ]


async def quiet_hours_now(telegram: FakeTelegram) -> None:
    """A window around the current hour, in UTC: whatever the clock, alerts must wait."""
    hour = datetime.now(UTC).hour
    await command(telegram, "/settings tz UTC")
    await command(telegram, f"/settings quiet {(hour - 1) % 24}-{(hour + 2) % 24}")


async def end_quiet_hours(db_path: Path) -> None:
    """As if the rows had been queued 8 hours ago and the window ended now.

    On a thread: the running bot shares this event loop, and a transaction of its own
    (a delivery pass) could not finish while the loop waited on SQLite's lock here."""
    await asyncio.to_thread(_backdate_outbox, db_path, datetime.now(UTC))


def _backdate_outbox(db_path: Path, now: datetime) -> None:
    with sqlite3.connect(db_path) as connection:
        connection.execute(
            "UPDATE outbox SET created_at = ?, due_at = ?",
            (
                (now - timedelta(hours=8)).isoformat(timespec="microseconds"),
                now.isoformat(timespec="microseconds"),
            ),
        )


async def all_delivered(application: Application) -> bool:
    return await application.store.pending_count() == 0


async def test_appear_once_no_repeat_no_false_alarm_and_price_below_target(
    telegram: FakeTelegram, db_path: Path
):
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, sites):
        assert "H100" in await command(telegram, "/watch h100")

        # The H100 server comes into stock: exactly one alert.
        h100.count = 1
        await refresh(application)
        await eventually(lambda: len(alerts_sent(telegram)) == 1)
        alert = alerts_sent(telegram)[0]
        assert "H100" in alert
        assert "Selectel" in alert
        message = telegram.last_message(CHAT)
        urls = [b.url for b in message.buttons() if b.url]
        assert urls
        assert urls[0].startswith("https://selectel.ru/")

        # The same scrape again: nothing new.
        await refresh(application)
        # A failed scrape, then a good one with the stock unchanged: still nothing.
        sites.set_mode("selectel", Mode.ERROR_500)
        await refresh(application)
        sites.set_mode("selectel", Mode.NORMAL)
        await refresh(application)
        await eventually(lambda: all_delivered(application))
        assert len(alerts_sent(telegram)) == 1
        assert len(await outbox_rows(application.store, CHAT)) == 1

        # A price drop below a target: one alert, for that subscription.
        await command(telegram, "/watch h100 max=650")
        h100.month_rub = 3_600_000  # 625 ₽ per GPU-hour
        await refresh(application)
        await eventually(lambda: len(alerts_sent(telegram)) == 2)
        await eventually(lambda: all_delivered(application))
        rows = await outbox_rows(application.store, CHAT)
    assert [row.event.kind.value for row in rows] == ["appeared", "price_drop"]
    assert len({row.subscription_id for row in rows}) == 2
    assert "→" in alerts_sent(telegram)[1]
    assert "₽/ч" in alerts_sent(telegram)[1]


async def test_a_refresh_that_queues_an_alert_wakes_the_sender(
    telegram: FakeTelegram, db_path: Path
):
    """The sender's idle poll is an hour here: the alert comes because the refresh woke it."""
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100, delivery_poll_s=3600) as (application, _):
        # Watched through the store: a reply to /watch would hold the chat for its 1 s gap,
        # and an alert claimed in that second waits for the poll.
        store = application.store
        await store.ensure_user(CHAT, language="ru", timezone="Europe/Moscow")
        await store.add_subscription(CHAT, parse_watch("h100"))
        h100.count = 1
        await refresh(application)
        await eventually(lambda: len(alerts_sent(telegram)) == 1, within=5)

        # Marked sent once Telegram's answer is back: a moment after the fake recorded it.
        async def settled() -> bool:
            return await application.store.pending_count() == 0

        await eventually(settled, within=5)


async def test_a_429_storm_delays_but_delivers_everything(telegram: FakeTelegram, db_path: Path):
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, _):
        await command(telegram, "/watch h100")
        telegram.flood_wait("sendMessage", retry_after=1, times=2)
        h100.count = 1
        await refresh(application)
        await eventually(lambda: all_delivered(application), within=20)
        floods = [c for c in telegram.calls_of("sendMessage") if c.status == 429]
    assert len(floods) == 2
    assert len(alerts_sent(telegram)) == 1


async def test_a_403_pauses_the_users_subscriptions(telegram: FakeTelegram, db_path: Path):
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, _):
        await command(telegram, "/watch h100")
        await command(telegram, "/watch 4090")
        telegram.block_chat(CHAT)
        h100.count = 1
        await refresh(application)

        async def paused() -> bool:
            subs = await application.store.subscriptions_of(CHAT)
            return all(sub.paused for sub in subs)

        await eventually(paused)
        user = await application.store.get_user(CHAT)
    assert user is not None
    assert user.blocked


async def test_quiet_hours_hold_alerts_for_one_digest(telegram: FakeTelegram, db_path: Path):
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, _):
        await command(telegram, "/watch h100")
        await command(telegram, "/watch h100 max=650")
        await quiet_hours_now(telegram)
        h100.count = 1
        h100.month_rub = 3_600_000
        await refresh(application)
        rows = await outbox_rows(application.store, CHAT)
        # Both subscriptions hear of the appearance; the one with a target also of the drop.
        assert sorted(row.event.kind.value for row in rows) == [
            "appeared",
            "appeared",
            "price_drop",
        ]
        assert all(row.due_at > datetime.now(UTC) for row in rows)
        assert alerts_sent(telegram) == []
        # The window ends: both alerts arrive as one digest.
        await end_quiet_hours(db_path)
        await eventually(lambda: all_delivered(application))
    (digest,) = alerts_sent(telegram)
    assert digest.startswith("🌙 Сводка за тихие часы: 3 изменения")
    assert digest.count("H100") >= 2


async def test_a_digest_of_two_watches_on_one_offer_names_each_and_its_buttons_act_on_it(
    telegram: FakeTelegram, db_path: Path
):
    """The issue's bug: both rows of buttons read «H100 SXM», and the second 🗑 deleted the
    70b qlora watch. Now each section and each button carries its own watch's label."""
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, _):
        await command(telegram, "/watch h100")
        await command(telegram, "/watch 70b qlora ctx=8192")
        await quiet_hours_now(telegram)
        h100.count = 1
        await refresh(application)
        await end_quiet_hours(db_path)
        await eventually(lambda: all_delivered(application))
        (digest,) = alerts_sent(telegram)
        message = telegram.last_message(CHAT)
        labels = [button.text for button in message.buttons()]
        after = telegram.mark()
        telegram.press(CHAT, "🗑 H100: отписаться", message=message)
        deleted = await telegram.wait_for_call("answerCallbackQuery", after=after)
        after = telegram.mark()
        telegram.press(CHAT, "🔕 70b qlora ctx=8192: 24 ч", message=message)
        muted = await telegram.wait_for_call("answerCallbackQuery", after=after)
        (left,) = await application.store.subscriptions_of(CHAT)
        # «Поделиться» the first watch: its link offers the same watch to whoever opens it.
        shared = parse_qs(urlsplit(str(message.buttons()[5].raw["url"])).query)
        payload = parse_qs(urlsplit(shared["url"][0]).query)["start"][0]
        opened = await command(telegram, f"/start {payload}")
        offered = [button.text for button in telegram.last_message(CHAT).buttons()]
    assert digest.startswith("🌙 Сводка за тихие часы: 2 изменения")
    sections = digest.split("\n\n")[1:]
    assert [section.splitlines()[0] for section in sections] == [
        "🔔 H100",
        "🔔 70b qlora ctx=8192",
    ]
    assert all("H100 SXM × 8" in section for section in sections)
    assert labels[1:5] == [
        "🔕 H100: 24 ч",
        "🗑 H100: отписаться",
        "🔕 70b qlora ctx=8192: 24 ч",
        "🗑 70b qlora ctx=8192: отписаться",
    ]
    assert labels[5:] == ["↗️ Поделиться", "💤 До утра"]
    assert "H100" in opened
    assert offered == ["🔔 Следить: H100"]
    # The 🗑 under "H100" deleted the H100 watch, and said so; the fit watch is still there.
    assert deleted.params["text"] == "🗑 Подписка «H100» удалена. Остальные — /subs."
    assert left.filter.fit_query == "70b qlora ctx=8192"
    assert muted.params["text"].startswith("🔕 «70b qlora ctx=8192» молчит до ")
    assert left.muted_until is not None
