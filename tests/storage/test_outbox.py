from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState, Vat
from monitor.queueing import Queued
from monitor.users import QuietHours, User
from storage import Store
from storage.outbox import (
    event_from_json,
    event_to_json,
    insert_alerts,
    prepare_alerts,
)
from tests.factories import enqueue, make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def event(sku: str = "h100", kind: EventKind = EventKind.APPEARED, at: datetime = T0) -> Event:
    return Event(
        kind,
        make_offer(sku, 320.0, gpu="H100 80GB"),
        at,
        old_stock=StockState.OUT_OF_STOCK if kind is EventKind.APPEARED else None,
    )


async def add_user(
    store: Store, chat_id: int, tz: str = "Europe/Moscow", quiet: QuietHours | None = None
) -> User:
    await store.ensure_user(chat_id, language="ru", timezone=tz, now=T0)
    return await store.set_quiet_hours(chat_id, quiet)


async def queue(store: Store, alerts: Iterable[Alert], now: datetime = T0) -> int:
    return await enqueue(store, alerts, now)


async def test_enqueue_is_idempotent_per_dedupe_key(store: Store):
    await add_user(store, 1)
    alerts = [Alert(1, 10, event("a")), Alert(1, 10, event("b")), Alert(1, 11, event("a"))]
    assert await queue(store, alerts) == 3
    assert await queue(store, alerts, T0 + timedelta(minutes=5)) == 0
    assert await queue(store, [*alerts, Alert(1, 10, event("c"))]) == 1
    rows = await store.outbox_rows()
    assert [(row.subscription_id, row.event.offer.sku) for row in rows] == [
        (10, "a"),
        (10, "b"),
        (11, "a"),
        (10, "c"),
    ]
    assert {row.status for row in rows} == {"pending"}
    assert await store.pending_count() == 4


async def test_insert_alerts_rolls_back_with_the_callers_transaction(store: Store):
    await add_user(store, 1)
    alert = Alert(1, 10, event())

    async def refresh_that_fails() -> None:
        async with store._db.transaction() as connection:
            row = Queued(alert, alert.dedupe_key, T0, False, T0)
            await insert_alerts(connection, prepare_alerts([row], T0))
            raise RuntimeError("the refresh failed after queueing")

    with pytest.raises(RuntimeError):
        await refresh_that_fails()
    assert await store.pending_count() == 0


async def test_rows_are_written_as_monitor_decided(store: Store):
    """Due time, held flag and cooldown end come from monitor.queueing; storage keeps them."""
    await add_user(store, 1)
    morning = T0 + timedelta(hours=8)
    now, held = Alert(1, 10, event("a")), Alert(1, 11, event("b"))
    rows = [
        Queued(now, now.dedupe_key, T0, False, T0 + timedelta(hours=6)),
        Queued(held, held.dedupe_key, morning, True, T0 + timedelta(hours=1)),
    ]
    async with store._db.transaction() as connection:
        assert await insert_alerts(connection, prepare_alerts(rows, T0)) == 2
    stored = await store.outbox_rows()
    assert [(r.created_at, r.due_at, r.held) for r in stored] == [
        (T0, T0, False),
        (T0, morning, True),
    ]
    state = await store.load("acme", T0 + timedelta(hours=2))
    assert state.last_alerts == {(10, "acme", "a", "MSK-1", "appeared"): T0}


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


LEASE = timedelta(minutes=5)


async def claim(store: Store, now: datetime = T0, limit: int = 10, **options: Any) -> list[Any]:
    options.setdefault("per_chat", 20)
    return await store.claim(now, limit=limit, lease=LEASE, **options)


async def test_claim_takes_due_pending_rows_oldest_first(store: Store):
    for chat in (1, 2, 3):
        await add_user(store, chat)
    await add_user(store, 3, quiet=QuietHours(0, 23 * 60 + 59))  # quiet nearly all day
    await queue(store, [Alert(2, 20, event("a"))], T0)
    await queue(
        store,
        [Alert(1, 10, event("b")), Alert(3, 30, event("c"))],
        T0 + timedelta(seconds=1),
    )
    assert await claim(store, T0 - timedelta(seconds=1)) == []
    due = await claim(store, T0 + timedelta(seconds=5))
    assert [(row.chat_id, row.event.offer.sku) for row in due] == [(2, "a"), (1, "b")]
    assert all(row.language == "ru" for row in due)
    await store.mark_sent([due[0].id], T0)
    await store.release([due[1].id])
    assert [row.chat_id for row in await claim(store, T0 + timedelta(seconds=5))] == [1]


