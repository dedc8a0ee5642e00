"""Alert delivery against the fake Telegram: rendering, limits, failures, restarts, buttons."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from aiogram import Bot, Dispatcher

from bot.delivery.alert_buttons import AlertAction, AlertCallback
from bot.delivery.alert_text import MESSAGE_LIMIT, render_alerts
from bot.delivery.handlers import create_router
from bot.delivery.limiter import Limiter
from bot.delivery.sender import Sender
from bot.fake_telegram import parse_telegram_html, utf16_len
from bot.middlewares.user import UserMiddleware
from estimator.i18n import translators
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState
from monitor.outbox import OutboxRow
from monitor.subscriptions import WatchFilter
from monitor.users import QuietHours, zone
from storage import Store
from tests.factories import enqueue, make_offer
from tests.fakes.telegram import FakeTelegram, make_bot, polling
from tests.store_helpers import outbox_rows

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TRANSLATORS = translators()


class _Store(Store):
    """The real users + outbox; the two subscription methods the buttons call are faked, so
    these tests need no subscription rows."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.subscriptions: set[tuple[int, int]] = set()
        self.muted: list[tuple[int, int, datetime | None]] = []

    async def mute(self, chat_id: int, sub_id: int, until: datetime | None) -> bool:
        if (chat_id, sub_id) not in self.subscriptions:
            return False
        self.muted.append((chat_id, sub_id, until))
        return True

    async def delete_watch(self, chat_id: int, sub_id: int, reason: str = "deleted") -> bool:
        if (chat_id, sub_id) not in self.subscriptions:
            return False
        self.subscriptions.discard((chat_id, sub_id))
        await self.drop_subscription(chat_id, sub_id, reason)  # its queued rows, as the real one
        return True


class FakeTime:
    """A monotonic clock that only the injected sleep moves, and the wall clock with it."""

    START = 1000.0

    def __init__(self) -> None:
        self.now = self.START
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def wall(self) -> datetime:
        return NOW + timedelta(seconds=self.now - self.START)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[_Store]:
    opened = cast(_Store, await _Store.open(tmp_path / "delivery.sqlite3"))
    yield opened
    await opened.close()


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with make_bot(tg) as client:
        yield client


def appeared(sku: str, gpu: str = "H100 80GB", **offer: Any) -> Event:
    return Event(
        EventKind.APPEARED,
        make_offer(sku, 320.0, gpu=gpu, **offer),
        NOW,
        old_stock=StockState.OUT_OF_STOCK,
    )


def price_drop(sku: str, gpu: str = "A100 80GB") -> Event:
    return Event(
        EventKind.PRICE_DROP,
        make_offer(sku, 280.0, gpu=gpu, provider="selectel"),
        NOW,
        old_price_hour=320.0,
        new_price_hour=280.0,
    )


async def queue(store: _Store, alerts: Sequence[Alert], now: datetime = NOW) -> int:
    for chat in {alert.chat_id for alert in alerts}:
        await store.ensure_user(chat, language="ru", timezone="Europe/Moscow", now=NOW)
    store.subscriptions |= {(a.chat_id, a.subscription_id) for a in alerts}
    return await enqueue(store, alerts, now)


def make_sender(
    bot: Bot,
    store: _Store,
    fake_time: FakeTime,
    *,
    rate: float = 1000.0,
    burst: float = 1.0,
    per_chat_interval: float = 1.0,
    **options: Any,
) -> Sender:
    """One in flight unless asked: the fake clock moves by every sleep, so timings are exact
    only when one worker sleeps at a time."""

    limiter = Limiter(
        rate,
        burst,
        per_chat_interval=per_chat_interval,
        clock=fake_time.clock,
        sleep=fake_time.sleep,
    )
    options.setdefault("concurrency", 1)
    options.setdefault("sleep", fake_time.sleep)
    return Sender(
        bot,
        store,
        TRANSLATORS,
        limiter=limiter,
        clock=fake_time.clock,
        now=fake_time.wall,
        **options,
    )


