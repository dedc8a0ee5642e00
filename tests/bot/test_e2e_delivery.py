"""Delivery end to end: the running application, the fake Telegram and a real SQLite file,
through storage faults, blocks and unblocks."""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp

from bot.fake_telegram import ApiCall
from bot.runtime import Application
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState
from monitor.subscriptions import WatchEdit
from monitor.watch_words import parse_watch
from storage import Store
from tests.bot.conftest import running_app
from tests.factories import enqueue, make_offer
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.store_helpers import set_write_fault

CHATS = range(20_000, 20_040)


def the_event() -> Event:
    offer = make_offer("GL60-8-H100", 5486.0, provider="selectel", gpu="H100 SXM")
    return Event(EventKind.APPEARED, offer, datetime.now(UTC), old_stock=StockState.OUT_OF_STOCK)


async def seed(store: Store, chats: range) -> None:
    """A user, a subscription and one pending alert for each chat, all about one H100."""
    event = the_event()
    alerts = []
    for chat_id in chats:
        await store.ensure_user(chat_id, language="ru", timezone="Europe/Moscow")
        subscription = await store.add_subscription(chat_id, parse_watch("h100"))
        alerts.append(Alert(chat_id, subscription.id, event))
    await enqueue(store, alerts, datetime.now(UTC))


def delivered(telegram: FakeTelegram) -> Counter[int]:
    return Counter(
        int(call.params["chat_id"])
        for call in telegram.calls_of("sendMessage")
        if call.ok and call.result["text"].startswith("🔔")
    )


async def healthz(application: Application) -> tuple[int, Any]:
    assert application.ops is not None
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{application.ops.port}/healthz") as response,
    ):
        return response.status, await response.json()


async def metric(application: Application, line: str) -> bool:
    assert application.ops is not None
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{application.ops.port}/metrics") as response,
    ):
        return line in (await response.text()).splitlines()


def read_only() -> None:
    raise sqlite3.OperationalError("attempt to write a readonly database")


async def test_an_unwritable_database_mid_fan_out_sends_each_alert_exactly_once(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        store = application.store

        def break_the_disk(call: ApiCall) -> None:
            if call.method == "sendMessage" and len(delivered(telegram)) == 10:
                set_write_fault(store, read_only)

        telegram.add_listener(break_the_disk)
        await seed(store, CHATS)
        await eventually(lambda: store.write_error is not None)
        status, body = await healthz(application)
        assert status == 503
        assert "database unwritable" in body["problems"]
        assert body["database"] == "unwritable"
        unhealthy = 'gpuradar_health_problem{problem="database_unwritable"} 1.0'
        assert await metric(application, unhealthy)
        sent_during_the_fault = sum(delivered(telegram).values())
        assert sent_during_the_fault < len(CHATS)

        telegram.remove_listener(break_the_disk)
        set_write_fault(store, None)
        await eventually(lambda: set(delivered(telegram)) == set(CHATS), within=30)

        async def drained() -> bool:
            return await store.pending_count() == 0

        await eventually(drained)
        status, body = await healthz(application)
        assert status == 200, body
        assert await metric(application, unhealthy.replace("1.0", "0.0"))
    assert delivered(telegram) == Counter(dict.fromkeys(CHATS, 1))


async def test_a_blocked_user_who_comes_back_gets_only_the_blocks_pauses_undone(
    telegram: FakeTelegram, db_path: Path
):
    chat = CHATS[0]
    async with running_app(telegram, db_path) as application:
        store = application.store
        await store.ensure_user(chat, language="ru", timezone="Europe/Moscow")
        own = await store.add_subscription(chat, parse_watch("4090"))
        await store.edit_watch(chat, own.id, WatchEdit(paused=True))
        telegram.block_chat(chat)
        await seed(store, CHATS[:1])

        async def blocked_and_paused() -> bool:
            # Two writes of the sender's (the mark, then the pause): wait for both.
            user = await store.get_user(chat)
            subscriptions = await store.subscriptions_of(chat)
            return user is not None and user.blocked and all(s.paused for s in subscriptions)

        await eventually(blocked_and_paused)

        telegram.unblock_chat(chat)
        after = telegram.mark()
        telegram.push_message(chat, "/help")
        await telegram.wait_for_call("sendMessage", after=after)  # handled: answered
        paused = {sub.id: sub.paused for sub in await store.subscriptions_of(chat)}
        user = await store.get_user(chat)
    assert user is not None
    assert not user.blocked
    assert paused[own.id]  # the user's own pause stays
    assert [paused[sub] for sub in paused if sub != own.id] == [False]


async def test_telegrams_block_and_unblock_updates_pause_and_resume(
    telegram: FakeTelegram, db_path: Path
):
    chat = CHATS[1]
    async with running_app(telegram, db_path) as application:
        store = application.store
        await store.ensure_user(chat, language="ru", timezone="Europe/Moscow")
        sub = await store.add_subscription(chat, parse_watch("h100"))
        for status in ("kicked", "member"):
            update = telegram.push_update(
                {
                    "my_chat_member": {
                        "chat": {"id": chat, "type": "private", "first_name": "Test"},
                        "from": {"id": chat, "is_bot": False, "first_name": "Test"},
                        "date": int(datetime.now(UTC).timestamp()),
                        "old_chat_member": {"status": "member", "user": BOT_USER},
                        "new_chat_member": {"status": status, "user": BOT_USER}
                        | ({"until_date": 0} if status == "kicked" else {}),
                    }
                }
            )
            await telegram.wait_confirmed(update)

            async def settled(status: str = status) -> bool:
                user = await store.get_user(chat)
                return user is not None and user.blocked == (status == "kicked")

            await eventually(settled)
            current = await store.get_subscription(sub.id)
            assert current is not None
            assert current.paused == (status == "kicked")


BOT_USER = {"id": 4242, "is_bot": True, "first_name": "gpuradar"}
