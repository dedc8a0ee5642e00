"""storage.refresh: a refresh's one read (load) and its one write transaction (commit)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from monitor.alerts import Alert
from monitor.cards import CardFilter
from monitor.diff import Tracked
from monitor.events import Event, EventKind
from monitor.freshness import Stale
from monitor.parts import PartRuns, PartState, PartStatus
from monitor.plan import Failed, Healthy, RefreshPlan
from monitor.queueing import Hold, Queued
from monitor.scrape import NetworkError
from monitor.users import QuietHours
from storage import Store
from storage.database import SqliteDatabase
from storage.migrations import bundled_migrations, migrate
from storage.postgres import PgDatabase
from storage.refresh import FROZEN_COMMIT_S, _still_leading
from storage.sql import moment_value
from tests.factories import make_offer
from tests.polling import eventually
from tests.store_helpers import outbox_rows, set_blocked

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def queued(
    chat: int, sub: int, sku: str, *, at: datetime = T0, cooling: timedelta = HOUR
) -> Queued:
    event = Event(EventKind.APPEARED, make_offer(sku, 300.0), at)
    alert = Alert(chat, sub, event)
    return Queued(alert, alert.dedupe_key, at, False, at + cooling)


def good_plan(
    revision: int, skus: tuple[str, ...], *rows: Queued, at: datetime = T0
) -> RefreshPlan:
    offers = tuple(make_offer(sku, 300.0) for sku in skus)
    return RefreshPlan(
        Healthy(len(offers), 1.5, at),
        revision=revision,
        fetched_at=at,
        parts=(PartStatus("", PartState.OK, len(offers), 0, PartRuns()),),
        tracked={offer.key: Tracked(offer) for offer in offers},
        offers=offers,
        queued=rows,
        queued_at=at,
    )


async def test_a_commit_writes_everything_and_the_next_load_reads_it_back(store: Store):
    empty = await store.load("acme", T0)
    assert (empty.revision, empty.tracked, empty.part_runs, empty.last_alerts) == (0, {}, {}, {})
    assert await store.commit("acme", good_plan(0, ("a", "b"), queued(1, 10, "a"))) == 1
    state = await store.load("acme", T0)
    assert state.revision == 1
    assert sorted(key[1] for key in state.tracked) == ["a", "b"]
    assert state.part_runs == {"": PartRuns()}
    assert state.last_alerts == {(10, "acme", "a", "MSK-1", "appeared"): T0}
    (health,) = await store.provider_health()
    assert (health.offer_count, health.last_success_at, health.consecutive_failures) == (2, T0, 0)
    assert [row.event.offer.sku for row in await outbox_rows(store)] == ["a"]
    assert len(await store.price_series(CardFilter(gpu="RTX 4090"), T0)) == 2  # the change points


async def test_a_commit_from_a_superseded_load_writes_nothing(store: Store):
    """Two replicas leading at once for a moment: both loaded revision 0, one commits first."""
    assert await store.commit("acme", good_plan(0, ("a",), queued(1, 10, "a"))) == 1
    later = T0 + HOUR
    stale = good_plan(0, ("b",), queued(1, 10, "b", at=later), at=later)
    assert await store.commit("acme", stale) is None
    state = await store.load("acme", later)
    assert state.revision == 1
    assert [key[1] for key in state.tracked] == ["a"]
    assert [row.event.offer.sku for row in await outbox_rows(store)] == ["a"]
    (health,) = await store.provider_health()
    assert health.last_success_at == T0
    # The same plan made from the state as it now is goes through; other providers never
    # held it back.
    assert await store.commit("acme", good_plan(1, ("b",), at=later)) == 0
    assert await store.commit("other", good_plan(0, ())) == 0
    assert (await store.load("acme", later)).revision == 2


async def test_a_failed_fetch_counts_without_moving_the_revision(store: Store):
    await store.commit("acme", good_plan(0, ("a",)))
    failure = RefreshPlan(Failed(NetworkError("acme", "refused"), 20.0, T0 + HOUR))
    assert await store.commit("acme", failure) == 0
    state = await store.load("acme", T0 + HOUR)
    assert state.revision == 1  # a refresh that loaded before the failure still commits
    assert [key[1] for key in state.tracked] == ["a"]
    (health,) = await store.provider_health()
    assert (health.consecutive_failures, health.last_error_class) == (1, "NetworkError")


async def test_a_failed_parts_rows_keep_their_time_and_read_as_stale(store: Store):
    """On both backends: a commit in which the cloud part failed keeps its offer's time, the
    next load sees that part failed, and readers see the offer stale, then expired."""
    server, cloud = make_offer("server", 300.0), make_offer("cloud", 50.0)
    statuses = (
        PartStatus("server", PartState.OK, 1, 0, PartRuns()),
        PartStatus("cloud", PartState.OK, 1, 0, PartRuns()),
    )
    first = {
        server.key: Tracked(server, 0, "server", T0),
        cloud.key: Tracked(cloud, 0, "cloud", T0),
    }
    await store.commit(
        "acme",
        RefreshPlan(Healthy(2, 1.0, T0), 0, T0, statuses, first, (server, cloud)),
    )
    later = T0 + HOUR / 6
    error = NetworkError("acme", "refused")
    held = (
        statuses[0],
        PartStatus("cloud", PartState.FAILED, 0, 1, PartRuns(failures=1), error),
    )
    second = {**first, server.key: Tracked(server, 0, "server", later)}
    await store.commit("acme", RefreshPlan(Healthy(2, 1.0, later), 1, later, held, second))
    state = await store.load("acme", later)
    assert state.tracked[cloud.key].seen_at == T0
    assert state.health is not None
    assert not state.health.failing
    assert [p.part for p in state.health.troubled_parts] == ["cloud"]
    observed = {item.offer.sku: item for item in await store.observed_offers(later)}
    assert (observed["cloud"].observed_at, observed["cloud"].stale) == (
        T0,
        Stale(PartState.FAILED, "NetworkError"),
    )
    assert (observed["server"].observed_at, observed["server"].stale) == (later, None)
    store.expire_stale_after(HOUR / 2)
    expired = {item.offer.sku: item.expired for item in await store.observed_offers(T0 + HOUR)}
    assert expired == {"server": False, "cloud": True}


async def test_load_reads_only_cooldowns_still_running_and_of_this_provider(store: Store):
    first = (queued(1, 10, "a", cooling=HOUR), queued(1, 10, "b", cooling=3 * HOUR))
    await store.commit("acme", good_plan(0, ("a", "b"), *first))
    later = T0 + HOUR
    second = (
        queued(1, 11, "b", at=later, cooling=3 * HOUR),
        queued(1, 10, "b", at=later, cooling=3 * HOUR),
    )
    await store.commit("acme", good_plan(1, ("a", "b"), *second, at=later))
    other = queued(1, 12, "c")
    other = other._replace(alert=other.alert._replace(event=_elsewhere(other.alert.event)))
    await store.commit("other", good_plan(0, (), other))
    # Sub 10 heard of "a" at T0 for an hour: over. Of "b" at T0 for three hours, and again
    # at T0+1h: the latest is what a cooldown runs from.
    found = (await store.load("acme", T0 + 2 * HOUR)).last_alerts
    assert found == {
        (10, "acme", "b", "MSK-1", "appeared"): later,
        (11, "acme", "b", "MSK-1", "appeared"): later,
    }
    assert (await store.load("acme", T0 + 4 * HOUR)).last_alerts == {}


def _elsewhere(event: Event) -> Event:
    return Event(event.kind, make_offer(event.offer.sku, 300.0, provider="other"), event.at)


async def test_load_reads_the_chats_that_may_not_be_alerted_now(store: Store):
    for chat in (1, 2, 3, 4):
        await store.ensure_user(chat, language="ru", timezone="Asia/Novosibirsk", now=T0)
    await store.set_quiet_hours(1, QuietHours(23 * 60, 8 * 60))
    await set_blocked(store, 2, True)
    await store.defer_chat(3, T0 + 8 * HOUR)
    await store.defer_chat(4, T0 - HOUR)  # over already
    await store.defer_chat(5, T0 + HOUR)  # a chat with no user row
    holds = (await store.load("acme", T0)).holds
    assert holds == {
        1: Hold("Asia/Novosibirsk", QuietHours(23 * 60, 8 * 60)),
        2: Hold("Asia/Novosibirsk", blocked=True),
        3: Hold(snoozed_until=T0 + 8 * HOUR),
        5: Hold(snoozed_until=T0 + HOUR),
    }


async def test_rows_queued_before_0010_keep_their_cooldown(
    empty_database: SqliteDatabase | PgDatabase,
):
    """The migration gives old rows their subscription's cooldown (6 h for one deleted)."""
    database = empty_database
    await migrate(database, bundled_migrations()[:9])
    stamp = moment_value(database.dialect, T0, "microseconds")
    async with database.transaction() as connection:
        await connection.execute(
            "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
            " VALUES (1, 'ru', 'UTC', ?, ?)",
            (stamp, stamp),
        )
        await connection.execute(
            "INSERT INTO subscriptions (id, chat_id, filter, cooldown_s, created_at)"
            " VALUES (10, 1, '{}', 3600, ?)",
            (stamp,),
        )
        for sub, sku in ((10, "a"), (99, "b")):
            await connection.execute(
                "INSERT INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider,"
                " sku, location, payload, created_at, due_at)"
                " VALUES (1, ?, ?, 'appeared', 'acme', ?, 'MSK-1', '{}', ?, ?)",
                (sub, f"{sub}|{sku}", sku, stamp, stamp),
            )
    await migrate(database)
    migrated = Store(database)
    a, b = (10, "acme", "a", "MSK-1", "appeared"), (99, "acme", "b", "MSK-1", "appeared")
    assert (await migrated.load("acme", T0 + HOUR / 2)).last_alerts == {a: T0, b: T0}
    assert (await migrated.load("acme", T0 + HOUR)).last_alerts == {b: T0}
    assert (await migrated.load("acme", T0 + 6 * HOUR)).last_alerts == {}