def pending(rows: Sequence[OutboxRow]) -> dict[int, OutboxRow]:
    return {row.chat_id: row for row in rows if row.status == "pending"}


def sent_counts(tg: FakeTelegram) -> dict[int, int]:
    counts: dict[int, int] = {}
    for call in tg.calls_of("sendMessage"):
        if call.ok:
            chat = int(call.params["chat_id"])
            counts[chat] = counts.get(chat, 0) + 1
    return counts


def statuses(tg: FakeTelegram) -> list[int]:
    return [call.status for call in tg.calls_of("sendMessage")]


# --- rendering ----------------------------------------------------------------------------


async def test_one_message_per_chat_one_section_per_watch(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await store.ensure_user(1, language="ru", timezone="Europe/Moscow", now=NOW)
    h100 = await store.add_subscription(1, WatchFilter(family="H100"))
    big = await store.add_subscription(1, WatchFilter(min_vram_gb=80))
    a100 = await store.add_subscription(1, WatchFilter(family="A100", max_rub_per_gpu_hour=300))
    odd = appeared("h100-8", location="<MSK & 1>", gpu_count=8)
    await queue(
        store,
        [
            Alert(1, h100.id, odd),
            Alert(1, a100.id, price_drop("a100")),
            Alert(1, big.id, odd),  # a second watch matching the same change: under it too
            Alert(2, 20, appeared("h100-1")),
        ],
    )
    sender = make_sender(bot, store, fake_time)
    assert await sender.drain_once() == 2
    assert sent_counts(tg) == {1: 1, 2: 1}
    assert await store.pending_count() == 0

    message = tg.last_message(1)
    text = message.plain_text
    assert text.startswith("🔔 gpuradar: 3 изменения по подпискам")
    # One section per watch, headed by its label, in the order of the chat's rows (the
    # refresh inserts them in dedupe-key order: subscription by subscription).
    sections = text.split("\n\n")[1:]
    assert [section.splitlines()[0] for section in sections] == [
        "🔔 H100",
        "🔔 GPU ≥80GB",
        "🔔 A100 ≤300₽",
    ]
    assert "H100 80GB × 8 — acme, <MSK & 1>" in sections[0]  # escaped on the way, as typed
    assert "нет в наличии → в наличии: 2 шт." in sections[0]
    assert "320 ₽/ч · 230\u202f400 ₽/мес · почасово, 40 ₽ за GPU·ч" in sections[0]
    assert "H100 80GB × 8" in sections[1]
    assert "A100 80GB × 1 — Selectel, MSK-1" in sections[2]
    assert "320 → 280 ₽/ч (−13%) · 201\u202f600 ₽/мес" in sections[2]
    assert message.parse_mode == "HTML"
    assert "&lt;MSK &amp; 1&gt;" in message.text

    buttons = message.buttons()
    assert buttons[0].url == "https://example.test/h100-8"
    data = [button.callback_data for button in buttons if button.callback_data]
    assert all(len(item.encode()) <= 64 for item in data)
    actions = [AlertCallback.unpack(item) for item in data]
    assert [(a.action, a.sub) for a in actions] == [
        (AlertAction.MUTE, h100.id),
        (AlertAction.UNSUBSCRIBE, h100.id),
        (AlertAction.MUTE, big.id),
        (AlertAction.UNSUBSCRIBE, big.id),
        (AlertAction.MUTE, a100.id),
        (AlertAction.UNSUBSCRIBE, a100.id),
        (AlertAction.SNOOZE, 0),
    ]
    # Each button names the watch it is bound to.
    assert [b.text for b in buttons[1:7]] == [
        "🔕 H100: 24 ч",
        "🗑 H100: отписаться",
        "🔕 GPU ≥80GB: 24 ч",
        "🗑 GPU ≥80GB: отписаться",
        "🔕 A100 ≤300₽: 24 ч",
        "🗑 A100 ≤300₽: отписаться",
    ]

    # A subscription that is gone by the time it is sent is named by its GPU.
    single = tg.last_message(2)
    assert single.plain_text.startswith("🔔 H100 80GB: изменение по подписке")
    assert [b.text for b in single.buttons()][1:] == [
        "🔕 H100 80GB: 24 ч",
        "🗑 H100 80GB: отписаться",
        "💤 До утра",
    ]


async def test_rows_held_by_quiet_hours_arrive_as_the_quiet_hours_digest(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await store.ensure_user(1, language="ru", timezone="UTC", now=NOW)
    await store.set_quiet_hours(1, QuietHours(start=0, end=(NOW.hour + 1) * 60))  # now is inside
    await enqueue(store, [Alert(1, 10, appeared("a")), Alert(1, 10, price_drop("b"))], NOW)
    await queue(store, [Alert(2, 20, appeared("c"))])
    fake_time.now += 3600  # the quiet hours end
    await make_sender(bot, store, fake_time).drain_once()
    assert tg.last_message(1).plain_text.startswith("🌙 Сводка за тихие часы: 2 изменения")
    assert "Сводка" not in tg.last_message(2).plain_text


async def test_an_alert_retried_later_is_not_a_digest(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared("a"))])
    (row,) = await outbox_rows(store, 1)
    # A 5xx put it back for ten minutes: it is late, but no quiet hours held it.
    await store.retry_chat_later(1, [row.id], NOW + timedelta(minutes=10), "502", failed=True)
    fake_time.now += 601
    await make_sender(bot, store, fake_time).drain_once()
    assert tg.last_message(1).plain_text.startswith("🔔 H100 80GB: изменение по подписке")


