import asyncio
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.delivery.limiter import CHAT_GAP_S
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState, Vat
from monitor.queueing import Queued
from monitor.users import QuietHours, User
from monitor.watch_words import parse_watch
from storage import Store
from storage.outbox_codec import event_from_json, event_to_json
from storage.outbox_insert import insert_alerts, prepare_alerts
from tests.factories import enqueue, make_offer
from tests.storage.conftest import Place
from tests.store_helpers import outbox_rows

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
    rows = await outbox_rows(store)
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
    stored = await outbox_rows(store)
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
CHAT_GAP = timedelta(seconds=CHAT_GAP_S)


async def claim(store: Store, now: datetime = T0, limit: int = 10, **options: Any) -> list[Any]:
    options.setdefault("per_chat", 20)
    options.setdefault("chat_gap", CHAT_GAP)
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


async def test_a_stale_holder_can_neither_release_nor_renew_a_claim_taken_since(store: Store):
    """The fence is in the statement: a sender frozen past its lease (its own deadline said
    held just before) wakes with a token the rows no longer carry, and changes nothing."""
    await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(1, 11, event("b"))])
    stale = await claim(store, T0, token=111)
    ids = [row.id for row in stale]
    # Its lease runs out; another replica claims the chat with its own token.
    taken = await claim(store, T0 + LEASE, token=222)
    assert [row.id for row in taken] == ids
    assert await store.extend_claims(ids, T0 + 3 * LEASE, token=111) == 0
    assert await store.release(ids, token=111) == 0
    assert await store.retry_chat_later(1, ids, T0 + LEASE, "502", failed=True, token=111) == 0
    # Still the new holder's: nobody claims the chat until its lease ends, unchanged.
    assert await claim(store, T0 + 2 * LEASE - timedelta(seconds=1)) == []
    assert [(row.attempts, row.due_at) for row in await outbox_rows(store)] == [(0, T0)] * 2
    # The holder itself renews and releases.
    assert await store.extend_claims(ids, T0 + 3 * LEASE, token=222) == 2
    assert await claim(store, T0 + 2 * LEASE) == []
    assert await store.release(ids[1:], token=222) == 1
    assert await store.retry_chat_later(1, ids[:1], T0 + LEASE, "502", failed=True, token=222) == 2
    rows = await outbox_rows(store)
    assert [(row.attempts, row.last_error) for row in rows] == [(1, "502"), (0, None)]
    assert [row.id for row in await claim(store, T0 + LEASE)] == ids


async def test_a_claim_without_a_token_gets_one_of_its_own(store: Store):
    await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a"))])
    (row,) = await claim(store, T0)
    # Someone else's token does not match; unfenced calls (tests, tools) still work.
    assert await store.release([row.id], token=1) == 0
    assert await store.release([row.id]) == 1
    assert len(await claim(store, T0)) == 1


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


async def test_a_late_event_is_claimed_before_an_earlier_events_backlog(store: Store):
    chats = range(10, 40)  # two digits: the refresh inserts in dedupe-key (text) order
    for chat in (*chats, 100):
        await add_user(store, chat)
    popular = event("popular")  # one change fanned out: one event, as a refresh makes it
    await queue(store, [Alert(chat, chat, popular) for chat in chats], T0)
    first = await claim(store, T0, limit=5)
    assert [row.chat_id for row in first] == [10, 11, 12, 13, 14]
    await store.mark_sent([row.id for row in first], T0)
    later = T0 + timedelta(minutes=1)
    await queue(store, [Alert(100, 1000, event("rare", at=later))], later)
    # Events take turns: the rare one's first row goes in the next batch, beside the popular
    # one's next row, not after its 25 others.
    second = await claim(store, later, limit=5)
    assert [row.chat_id for row in second] == [15, 100, 16, 17, 18]