async def take_lease(store: Store, holder: str, term: int) -> None:
    """Write the lease row as storage.leader would have left it: `holder` leads at `term`."""
    async with store.database.write() as connection:
        await connection.execute(
            "INSERT INTO leader_lease (singleton, holder, term, expires_at)"
            " VALUES (true, ?, ?, now() + interval '1 minute')"
            " ON CONFLICT (singleton) DO UPDATE SET holder = excluded.holder,"
            " term = excluded.term, expires_at = excluded.expires_at",
            (holder, term),
        )


@pytest.mark.postgresql_only
async def test_a_stale_leaders_commits_are_refused_good_or_failed(store: Store):
    term: list[int | None] = [1]
    store.fence_refreshes(lambda: term[0])
    await take_lease(store, "a", 1)
    assert await store.commit("acme", good_plan(0, ("a",))) == 0  # the leader's own term
    await take_lease(store, "b", 2)  # b took over while a was frozen; a still thinks it leads
    assert await store.commit("acme", good_plan(1, ("a", "b"), queued(1, 10, "b"))) is None
    failure = RefreshPlan(Failed(NetworkError("acme", "refused"), 20.0, T0 + HOUR))
    assert await store.commit("acme", failure) is None  # a failed refresh is fenced as well
    (health,) = await store.provider_health()
    assert (health.offer_count, health.consecutive_failures) == (1, 0)
    assert (await store.load("acme", T0)).revision == 1
    assert await outbox_rows(store) == []
    term[0] = None  # a knows its lease ran out: nothing is even tried
    assert await store.commit("acme", failure) is None
    term[0] = 2  # as b: its commits go through
    assert await store.commit("acme", failure) == 0
    (health,) = await store.provider_health()
    assert health.consecutive_failures == 1