async def test_english_users_get_english(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await store.ensure_user(3, language="en", timezone="UTC", now=NOW)
    await queue(store, [Alert(3, 30, price_drop("a"))])
    await make_sender(bot, store, fake_time).drain_once()
    text = tg.last_message(3).plain_text
    assert "320 → 280 ₽/h" in text
    assert [b.text for b in tg.last_message(3).buttons()][-1] == "💤 Until morning"


def test_at_most_three_subscriptions_get_buttons():
    rows = [
        OutboxRow(i, 1, 100 + i, appeared(f"s{i}"), NOW, NOW, "pending", 0, None, None)
        for i in range(5)
    ]
    (message,) = render_alerts(rows, TRANSLATORS["ru"])
    assert message.markup is not None
    callbacks = [
        AlertCallback.unpack(button.callback_data)
        for row in message.markup.inline_keyboard
        for button in row
        if button.callback_data
    ]
    assert sorted({c.sub for c in callbacks if c.action is AlertAction.MUTE}) == [100, 101, 102]
    assert len(message.markup.inline_keyboard) == 5  # url, 3 subscriptions, snooze


def test_a_long_digest_splits_between_offers_only():
    event = appeared
    rows = [
        OutboxRow(
            i, 1, 10, event(f"sku-{i}", location="&" * 80), NOW, NOW, "pending", 0, None, None
        )
        for i in range(80)
    ]
    messages = render_alerts(rows, TRANSLATORS["ru"])
    assert len(messages) > 1
    assert sorted(i for m in messages for i in m.row_ids) == list(range(80))
    for message in messages:
        plain = parse_telegram_html(message.text)  # every part is complete, valid HTML
        assert utf16_len(plain) <= MESSAGE_LIMIT
        assert utf16_len(message.text) <= MESSAGE_LIMIT


async def test_split_digest_arrives_one_part_per_second(store: _Store, fake_time: FakeTime):
    async with (
        FakeTelegram(per_chat_per_second=1, clock=fake_time.clock) as tg,
        make_bot(tg) as bot,
    ):
        await queue(store, [Alert(1, 10, appeared(f"s{i}", location="x" * 80)) for i in range(60)])
        sender = make_sender(bot, store, fake_time)
        assert await sender.drain_once() == 1
        assert await sender.drain_once() == 0  # the chat's second message must wait
        while await store.pending_count():
            fake_time.now += 1.0
            assert await sender.drain_once() == 1
        assert 429 not in statuses(tg)
        assert sum("нет в наличии → в наличии" in t for t in tg.texts(1)) == len(tg.texts(1))
        shown = sum(t.count("× 1 —") for t in tg.texts(1))
        assert shown == 60


# --- failures: see test_delivery_faults.py; pacing and restarts ---------------------


async def test_per_chat_pacing_on_an_injected_clock(store: _Store, fake_time: FakeTime):
    async with (
        FakeTelegram(per_chat_per_second=1, clock=fake_time.clock) as tg,
        make_bot(tg) as bot,
    ):
        sender = make_sender(bot, store, fake_time)
        await queue(store, [Alert(1, 10, appeared("a"))])
        assert await sender.drain_once() == 1
        await queue(store, [Alert(1, 10, appeared("b")), Alert(2, 20, appeared("b"))])
        assert await sender.drain_once() == 1  # chat 2 goes; chat 1 waits for its second
        fake_time.now += 0.5
        assert await sender.drain_once() == 0
        fake_time.now += 0.5
        assert await sender.drain_once() == 1
        assert sent_counts(tg) == {1: 2, 2: 1}
        assert 429 not in statuses(tg)


async def test_global_pacing_on_an_injected_clock(store: _Store, fake_time: FakeTime):
    async with (
        FakeTelegram(global_per_second=28, global_burst=2, clock=fake_time.clock) as tg,
        make_bot(tg) as bot,
    ):
        await queue(store, [Alert(chat, chat, appeared("a")) for chat in range(1, 101)])
        sender = make_sender(bot, store, fake_time, rate=28, burst=1.5)
        started = fake_time.now
        assert await sender.drain_once() == 100
        elapsed = fake_time.now - started
        assert statuses(tg) == [200] * 100
        # The first goes at once, the second half a slot later (the burst of 1.5), then one
        # every 1/28 s: 98.5 / 28 s.
        assert elapsed == pytest.approx(98.5 / 28, abs=0.01)
        assert max(fake_time.sleeps) <= 1 / 28 + 1e-9


async def test_a_chat_with_a_backlog_does_not_starve_the_others(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared(f"s{i}")) for i in range(300)])
    await queue(store, [Alert(chat, chat, appeared("x")) for chat in range(2, 12)])
    sender = make_sender(bot, store, fake_time, batch_size=50, per_chat=20)
    assert await sender.drain_once() == 11  # one message each, chat 1's first included
    assert set(sent_counts(tg)) == set(range(1, 12))


