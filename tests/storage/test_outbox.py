from collections.abc import AsyncIterator, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState, Vat
from monitor.users import QuietHours, User
from storage import Store
from storage.outbox import (
    OutboxQueries,
    cooldown_key,
    enqueue,
    event_from_json,
    event_to_json,
    last_alerts_at,
    next_local_time,
)
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
MOSCOW_NIGHT = QuietHours(23 * 60, 8 * 60)  # over midnight


class _Store(Store, OutboxQueries):
    pass


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[_Store]:
    opened = cast(_Store, await _Store.open(tmp_path / "outbox.sqlite3"))
    yield opened
    await opened.close()


def event(sku: str = "h100", kind: EventKind = EventKind.APPEARED, at: datetime = T0) -> Event:
    return Event(
        kind,
        make_offer(sku, 320.0, gpu="H100 80GB"),
        at,
        old_stock=StockState.OUT_OF_STOCK if kind is EventKind.APPEARED else None,
    )


async def add_user(
    store: _Store, chat_id: int, tz: str = "Europe/Moscow", quiet: QuietHours | None = None
) -> User:
    await store.ensure_user(chat_id, language="ru", timezone=tz, now=T0)
    return await store.set_quiet_hours(chat_id, quiet)


async def queue(
    store: _Store, alerts: Iterable[Alert], users: Mapping[int, User], now: datetime = T0
) -> int:
    async with store._db.transaction() as connection:
        return await enqueue(connection, alerts, users, now)


async def test_enqueue_is_idempotent_per_dedupe_key(store: _Store):
    user = await add_user(store, 1)
    alerts = [Alert(1, 10, event("a")), Alert(1, 10, event("b")), Alert(1, 11, event("a"))]
    assert await queue(store, alerts, {1: user}) == 3
    assert await queue(store, alerts, {1: user}, T0 + timedelta(minutes=5)) == 0
    assert await queue(store, [*alerts, Alert(1, 10, event("c"))], {1: user}) == 1
    rows = await store.outbox_rows()
    assert [(row.subscription_id, row.event.offer.sku) for row in rows] == [
        (10, "a"),
        (10, "b"),
        (11, "a"),
        (10, "c"),
    ]
    assert {row.status for row in rows} == {"pending"}
    assert await store.pending_count() == 4


async def test_enqueue_rolls_back_with_the_callers_transaction(store: _Store):
    user = await add_user(store, 1)

    async def refresh_that_fails() -> None:
        async with store._db.transaction() as connection:
            await enqueue(connection, [Alert(1, 10, event())], {1: user}, T0)
            raise RuntimeError("the refresh failed after queueing")

    with pytest.raises(RuntimeError):
        await refresh_that_fails()
    assert await store.pending_count() == 0


async def test_payload_keeps_the_whole_event():
    offer = make_offer("x&<y>", 45.5, StockState.IN_STOCK, provider="immers", gpu_count=8)
    original = Event(
        EventKind.PRICE_DROP,
        offer,
        T0,
        old_price_hour=50.0,
        new_price_hour=45.5,
        old_stock=StockState.PREORDER,
    )
    restored = event_from_json(event_to_json(original))
    assert restored == original
    assert restored.offer.vat is Vat.UNKNOWN
    assert restored.key == original.key


async def test_due_now_without_quiet_hours_and_for_unknown_users(store: _Store):
    user = await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(99, 11, event("b"))], {1: user})
    assert [row.due_at for row in await store.outbox_rows()] == [T0, T0]


@pytest.mark.parametrize(
    ("now", "due"),
    [
        # 00:30 Moscow (UTC+3): inside 23:00-08:00 -> 08:00 Moscow the same morning.
        (datetime(2026, 11, 29, 21, 30, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC)),
        # 23:30 Moscow, before midnight -> 08:00 Moscow the next day.
        (datetime(2026, 11, 29, 20, 30, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC)),
        # 22:59 Moscow: not yet quiet.
        (datetime(2026, 11, 29, 19, 59, tzinfo=UTC), datetime(2026, 11, 29, 19, 59, tzinfo=UTC)),
        # 08:00 Moscow sharp: the window has ended.
        (datetime(2026, 11, 30, 5, 0, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC)),
    ],
)
async def test_quiet_hours_over_midnight_push_due_to_their_end(
    store: _Store, now: datetime, due: datetime
):
    user = await add_user(store, 1, "Europe/Moscow", MOSCOW_NIGHT)
    await queue(store, [Alert(1, 10, event())], {1: user}, now)
    (row,) = await store.outbox_rows()
    assert row.due_at == due
    assert row.created_at == now