async def test_a_chat_with_matches_in_several_events_is_claimed_whole(store: Store):
    for chat in range(10, 30):
        await add_user(store, chat)
    popular = event("popular")
    alerts = [Alert(chat, chat, popular) for chat in range(10, 30)]
    # Chat 29 is the popular event's last row but the first of two others.
    alerts += [Alert(29, 290, event("b")), Alert(29, 291, event("c"))]
    await queue(store, alerts, T0)
    # Its turn comes early, and it comes with all three rows: one message for one refresh.
    # The next chat (one more row) would take the batch past four rows, so it waits.
    rows = await claim(store, T0, limit=4)
    assert [row.chat_id for row in rows] == [10, 29, 29, 29]
    assert {row.subscription_id for row in rows[1:]} == {29, 290, 291}
    # A chat bigger than the whole batch still goes, alone and whole.
    await store.release([row.id for row in rows])
    others = set(range(10, 29))
    assert [row.chat_id for row in await claim(store, T0, limit=1, skip_chats=others)] == [29] * 3


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
    rows = {row.id: row for row in await outbox_rows(store, 1)}
    assert [row.due_at for row in rows.values()] == [later, later]
    assert (rows[a.id].attempts, rows[a.id].last_error) == (1, "502: Bad Gateway")
    assert await claim(store, later - timedelta(seconds=1)) == []  # chat 2's is still leased
    # Same due time: the claim keeps the chat's order (by id).
    assert [row.event.offer.sku for row in await claim(store, later)] == ["a", "b"]


async def test_a_403_blocks_pauses_and_drops_only_that_chats_pending_rows(store: Store):
    for chat in (1, 2):
        await add_user(store, chat)
    await store.add_subscription(1, parse_watch("h100"))
    await queue(
        store,
        [
            Alert(1, 10, event("a")),
            Alert(1, 10, event("b")),
            Alert(2, 20, event("a")),
            Alert(3, 30, event("a")),  # a chat with no users row
        ],
    )
    first = (await outbox_rows(store, 1))[0]
    await store.mark_sent([first.id], T0)
    assert await store.block(1, refused="403: Forbidden: bot was blocked by the user") == 1
    statuses = [(row.chat_id, row.status) for row in await outbox_rows(store)]
    assert statuses == [(1, "sent"), (1, "dropped"), (2, "pending"), (3, "pending")]
    user = await store.get_user(1)
    assert user is not None
    assert user.blocked
    assert all(sub.paused for sub in await store.subscriptions_of(1))
    # Unknown to the users table, a refusing chat still loses its rows (or the 403 repeats);
    # a block without a 403 (Telegram's update) of such a chat is a LookupError.
    assert await store.block(3, refused="403: Forbidden") == 0
    assert [row.status for row in await outbox_rows(store, 3)] == ["dropped"]
    with pytest.raises(LookupError):
        await store.block(3)


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
    assert (await outbox_rows(store))[-1].due_at == later


async def test_purge_keeps_pending_rows(store: Store):
    await add_user(store, 1)
    await queue(store, [Alert(1, 10, event("a")), Alert(1, 10, event("b"))])
    first = (await outbox_rows(store))[0]
    await store.mark_sent([first.id], T0)
    assert await store.purge_outbox(T0 + timedelta(days=1)) == 1
    assert [row.event.offer.sku for row in await outbox_rows(store)] == ["b"]


async def test_enqueue_writes_the_alerts_own_dedupe_key(store: Store):
    await add_user(store, 1)
    alert = Alert(1, 10, event("a"))
    await queue(store, [alert])
    async with store._db.access() as connection:
        rows = await connection.fetchall("SELECT dedupe_key FROM outbox")
    assert [row[0] for row in rows] == [alert.dedupe_key]


# -- replicas sharing one PostgreSQL outbox ------------------------------------------------


@pytest.fixture
async def replicas(place: Place) -> AsyncIterator[tuple[Store, Store]]:
    """Two Stores on one database, as two replicas have: each its own pool of connections."""
    first, second = await place.open(), await place.open()
    yield first, second
    await first.close()
    await second.close()