async def test_a_late_alert_overtakes_a_fan_outs_backlog_and_each_chat_hears_once(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    popular = appeared("h100-popular")  # one change for 60 chats: one event
    fan_out = [Alert(chat, chat, popular) for chat in range(10, 70)]
    # Chat 42 matched three changes of the same refresh: one message, not three.
    fan_out += [Alert(42, 420, price_drop("a100")), Alert(42, 421, appeared("h100-other"))]
    await queue(store, fan_out)
    sender = make_sender(bot, store, fake_time, batch_size=10)
    first = await sender.drain_once()  # ten rows: chat 42's three among them
    assert 0 < first < 10
    await queue(store, [Alert(99, 990, appeared("l40s", gpu="L40S 48GB"))], fake_time.wall())
    while await store.pending_count():
        assert await sender.drain_once() > 0
    order = [int(call.params["chat_id"]) for call in tg.calls_of("sendMessage") if call.ok]
    # Events take turns: the late one goes in the next pass, not after the 50 chats left.
    assert order.index(99) < 20
    assert sent_counts(tg) == dict.fromkeys([*range(10, 70), 99], 1)
    assert tg.last_message(42).plain_text.startswith("🔔 gpuradar: 3 изменения")
    assert {row.status for row in await outbox_rows(store)} == {"sent"}


# --- restarts -----------------------------------------------------------------------------


async def test_restart_sends_what_was_pending_and_nothing_twice(
    tg: FakeTelegram, bot: Bot, store: _Store
):
    await queue(store, [Alert(chat, chat, appeared("a")) for chat in range(1, 21)])
    first = Sender(bot, store, TRANSLATORS, limiter=Limiter(1000), concurrency=3)
    stop = asyncio.Event()
    task = asyncio.create_task(first.run(stop))
    await tg.wait_until(lambda: True if len(tg.calls_of("sendMessage")) >= 5 else None)
    task.cancel()  # as abrupt as the event loop allows: wherever the sender happens to be
    await asyncio.gather(task, return_exceptions=True)
    marked = {row.chat_id for row in await outbox_rows(store) if row.status == "sent"}
    assert 0 < len(marked) < 20

    await store.release_claims()  # what start-up does: this process holds the database
    second = Sender(bot, store, TRANSLATORS, limiter=Limiter(1000))
    while await store.pending_count():
        await second.drain_once()
    after = sent_counts(tg)
    assert set(after) == set(range(1, 21))  # nothing lost
    resent = [chat for chat in after if after[chat] > 1]
    assert not set(resent) & marked  # a row marked sent is never sent again
    assert len(resent) <= 3  # at most the ones in flight when it died
    assert sum(after.values()) == 20 + len(resent)


async def test_run_stops_cleanly_and_wake_skips_the_idle_wait(
    tg: FakeTelegram, bot: Bot, store: _Store
):
    idle = asyncio.Event()

    async def sleep(seconds: float) -> None:
        if seconds == 30:
            idle.set()  # the sender found nothing and waits out its idle interval
        await asyncio.sleep(seconds)

    sender = Sender(bot, store, TRANSLATORS, idle_interval=30, sleep=sleep)
    stop = asyncio.Event()
    task = asyncio.create_task(sender.run(stop))
    await asyncio.wait_for(idle.wait(), 30)
    await queue(store, [Alert(1, 10, appeared("a"))])
    sender.wake()
    # The failure is waiting out the 30 s idle interval; the bound sits well inside it.
    await tg.wait_for_call("sendMessage", timeout=15)
    stop.set()
    await asyncio.wait_for(task, 15)
    assert await store.pending_count() == 0


# --- buttons ------------------------------------------------------------------------------


def dispatcher(store: _Store) -> Dispatcher:
    dp = Dispatcher(store=store)
    dp.callback_query.outer_middleware(UserMiddleware(store, TRANSLATORS, "ru", "Europe/Moscow"))
    dp.include_router(create_router())
    return dp


async def test_mute_button_mutes_for_24_hours_and_drops_queued_rows(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared("a"))])
    await make_sender(bot, store, fake_time).drain_once()
    await queue(store, [Alert(1, 10, appeared("b")), Alert(1, 11, appeared("b"))])
    async with polling(dispatcher(store), bot):
        before = datetime.now(UTC)
        await tg.user_presses(1, "🔕 H100 80GB: 24 ч")
    ((chat, sub, until),) = store.muted
    assert (chat, sub) == (1, 10)
    assert until is not None
    assert before + timedelta(hours=24) <= until <= datetime.now(UTC) + timedelta(hours=24)
    answer = tg.callbacks[-1].answer
    assert answer is not None
    assert "молчит до" in answer["text"]
    pending = [
        row.subscription_id for row in await outbox_rows(store, 1) if row.status == "pending"
    ]
    assert pending == [11]