async def test_quiet_hours_are_in_the_users_time_zone(store: _Store):
    # 13:00-15:00 in Vladivostok (UTC+10) is 03:00-05:00 UTC.
    far_east = await add_user(store, 1, "Asia/Vladivostok", QuietHours(13 * 60, 15 * 60))
    moscow = await add_user(store, 2, "Europe/Moscow", QuietHours(13 * 60, 15 * 60))
    now = datetime(2026, 11, 29, 3, 30, tzinfo=UTC)  # 13:30 Vladivostok, 06:30 Moscow
    await queue(
        store, [Alert(1, 10, event()), Alert(2, 20, event())], {1: far_east, 2: moscow}, now
    )
    by_chat = {row.chat_id: row.due_at for row in await store.outbox_rows()}
    assert by_chat == {1: datetime(2026, 11, 29, 5, 0, tzinfo=UTC), 2: now}


async def test_blocked_users_are_skipped(store: _Store):
    active = await add_user(store, 1)
    await add_user(store, 2)
    blocked = await store.set_blocked(2, True)
    added = await queue(
        store, [Alert(1, 10, event()), Alert(2, 20, event())], {1: active, 2: blocked}
    )
    assert added == 1
    assert [row.chat_id for row in await store.outbox_rows()] == [1]


LEASE = timedelta(minutes=5)


async def claim(store: _Store, now: datetime = T0, limit: int = 10, **options: Any) -> list[Any]:
    options.setdefault("per_chat", 20)
    return await store.claim(now, limit=limit, lease=LEASE, **options)


async def test_claim_takes_due_pending_rows_oldest_first(store: _Store):
    users = {chat: await add_user(store, chat) for chat in (1, 2, 3)}
    users[3] = await add_user(store, 3, quiet=QuietHours(0, 23 * 60 + 59))  # quiet nearly all day
    await queue(store, [Alert(2, 20, event("a"))], users, T0)
    await queue(
        store,
        [Alert(1, 10, event("b")), Alert(3, 30, event("c"))],
        users,
        T0 + timedelta(seconds=1),
    )
    assert await claim(store, T0 - timedelta(seconds=1)) == []
    due = await claim(store, T0 + timedelta(seconds=5))
    assert [(row.chat_id, row.event.offer.sku) for row in due] == [(2, "a"), (1, "b")]
    assert all(row.language == "ru" for row in due)
    await store.mark_sent([due[0].id], T0)
    await store.release([due[1].id])
    assert [row.chat_id for row in await claim(store, T0 + timedelta(seconds=5))] == [1]


async def test_a_claim_holds_rows_until_its_lease_ends_or_they_are_released(store: _Store):
    users = {chat: await add_user(store, chat) for chat in (1, 2)}
    await queue(store, [Alert(1, 10, event("a")), Alert(2, 20, event("a"))], users)
    first = await claim(store, T0, limit=1)
    assert [row.chat_id for row in first] == [1]
    # Another claimer (a second replica, later) skips the leased row.
    assert [row.chat_id for row in await claim(store, T0)] == [2]
    assert await claim(store, T0 + LEASE - timedelta(seconds=1)) == []
    # A dead claimer's lease runs out, and the rows are due again.
    assert [row.chat_id for row in await claim(store, T0 + LEASE)] == [1, 2]
    assert await store.release_claims() == 2
    assert len(await claim(store, T0)) == 2


async def test_claim_is_fair_and_skips_busy_chats(store: _Store):
    users = {chat: await add_user(store, chat) for chat in (1, 2, 3)}
    # Chat 1 has the oldest backlog, big enough to fill a whole batch by itself.
    await queue(store, [Alert(1, 10, event(f"x{i}")) for i in range(8)], users, T0)
    later = T0 + timedelta(seconds=1)
    await queue(store, [Alert(2, 20, event("y")), Alert(3, 30, event("z"))], users, later)
    rows = await claim(store, later, limit=8, per_chat=3)
    assert [row.chat_id for row in rows] == [1, 1, 1, 2, 3]
    assert [row.event.offer.sku for row in rows[:3]] == ["x0", "x1", "x2"]
    await store.release([row.id for row in rows])
    assert {row.chat_id for row in await claim(store, later, skip_chats={1, 3})} == {2}


async def test_retry_chat_later_moves_the_whole_chat_and_counts_the_try(store: _Store):
    users = {chat: await add_user(store, chat) for chat in (1, 2)}
    await queue(
        store, [Alert(1, 10, event("a")), Alert(1, 10, event("b")), Alert(2, 20, event("a"))], users
    )
    a, other = await claim(store, T0, per_chat=1)  # chat 1's second row stays unclaimed
    assert (a.chat_id, other.chat_id) == (1, 2)
    later = T0 + timedelta(seconds=30)
    assert await store.retry_chat_later(1, [a.id], later, "502: Bad Gateway", failed=True) == 2
    rows = {row.id: row for row in await store.outbox_rows(1)}
    assert [row.due_at for row in rows.values()] == [later, later]
    assert (rows[a.id].attempts, rows[a.id].last_error) == (1, "502: Bad Gateway")
    assert await claim(store, later - timedelta(seconds=1)) == []  # chat 2's is still leased
    # Same due time: the claim keeps the chat's order (by id).
    assert [row.event.offer.sku for row in await claim(store, later)] == ["a", "b"]


