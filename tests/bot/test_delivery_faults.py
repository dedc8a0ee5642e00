"""The sender under Telegram's and the database's failures, on an injected clock: one chat's
trouble never holds the others, nothing is lost, and nothing is sent twice."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest
from aiogram import Bot

from bot.delivery.alert_text import MESSAGE_LIMIT, fit_message, render_alerts
from bot.delivery.sender import Sender
from bot.fake_telegram import ApiCall
from monitor.alerts import Alert
from monitor.outbox import OutboxRow
from tests.bot import test_delivery as kit
from tests.bot.test_delivery import (
    NOW,
    TRANSLATORS,
    FakeTime,
    _Store,
    appeared,
    make_sender,
    pending,
    queue,
    sent_counts,
    statuses,
)
from tests.fakes.telegram import FakeTelegram, make_bot
from tests.polling import eventually
from tests.store_helpers import outbox_rows, set_write_fault

CHATS = range(1, 7)
# The fixtures of the delivery tests, shared.
tg, bot, store, fake_time = kit.tg, kit.bot, kit.store, kit.fake_time


def near(moment: datetime, expected: datetime) -> bool:
    """Equal but for the pacing's milliseconds, which move the fake clock too."""
    return abs(moment - expected) < timedelta(seconds=0.1)


async def fan_out(store: _Store) -> None:
    await queue(store, [Alert(chat, chat, appeared("h")) for chat in CHATS])


# --- 429 -------------------------------------------------------------------------------------


async def test_a_429_for_one_chat_holds_that_chat_only(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await fan_out(store)
    tg.flood_chat(1, retry_after=90)
    sender = make_sender(bot, store, fake_time)
    assert await sender.drain_once() == 5
    assert sent_counts(tg) == dict.fromkeys(range(2, 7), 1)
    assert max(fake_time.sleeps, default=0) < 1  # nobody waited out the 90 s
    held = pending(await outbox_rows(store))[1]
    assert near(held.due_at, NOW + timedelta(seconds=90))  # back in the outbox, due when told
    assert (held.attempts, held.last_error) == (0, "429: retry after 90 s")

    fake_time.now += 89
    assert await sender.drain_once() == 0
    fake_time.now += 1
    assert await sender.drain_once() == 1
    assert sent_counts(tg) == dict.fromkeys(CHATS, 1)


async def test_429s_for_two_chats_pause_every_send_and_retry_the_same_message(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await fan_out(store)
    tg.flood_wait(retry_after=3, times=2)  # whoever sends next: the bot is flooded
    sender = make_sender(bot, store, fake_time)
    assert await sender.drain_once() == 5
    # Chat 1's 429 looked like its own; chat 2's showed the flood: everything paused 3 s
    # (chat 2's own 1 s gap after an answer, then the rest), then chat 2's message went first.
    assert sum(s for s in fake_time.sleeps if s > 0.1) == pytest.approx(3)
    assert [int(c.params["chat_id"]) for c in tg.calls_of("sendMessage")][:3] == [1, 2, 2]
    assert set(pending(await outbox_rows(store))) == {1}
    assert statuses(tg).count(429) == 2
    assert sender.stats.flood_waits == 2


async def test_a_flood_longer_than_the_cap_pauses_for_the_cap_and_requeues(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await fan_out(store)
    tg.flood_wait(retry_after=600, times=2)
    sender = make_sender(bot, store, fake_time, flood_cap=30)
    started = fake_time.now
    assert await sender.drain_once() == 4
    assert fake_time.now - started == pytest.approx(30, abs=0.5)  # not 600
    waiting = pending(await outbox_rows(store))
    assert set(waiting) == {1, 2}
    assert all(near(row.due_at, NOW + timedelta(seconds=600)) for row in waiting.values())


# --- 5xx and resets --------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["502", "reset"])
async def test_a_failing_chat_backs_off_and_the_others_go_on(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime, fault: str
):
    await fan_out(store)
    if fault == "502":
        tg.fail_chat(3, times=2)
    else:
        tg.reset_chat(3, times=2)
    sender = make_sender(bot, store, fake_time, backoff_base=2)
    assert await sender.drain_once() == 5
    assert set(sent_counts(tg)) == {1, 2, 4, 5, 6}
    assert max(fake_time.sleeps, default=0) < 1  # no worker slept through chat 3's backoff
    first = pending(await outbox_rows(store))[3]
    assert first.attempts == 1
    assert near(first.due_at, NOW + timedelta(seconds=2))

    fake_time.now += 2
    assert await sender.drain_once() == 0  # fails again: now 4 s
    second = pending(await outbox_rows(store))[3]
    assert second.attempts == 2
    assert near(second.due_at, fake_time.wall() + timedelta(seconds=4))
    fake_time.now += 4
    assert await sender.drain_once() == 1
    assert sent_counts(tg) == dict.fromkeys(CHATS, 1)
    if fault == "reset":
        assert tg.resets == 2


async def test_a_chat_that_keeps_failing_is_dropped_after_max_attempts_with_the_reason(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared("h"))])
    tg.fail_chat(1, times=100)
    sender = make_sender(bot, store, fake_time, max_attempts=3, backoff_base=1)
    for _ in range(3):
        await sender.drain_once()
        fake_time.now += 10
    (row,) = await outbox_rows(store)
    assert row.status == "dropped"
    assert row.last_error == "gave up after 3 attempts: TelegramServerError: Bad Gateway"
    assert await sender.drain_once() == 0
    assert len(tg.calls_of("sendMessage")) == 3


async def test_telegram_down_pauses_everything_without_spending_attempts(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await fan_out(store)
    tg.server_error(times=5)  # every chat's send fails until Telegram is back
    sender = make_sender(bot, store, fake_time)
    assert await sender.drain_once() == 5
    rows = {row.chat_id: row for row in await outbox_rows(store)}
    # Chat 1 could not yet be told from a chat of its own; from chat 2 on it was an outage,
    # waited out with 1, 2, 4, 8 s pauses, retrying chat 2's message.
    assert rows[1].status == "pending"
    assert rows[1].attempts == 1
    assert [rows[chat].attempts for chat in range(2, 7)] == [1] * 5  # the mark's count only
    assert sum(s for s in fake_time.sleeps if s > 0.1) == pytest.approx(1 + 2 + 4 + 8)


# --- too long --------------------------------------------------------------------------------


async def test_a_message_telegram_finds_too_long_goes_as_a_summary(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared(f"s{i}")) for i in range(3)])
    tg.fail_next("sendMessage", 400, "Bad Request: message is too long")
    sender = make_sender(bot, store, fake_time)
    assert await sender.drain_once() == 1
    text = tg.last_message(1).plain_text
    assert "/subs" in text
    assert text.count("H100 80GB × 1") == 3
    assert {row.status for row in await outbox_rows(store)} == {"sent"}
    assert sender.stats.shortened == 1