async def test_unsubscribe_button_and_a_stale_press(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared("a"))])
    await make_sender(bot, store, fake_time).drain_once()
    async with polling(dispatcher(store), bot):
        await tg.user_presses(1, "🗑 H100 80GB: отписаться")
        await tg.user_presses(1, "🗑 H100 80GB: отписаться")
    assert (1, 10) not in store.subscriptions
    first, second = tg.callbacks
    assert first.answer is not None
    assert first.answer["text"].startswith("🗑 Подписка «")
    assert second.answer is not None
    assert "уже нет" in second.answer["text"]


async def test_forged_subscription_of_another_chat_is_refused(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared("a")), Alert(2, 20, appeared("a"))])
    await make_sender(bot, store, fake_time).drain_once()
    forged = AlertCallback(action=AlertAction.UNSUBSCRIBE, sub=20).pack()
    async with polling(dispatcher(store), bot):
        update = tg.push_callback(1, tg.last_message(1).message_id, forged)
        await tg.wait_confirmed(update)
    assert (2, 20) in store.subscriptions


async def test_snooze_button_defers_the_chat_until_08_local(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(1, 10, appeared("a"))])
    await make_sender(bot, store, fake_time).drain_once()
    await store.set_timezone(1, "Asia/Novosibirsk")
    await queue(store, [Alert(1, 10, appeared("b"))], datetime.now(UTC))
    async with polling(dispatcher(store), bot):
        await tg.user_presses(1, "💤 До утра")
    now = datetime.now(UTC)
    until = await store.snoozed_until(1, now)
    assert until is not None
    local = until.astimezone(zone("Asia/Novosibirsk"))
    assert (local.hour, local.minute) == (8, 0)
    assert now < until <= now + timedelta(hours=24)
    (pending,) = [row for row in await outbox_rows(store, 1) if row.status == "pending"]
    assert pending.due_at == until
    answer = tg.callbacks[-1].answer
    assert answer is not None
    assert answer["text"].startswith("💤 Тишина до 08:00")