async def backlog(store: Store, chats: range, rows_per_chat: int) -> None:
    for chat in chats:
        await add_user(store, chat)
    await queue(
        store,
        [
            Alert(chat, chat * 10 + n, event(f"sku-{n}"))
            for chat in chats
            for n in range(rows_per_chat)
        ],
    )


@pytest.mark.postgresql_only
async def test_replicas_claiming_at_once_never_get_the_same_row_or_chat(
    replicas: tuple[Store, Store],
):
    first, second = replicas
    chats = range(1, 41)
    await backlog(first, chats, rows_per_chat=3)
    holder: dict[int, tuple[int, int]] = {}  # chat -> the claim that got it
    claimed: dict[int, list[int]] = {}  # chat -> its rows' subscriptions, as claimed
    for round_ in range(12):
        # Three claims from each replica at the same moment; the per-chat bound leaves each
        # chat a row, there for the taking (and it must not go).
        batches = await asyncio.gather(
            *(
                claim(store, T0, limit=8, per_chat=2)
                for store in (first, second, first, second, first, second)
            )
        )
        for number, batch in enumerate(batches):
            for row in batch:
                assert holder.setdefault(row.chat_id, (round_, number)) == (round_, number)
                claimed.setdefault(row.chat_id, []).append(row.subscription_id)
    assert set(claimed) == set(chats)  # every chat to exactly one claim
    for chat, subscriptions in claimed.items():
        # Its first two rows, in order: a claim takes a chat whole, up to the per-chat bound.
        assert subscriptions == [chat * 10, chat * 10 + 1]


@pytest.mark.postgresql_only
async def test_a_chat_held_by_one_replica_is_skipped_whole_by_the_other(
    replicas: tuple[Store, Store],
):
    first, second = replicas
    await backlog(first, range(1, 3), rows_per_chat=2)
    (held,) = {row.chat_id for row in await claim(first, T0, limit=1)}
    # Its second row is due and unclaimed, but the chat is the first replica's: order.
    assert {row.chat_id for row in await claim(second, T0)} == {3 - held}


@pytest.mark.postgresql_only
async def test_a_dead_replicas_rows_are_claimed_again_once_its_lease_ends(place: Place):
    dead = await place.open()
    await backlog(dead, range(1, 3), rows_per_chat=1)
    taken = await claim(dead, T0)
    await dead.close()  # killed: never marked sent, never released
    survivor = await place.open()
    try:
        assert await claim(survivor, T0 + LEASE - timedelta(seconds=1)) == []
        again = await claim(survivor, T0 + LEASE)
        assert [row.id for row in again] == [row.id for row in taken]
    finally:
        await survivor.close()


@pytest.mark.postgresql_only
async def test_a_chat_messaged_within_a_second_by_any_replica_waits(
    replicas: tuple[Store, Store],
):
    first, second = replicas
    await backlog(first, range(1, 3), rows_per_chat=2)
    sent = await claim(first, T0, per_chat=1)
    chat_1 = [row for row in sent if row.chat_id == 1]
    await first.mark_sent([row.id for row in chat_1], T0)
    await first.release([row.id for row in sent if row.chat_id != 1])
    # Chat 1's next row is due and no one holds the chat, but it was messaged at T0.
    soon = await claim(second, T0 + timedelta(milliseconds=500))
    assert {row.chat_id for row in soon} == {2}
    await second.release([row.id for row in soon])
    later = await claim(second, T0 + CHAT_GAP)
    assert {row.chat_id for row in later} == {1, 2}


async def test_deleting_a_watch_drops_its_queued_alerts_with_it(store: Store):
    await add_user(store, 1)
    first = await store.add_subscription(1, parse_watch("h100"))
    second = await store.add_subscription(1, parse_watch("4090"))
    await queue(store, [Alert(1, first.id, event("a")), Alert(1, second.id, event("b"))])
    assert not await store.delete_watch(2, first.id)  # a forged chat deletes nothing
    assert await store.delete_watch(1, first.id)
    assert await store.get_subscription(first.id) is None
    assert [row.subscription_id for row in await claim(store, T0)] == [second.id]
