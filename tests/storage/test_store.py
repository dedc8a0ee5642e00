import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from monitor.scrape import NetworkError, ScrapeResult
from monitor.subscriptions import WatchEdit
from monitor.users import QuietHours
from storage import Store
from tests.factories import make_offer, store_snapshot
from tests.storage.conftest import Place
from tests.store_helpers import current_offers, set_blocked, set_write_fault

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


async def test_ensure_user_creates_once_and_keeps_settings(store: Store):
    created = await store.ensure_user(7, language="en", timezone="Asia/Omsk", now=T0)
    assert (created.language, created.timezone, created.quiet_hours, created.blocked) == (
        "en",
        "Asia/Omsk",
        None,
        False,
    )
    assert created.created_at == T0
    again = await store.ensure_user(7, language="ru", timezone="UTC", now=T0)
    assert again == created


async def test_last_seen_refreshes_only_when_stale(store: Store):
    await store.ensure_user(7, language="ru", timezone="UTC", now=T0)
    soon = await store.ensure_user(7, language="ru", timezone="UTC", now=T0 + timedelta(minutes=1))
    assert soon.last_seen_at == T0
    later = T0 + timedelta(minutes=10)
    stale = await store.ensure_user(7, language="ru", timezone="UTC", now=later)
    assert stale.last_seen_at == later
    assert stale.created_at == T0


async def test_setters_persist_across_reopen(place: Place):
    store = await place.open()
    await store.ensure_user(5, language="ru", timezone="Europe/Moscow")
    await store.set_language(5, "en")
    await store.set_timezone(5, "Asia/Vladivostok")
    await store.set_quiet_hours(5, QuietHours(23 * 60, 8 * 60))
    await set_blocked(store, 5, True)
    await store.close()

    reopened = await place.open()
    try:
        user = await reopened.get_user(5)
        assert user is not None
        assert (user.language, user.timezone, user.quiet_hours, user.blocked) == (
            "en",
            "Asia/Vladivostok",
            QuietHours(1380, 480),
            True,
        )
        cleared = await reopened.set_quiet_hours(5, None)
        assert cleared.quiet_hours is None
        assert await reopened.count_users() == 1
    finally:
        await reopened.close()


async def test_updating_missing_user_raises(store: Store):
    with pytest.raises(LookupError):
        await store.set_language(404, "en")


async def test_concurrent_first_contacts_do_not_collide(store: Store):
    users = await asyncio.gather(
        *(store.ensure_user(chat_id % 3, language="ru", timezone="UTC") for chat_id in range(30))
    )
    assert {user.chat_id for user in users} == {0, 1, 2}
    assert await store.count_users() == 3


async def test_unblock_resumes_only_what_the_block_paused(store: Store):
    from monitor.watch_words import parse_watch

    await store.ensure_user(5, language="ru", timezone="UTC")
    mine = await store.add_subscription(5, parse_watch("h100"))
    blocked_away = await store.add_subscription(5, parse_watch("4090"))
    assert await store.edit_watch(5, mine.id, WatchEdit(paused=True))  # the user's own pause
    assert await store.block(5) == 1  # only what was still running
    assert await store.unblock(5) == 1
    user = await store.get_user(5)
    assert user is not None
    assert not user.blocked
    paused = {sub.id: sub.paused for sub in await store.subscriptions_of(5)}
    assert paused == {mine.id: True, blocked_away.id: False}
    # A second unblock changes nothing: the mark went with the first.
    assert await store.unblock(5) == 0


# What each backend raises when the database cannot be written (the fault a test injects).
UNWRITABLE: dict[str, type[Exception]] = {
    "sqlite": sqlite3.OperationalError,
    "postgresql": asyncpg.ReadOnlySQLTransactionError,
}


async def test_write_faults_fail_writes_and_are_reported_until_a_write_succeeds(
    store: Store, backend: str
):
    unwritable = UNWRITABLE[backend]

    def read_only() -> None:
        raise unwritable("attempt to write a readonly database")

    await store.ensure_user(5, language="ru", timezone="UTC")
    set_write_fault(store, read_only)
    with pytest.raises(unwritable):
        await store.set_language(5, "en")
    with pytest.raises(unwritable):
        await store.probe_write()
    assert store.write_error is not None
    assert "attempt to write a readonly database" in store.write_error
    user = await store.get_user(5)
    assert user is not None
    assert user.language == "ru"  # the failed write left nothing
    set_write_fault(store, None)
    await store.probe_write()  # a probe proves nothing about a full disk: the error stays
    assert store.write_error is not None
    await store.set_language(5, "en")
    assert store.write_error is None


async def test_the_data_version_moves_with_each_refresh_and_failure_not_with_reads(
    store: Store,
):
    at = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    empty = await store.data_version()
    await store_snapshot(
        store, ScrapeResult("selectel", (make_offer("a", 100.0, provider="selectel"),), at)
    )
    refreshed = await store.data_version()
    await current_offers(store)
    assert await store.data_version() == refreshed != empty
    later = at + timedelta(minutes=10)
    await store_snapshot(
        store, ScrapeResult("selectel", (make_offer("a", 90.0, provider="selectel"),), later)
    )
    again = await store.data_version()
    await store.record_failure("hostkey", NetworkError("hostkey", "reset"), later, 1.0)
    assert len({empty, refreshed, again, await store.data_version()}) == 4