# --- several senders on one outbox ----------------------------------------------------------


async def test_a_pass_claims_what_it_can_send_within_its_horizon(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(chat, chat, appeared("a")) for chat in range(1, 101)])
    sender = make_sender(bot, store, fake_time, rate=28, burst=1.5, claim_horizon_s=1.0)
    # 28 messages/s for 1 s: the other 72 stay free for other replicas to claim.
    assert await sender.drain_once() == 28
    assert await store.pending_count() == 72


async def test_a_long_pass_renews_its_claims_until_each_row_is_settled(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(chat, chat, appeared("a")) for chat in range(1, 41)])
    renewals: list[tuple[datetime, datetime, int]] = []
    extend = store.extend_claims

    async def spy(ids: Sequence[int], until: datetime, *, token: int | None = None) -> int:
        assert token is not None  # renewals are fenced by the pass's claim
        renewals.append((fake_time.wall(), until, len(ids)))
        return await extend(ids, until, token=token)

    async def every_few_turns(seconds: float) -> None:
        # The renewal timer on the event loop's turns, apart from the fake pacing clock.
        for _ in range(20):
            await asyncio.sleep(0)

    store.extend_claims = spy  # type: ignore[method-assign]
    lease = timedelta(seconds=30)
    sender = make_sender(bot, store, fake_time, rate=10, lease=lease, renew_sleep=every_few_turns)
    assert await sender.drain_once() == 40
    assert len(renewals) >= 3
    assert all(until - at == lease for at, until, _ in renewals)
    # Each renewal covers what is still unsettled, fewer and fewer rows as the pass goes.
    counts = [count for _, _, count in renewals]
    assert counts == sorted(counts, reverse=True)
    assert counts[0] < 40


async def test_a_pass_that_wakes_past_its_claims_drops_them_without_sending(
    tg: FakeTelegram, bot: Bot, store: _Store, fake_time: FakeTime
):
    await queue(store, [Alert(chat, chat, appeared("a")) for chat in (1, 2, 3)])
    lease = timedelta(seconds=15)
    frozen = [0.0]

    def freeze_after_the_first(outcome: str) -> None:
        # The process stops right after its first send and wakes past its lease: another
        # replica has claimed (and sent) the other rows meanwhile.
        frozen[0] += lease.total_seconds()

    sender = make_sender(
        bot,
        store,
        fake_time,
        lease=lease,
        lease_clock=lambda: frozen[0],
        on_result=freeze_after_the_first,
    )
    assert await sender.drain_once() == 1
    assert sum(sent_counts(tg).values()) == 1
    assert sender.stats.claims_lost == 2
    # Neither sent nor released: the claims stay as they were, for their new holder.
    left = pending(await outbox_rows(store))
    assert len(left) == 2
    reclaim = await store.claim(
        fake_time.wall(), limit=10, per_chat=1, lease=lease, chat_gap=timedelta(0)
    )
    assert reclaim == []