async def test_a_claim_holds_rows_until_its_lease_ends_or_they_are_released(store: Store):
    for chat in (1, 2):
        await add_user(store, chat)
    await queue(store, [Alert(1, 10, event("a")), Alert(2, 20, event("a"))])
    first = await claim(store, T0, limit=1)
    assert [row.chat_id for row in first] == [1]
    # Another claimer (a second replica, later) skips the leased row.
    assert [row.chat_id for row in await claim(store, T0)] == [2]
    assert await claim(store, T0 + LEASE - timedelta(seconds=1)) == []
    # A dead claimer's lease runs out, and the rows are due again.
    assert [row.chat_id for row in await claim(store, T0 + LEASE)] == [1, 2]
    if store.dialect == "sqlite":  # one process: its claims at start were a dead one's
        assert await store.release_claims() == 2
        assert len(await claim(store, T0)) == 2
    else:  # replicas: another one's claims are never ours to drop
        with pytest.raises(RuntimeError, match="leases"):
            await store.release_claims()


async def test_claim_is_fair_and_skips_busy_chats(store: Store):
    for chat in (1, 2, 3):
        await add_user(store, chat)
    # Chat 1 has the oldest backlog, big enough to fill a whole batch by itself.
    await queue(store, [Alert(1, 10, event(f"x{i}")) for i in range(8)], T0)
    later = T0 + timedelta(seconds=1)
    await queue(store, [Alert(2, 20, event("y")), Alert(3, 30, event("z"))], later)
    rows = await claim(store, later, limit=8, per_chat=3)
    assert [row.chat_id for row in rows] == [1, 1, 1, 2, 3]
    assert [row.event.offer.sku for row in rows[:3]] == ["x0", "x1", "x2"]
    await store.release([row.id for row in rows])
    assert {row.chat_id for row in await claim(store, later, skip_chats={1, 3})} == {2}


async def test_retry_chat_later_moves_the_whole_chat_and_counts_the_try(store: Store):
    for chat in (1, 2):
        await add_user(store, chat)
    await queue(
        store, [Alert(1, 10, event("a")), Alert(1, 10, event("b")), Alert(2, 20, event("a"))]
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


async def test_drop_chat_drops_only_that_chats_pending_rows(store: Store):
    for chat in (1, 2):
        await add_user(store, chat)
    await queue(
        store, [Alert(1, 10, event("a")), Alert(1, 10, event("b")), Alert(2, 20, event("a"))]
    )
    first = (await store.outbox_rows(1))[0]
    await store.mark_sent([first.id], T0)
    assert await store.drop_chat(1, "403: Forbidden: bot was blocked by the user") == 1
    statuses = [(row.chat_id, row.status) for row in await store.outbox_rows()]
    assert statuses == [(1, "sent"), (1, "dropped"), (2, "pending")]


async def test_drop_subscription(store: Store):
    await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(1, 11, event("b"))])
    assert await store.drop_subscription(1, 10, "muted") == 1
    assert await store.drop_subscription(2, 11, "forged chat") == 0
    assert [row.subscription_id for row in await claim(store, T0)] == [11]


async def test_snooze_defers_pending_rows_and_rows_queued_meanwhile(store: Store):
    await add_user(store, 1)
    morning = T0 + timedelta(hours=10)
    await queue(store, [Alert(1, 10, event("a"))])
    assert await store.defer_chat(1, morning) == 1
    await queue(store, [Alert(1, 10, event("b"))], T0 + timedelta(hours=1))
    assert await claim(store, morning - timedelta(seconds=1)) == []
    assert len(await claim(store, morning)) == 2
    assert await store.snoozed_until(1, T0) == morning
    # After the snooze, new alerts are due at once again.
    later = morning + timedelta(hours=1)
    await queue(store, [Alert(1, 10, event("c"))], later)
    assert (await store.outbox_rows())[-1].due_at == later


async def test_purge_keeps_pending_rows(store: Store):
    await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(1, 10, event("b"))])
    first = (await store.outbox_rows())[0]
    await store.mark_sent([first.id], T0)
    assert await store.purge_outbox(T0 + timedelta(days=1)) == 1
    assert [row.event.offer.sku for row in await store.outbox_rows()] == ["b"]


async def test_enqueue_writes_the_alerts_own_dedupe_key(store: Store):
    await add_user(store, 1)
    alert = Alert(1, 10, event("a"))
    await queue(store, [alert])
    async with store._db.access() as connection:
        rows = await connection.fetchall("SELECT dedupe_key FROM outbox")
    assert [row[0] for row in rows] == [alert.dedupe_key]