def test_one_block_over_the_limit_is_shortened_not_dropped():
    rows = [
        OutboxRow(
            i, 1, 10, appeared(f"s{i}", location="x" * 80), NOW, NOW, "pending", 0, None, None
        )
        for i in range(30)
    ]
    (message, *_) = render_alerts(rows, TRANSLATORS["en"], limit=MESSAGE_LIMIT)
    fitted = fit_message(message, rows, TRANSLATORS["en"], limit=600)
    assert fitted.shortened
    assert len(fitted.text.encode("utf-16-le")) // 2 <= 600
    assert fitted.row_ids == message.row_ids  # the same alerts, delivered in brief
    assert "more changes are not shown" in fitted.text
    assert "/subs" in fitted.text
    assert fit_message(message, rows, TRANSLATORS["en"]) is message


# --- the database ----------------------------------------------------------------------------


def read_only() -> None:
    raise sqlite3.OperationalError("attempt to write a readonly database")


async def test_marks_the_database_refuses_are_held_and_nothing_is_sent_twice(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await fan_out(store)

    def break_on_first_send(call: ApiCall) -> None:
        if call.method == "sendMessage" and len(tg.calls_of("sendMessage")) == 2:
            set_write_fault(store, read_only)

    tg.add_listener(break_on_first_send)
    sender = make_sender(bot, store, fake_time)
    assert await sender.drain_once() == 2  # the second message's mark failed: sending stops
    assert "readonly" in (sender.store_error or "")
    assert sender.held_writes >= 1
    for _ in range(3):  # while the database refuses writes, nothing new goes out
        assert await sender.drain_once() == 0
    assert len(tg.calls_of("sendMessage")) == 2

    set_write_fault(store, None)
    while await store.pending_count():
        await sender.drain_once()
    assert sender.store_error is None
    assert sent_counts(tg) == dict.fromkeys(CHATS, 1)
    assert {row.status for row in await outbox_rows(store)} == {"sent"}


async def test_run_backs_off_while_the_database_is_unwritable(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await fan_out(store)
    set_write_fault(store, read_only)  # even the claim is a write
    backoffs: list[float] = []
    repaired = asyncio.Event()

    async def sleep(seconds: float) -> None:
        if seconds >= 1:  # the database's backoff (pacing waits are milliseconds)
            backoffs.append(seconds)
            if len(backoffs) == 4:
                await repaired.wait()
        await fake_time.sleep(seconds)

    sender = make_sender(bot, store, fake_time, sleep=sleep)
    stop = asyncio.Event()
    task = asyncio.create_task(sender.run(stop))
    await eventually(lambda: len(backoffs) == 4)
    assert sender.store_error is not None
    assert backoffs == [1, 2, 4, 4]  # capped: resumed within 10 s of the server's return
    assert tg.calls_of("sendMessage") == []
    set_write_fault(store, None)
    repaired.set()
    await eventually(lambda: len(sent_counts(tg)) == 6)
    stop.set()
    await asyncio.wait_for(task, 5)
    assert sent_counts(tg) == dict.fromkeys(CHATS, 1)


# --- stopping --------------------------------------------------------------------------------


async def test_stop_interrupts_a_flood_pause_at_once(store: _Store):
    async with FakeTelegram() as tg, make_bot(tg) as bot:
        await fan_out(store)
        tg.flood_wait(retry_after=120, times=10)
        sender = Sender(bot, store, TRANSLATORS, concurrency=4, flood_cap=120)
        stop = asyncio.Event()
        task = asyncio.create_task(sender.run(stop))
        await tg.wait_until(lambda: True if statuses(tg).count(429) >= 2 else None)
        started = time.monotonic()
        stop.set()
        await asyncio.wait_for(task, 110)
        # The failure is sitting out the 120 s pause; the bound sits well inside it, far from
        # what a quiet machine takes (milliseconds), so a busy one cannot fail it.
        assert time.monotonic() - started < 60
    assert all(row.status == "pending" for row in await outbox_rows(store))


async def test_a_held_release_is_dropped_once_its_claims_ran_out(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    """PostgreSQL went away mid pass and came back after the claims' lease: the release the
    journal held must not run then, or it would free rows another sender has claimed since
    (and a third would send them again)."""
    await queue(store, [Alert(chat, chat, appeared("a")) for chat in (1, 2, 3)])
    lease = timedelta(seconds=4)
    lease_now = [0.0]
    released: list[tuple[int, ...]] = []
    real_release = store.release

    async def release(
        ids: Sequence[int],
        *,
        due_at: datetime | None = None,
        error: str | None = None,
        failed: bool = False,
        token: int | None = None,
    ) -> int:
        released.append(tuple(ids))
        return await real_release(ids, due_at=due_at, error=error, failed=failed, token=token)

    store.release = release  # type: ignore[method-assign]

    def down_on_first_send(call: ApiCall) -> None:
        if call.method == "sendMessage":
            set_write_fault(store, read_only)

    tg.add_listener(down_on_first_send)
    sender = make_sender(bot, store, fake_time, lease=lease, lease_clock=lambda: lease_now[0])
    await sender.drain_once()  # one sent, its mark and the pass's release held
    assert sender.held_writes == 2
    assert released == []  # the fault refused it before the store saw it

    lease_now[0] += lease.total_seconds()  # the outage outlasted the lease
    tg.remove_listener(down_on_first_send)
    set_write_fault(store, None)
    assert await sender.drain_once() == 0  # the mark is written, the release dropped
    assert sender.held_writes == 0
    assert released == []
    assert sent_counts(tg) == {1: 1}
    # The two unsent rows keep the claims they had, for whoever holds them now.
    assert len(pending(await outbox_rows(store))) == 2