async def test_drop_chat_drops_only_that_chats_pending_rows(store: _Store):
    users = {chat: await add_user(store, chat) for chat in (1, 2)}
    await queue(
        store, [Alert(1, 10, event("a")), Alert(1, 10, event("b")), Alert(2, 20, event("a"))], users
    )
    first = (await store.outbox_rows(1))[0]
    await store.mark_sent([first.id], T0)
    assert await store.drop_chat(1, "403: Forbidden: bot was blocked by the user") == 1
    statuses = [(row.chat_id, row.status) for row in await store.outbox_rows()]
    assert statuses == [(1, "sent"), (1, "dropped"), (2, "pending")]


async def test_drop_subscription(store: _Store):
    user = await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(1, 11, event("b"))], {1: user})
    assert await store.drop_subscription(1, 10, "muted") == 1
    assert await store.drop_subscription(2, 11, "forged chat") == 0
    assert [row.subscription_id for row in await claim(store, T0)] == [11]


async def test_snooze_defers_pending_rows_and_rows_queued_meanwhile(store: _Store):
    user = await add_user(store, 1)
    morning = T0 + timedelta(hours=10)
    await queue(store, [Alert(1, 10, event("a"))], {1: user})
    assert await store.defer_chat(1, morning) == 1
    await queue(store, [Alert(1, 10, event("b"))], {1: user}, T0 + timedelta(hours=1))
    assert await claim(store, morning - timedelta(seconds=1)) == []
    assert len(await claim(store, morning)) == 2
    assert await store.snoozed_until(1, T0) == morning
    # After the snooze, new alerts are due at once again.
    later = morning + timedelta(hours=1)
    await queue(store, [Alert(1, 10, event("c"))], {1: user}, later)
    assert (await store.outbox_rows())[-1].due_at == later


async def test_last_alerts_at_answers_a_whole_refresh_in_one_query(store: _Store):
    user = await add_user(store, 1)
    key = ("acme", "h100", "MSK-1")
    async with store._db.access() as connection:
        assert await last_alerts_at(connection, []) == {}
        assert await last_alerts_at(connection, [(10, *key, "appeared")]) == {}
    await queue(store, [Alert(1, 10, event(at=T0))], {1: user}, T0)
    later = T0 + timedelta(hours=2)
    await queue(store, [Alert(1, 10, event(at=later))], {1: user}, later)
    await queue(store, [Alert(1, 11, event("a100", at=T0))], {1: user}, T0)
    wanted = [
        (10, *key, "appeared"),
        (10, *key, "price_drop"),
        (11, *key, "appeared"),
        (10, "acme", "h100", "SPB", "appeared"),
        (11, "acme", "a100", "MSK-1", "appeared"),
        (10, *key, "appeared"),  # asked twice: answered once
    ]
    async with store._db.access() as connection:
        found = await last_alerts_at(connection, wanted)
    assert found == {(10, *key, "appeared"): later, (11, "acme", "a100", "MSK-1", "appeared"): T0}
    assert cooldown_key(Alert(1, 10, event(at=T0))) == (10, *key, "appeared")


async def test_purge_keeps_pending_rows(store: _Store):
    user = await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(1, 10, event("b"))], {1: user})
    first = (await store.outbox_rows())[0]
    await store.mark_sent([first.id], T0)
    assert await store.purge_outbox(T0 + timedelta(days=1)) == 1
    assert [row.event.offer.sku for row in await store.outbox_rows()] == ["b"]


def test_next_local_time():
    # 12:00 UTC is 15:00 in Moscow: the next 08:00 Moscow is tomorrow 05:00 UTC.
    assert next_local_time(T0, "Europe/Moscow", 8 * 60) == datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    # 02:00 UTC is 05:00 Moscow: 08:00 Moscow is the same day.
    early = datetime(2026, 11, 29, 2, 0, tzinfo=UTC)
    assert next_local_time(early, "Europe/Moscow", 8 * 60) == datetime(
        2026, 11, 29, 5, 0, tzinfo=UTC
    )
    # Exactly at the time: the next day's.
    assert next_local_time(T0, "UTC", 12 * 60) == T0 + timedelta(days=1)
    # An unknown zone reads as Moscow time.
    assert next_local_time(T0, "Mars/Olympus", 8 * 60) == datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    # DST: 08:00 in Berlin is 07:00 UTC in winter and 06:00 UTC in summer.
    before_change = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    assert next_local_time(before_change, "Europe/Berlin", 8 * 60) == datetime(
        2026, 3, 29, 6, 0, tzinfo=UTC
    )


async def test_enqueue_writes_the_alerts_own_dedupe_key(store: _Store):
    user = await add_user(store, 1)
    alert = Alert(1, 10, event("a"))
    await queue(store, [alert], {1: user})
    async with store._db.access() as connection:
        cursor = await connection.execute("SELECT dedupe_key FROM outbox")
        rows = await cursor.fetchall()
    assert [row[0] for row in rows] == [alert.dedupe_key]