@pytest.mark.postgresql_only
async def test_a_leader_frozen_inside_its_commit_does_not_hold_the_takeover_off(store: Store):
    """The commit's FOR SHARE on the lease row would block a takeover for as long as the
    frozen leader stayed frozen; the server ends a session idle in it after FROZEN_COMMIT_S."""
    await take_lease(store, "a", 1)
    inside, thawed = asyncio.Event(), asyncio.Event()

    async def frozen_commit() -> None:
        async with store.database.transaction() as connection:
            assert await _still_leading(connection, 1)
            inside.set()
            await thawed.wait()  # the process is stopped: no statement, no COMMIT
            await connection.execute("SELECT 1")

    committing = asyncio.ensure_future(frozen_commit())
    await asyncio.wait_for(inside.wait(), 10)

    async def takeover() -> bool:
        async with store.database.write() as connection:
            await connection.execute("SET lock_timeout = 100")
            try:
                await connection.execute("UPDATE leader_lease SET holder = 'b', term = 2")
            except asyncpg.LockNotAvailableError:
                return False
            finally:
                await connection.execute("RESET lock_timeout")
        return True

    started = time.monotonic()
    await eventually(takeover, FROZEN_COMMIT_S + 5, every=0.2)
    assert time.monotonic() - started >= FROZEN_COMMIT_S - 0.5  # the lock held until then
    thawed.set()
    # Its session is gone (the server ended it), and nothing of it committed.
    with pytest.raises((asyncpg.PostgresConnectionError, asyncpg.InterfaceError)):
        await committing
