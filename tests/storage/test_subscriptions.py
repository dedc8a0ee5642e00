"""storage.subscriptions over a migrated temporary database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from monitor.alerts import DEFAULT_COOLDOWN_S
from monitor.subscriptions import (
    MAX_SUBSCRIPTIONS,
    AlertKind,
    SubscriptionLimitError,
    WatchEdit,
    WatchFilter,
)
from monitor.watch_words import parse_watch
from storage import Store
from storage.subscriptions import filter_from_json, filter_to_json
from tests.polling import eventually
from tests.storage.conftest import INTEGRITY_ERRORS, Place
from tests.store_helpers import set_blocked

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ALICE, BOB = 101, 202


async def add_user(store: Store, chat_id: int, *, blocked: bool = False) -> None:
    await store.ensure_user(chat_id, language="ru", timezone="Europe/Moscow", now=T0)
    if blocked:
        await set_blocked(store, chat_id, True)


@pytest.fixture
async def store(place: Place) -> AsyncIterator[Store]:
    opened = await place.open()
    await add_user(opened, ALICE)
    await add_user(opened, BOB)
    yield opened
    await opened.close()


H100 = WatchFilter(family="H100")


def test_json_round_trip_keeps_everything():
    watch = parse_watch(
        "70b qlora ctx=8192 h100 max=400 count=2 vram=80 total_vram=160 provider=immers,selectel"
        " location=msk kinds=in_stock,price_drop,below_target cooldown=1h"
    )
    assert watch.fit_need
    back = filter_from_json(filter_to_json(watch))
    assert back == watch
    assert dict(back.fit_need or {}) == dict(watch.fit_need)
    assert filter_from_json(filter_to_json(H100)) == H100


def test_json_is_readable_and_versioned():
    text = filter_to_json(WatchFilter(gpu="RTX 4090", location="Москва"))
    assert '"v": 1' in text
    assert "Москва" in text
    with pytest.raises(ValueError, match="format"):
        filter_from_json('{"v": 99}')


async def test_add_list_get(store: Store):
    first = await store.add_subscription(ALICE, H100, now=T0)
    second = await store.add_subscription(ALICE, parse_watch("4090 max=90"), cooldown_s=60)
    assert first.cooldown_s == DEFAULT_COOLDOWN_S
    assert second.cooldown_s == 60
    assert await store.subscriptions_of(ALICE) == [first, second]
    assert await store.subscriptions_of(BOB) == []
    assert await store.get_subscription(second.id) == second
    assert await store.get_subscription(9999) is None


async def test_cooldown_from_the_filter(store: Store):
    sub = await store.add_subscription(ALICE, parse_watch("h100 cooldown=30m"))
    assert sub.cooldown_s == 1800
    assert (await store.get_subscription(sub.id)) == sub


async def test_limit_is_per_user(store: Store):
    for _ in range(MAX_SUBSCRIPTIONS):
        await store.add_subscription(ALICE, H100)
    with pytest.raises(SubscriptionLimitError):
        await store.add_subscription(ALICE, H100)
    assert len(await store.subscriptions_of(ALICE)) == MAX_SUBSCRIPTIONS
    await store.add_subscription(BOB, H100)  # someone else is not affected
    first = (await store.subscriptions_of(ALICE))[0]
    assert await store.delete_watch(ALICE, first.id)
    await store.add_subscription(ALICE, H100)  # room again


async def test_only_the_owner_changes_a_subscription(store: Store):
    sub = await store.add_subscription(ALICE, H100)
    assert not await store.delete_watch(BOB, sub.id)
    assert not await store.edit_watch(BOB, sub.id, WatchEdit(paused=True))
    assert not await store.mute(BOB, sub.id, T0)
    assert await store.edit_watch(BOB, sub.id, WatchEdit.new_cap(100)) is None
    assert await store.get_subscription(sub.id) == sub
    assert await store.delete_watch(ALICE, sub.id)
    assert await store.get_subscription(sub.id) is None
    assert not await store.delete_watch(ALICE, sub.id)


async def test_pause_mute_and_active(store: Store):
    a = await store.add_subscription(ALICE, H100)
    b = await store.add_subscription(ALICE, H100)
    c = await store.add_subscription(BOB, H100)
    assert await store.edit_watch(ALICE, a.id, WatchEdit(paused=True))
    until = T0 + timedelta(hours=24)
    assert await store.mute(ALICE, b.id, until)
    muted = await store.get_subscription(b.id)
    assert muted is not None
    assert muted.muted_until == until
    # Paused ones are left out; muted ones stay, their mute ends by itself.
    assert [s.id for s in await store.active_subscriptions()] == [b.id, c.id]
    assert await store.edit_watch(ALICE, a.id, WatchEdit(paused=False))
    assert await store.mute(ALICE, b.id, None)
    assert [s.id for s in await store.active_subscriptions()] == [a.id, b.id, c.id]

    await add_user(store, 303, blocked=True)
    await store.add_subscription(303, H100)
    assert len(await store.active_subscriptions()) == 3  # a blocked user gets nothing


async def test_a_block_pauses_every_active_subscription(store: Store):
    for _ in range(3):
        await store.add_subscription(ALICE, H100)
    await store.add_subscription(BOB, H100)
    assert await store.block(ALICE) == 3
    assert await store.block(ALICE) == 0
    assert all(s.paused for s in await store.subscriptions_of(ALICE))
    assert [s.chat_id for s in await store.active_subscriptions()] == [BOB]


async def test_update_max_price(store: Store):
    sub = await store.add_subscription(ALICE, H100)
    capped = await store.edit_watch(ALICE, sub.id, WatchEdit.new_cap(250))
    assert capped is not None
    assert capped.filter.max_rub_per_gpu_hour == 250
    assert capped.filter.kinds == {AlertKind.IN_STOCK, AlertKind.BELOW_TARGET}
    assert await store.get_subscription(sub.id) == capped
    cleared = await store.edit_watch(ALICE, sub.id, WatchEdit.new_cap(None))
    assert cleared is not None
    assert cleared.filter == H100


async def test_deleting_the_user_deletes_their_subscriptions(store: Store):
    await store.add_subscription(ALICE, H100)
    async with store._db.transaction() as connection:
        await connection.execute("DELETE FROM users WHERE chat_id = ?", (ALICE,))
    assert await store.subscriptions_of(ALICE) == []


async def test_a_subscription_needs_a_user(store: Store):
    with pytest.raises(INTEGRITY_ERRORS):
        await store.add_subscription(999, H100)


async def test_every_writer_logs_the_subscriptions_it_changed(store: Store):
    latest, changed = await store.subscription_changes(None)
    assert (latest, changed) == (0, None)  # no reader state: reload everything
    assert await store.subscription_changes(0) == (0, set())
    a = await store.add_subscription(ALICE, H100)
    b = await store.add_subscription(BOB, H100)
    after_adds, changed = await store.subscription_changes(0)
    assert changed == {a.id, b.id}
    await store.mute(ALICE, a.id, T0)
    await store.delete_watch(BOB, b.id)
    latest, changed = await store.subscription_changes(after_adds)
    assert changed == {a.id, b.id}
    # Blocking a user changes no subscription row, but takes them out of the index.
    async with store._db.transaction() as connection:
        await connection.execute("UPDATE users SET blocked = 1 WHERE chat_id = ?", (ALICE,))
    after_block, changed = await store.subscription_changes(latest)
    assert changed == {a.id}
    assert await store.active_subscriptions_among({a.id, b.id}) == []
    # A reader that fell behind the pruning is told to reload.
    assert await store.prune_subscription_changes(keep=1) >= 4
    assert await store.subscription_changes(after_adds) == (after_block, None)
    assert await store.subscription_changes(after_block - 1) == (after_block, {a.id})


@pytest.mark.postgresql_only
async def test_replicas_changing_subscriptions_at_once_commit_their_changes_in_order(
    store: Store, place: Place
):
    """A reader remembers the last change it saw and asks for the ones after it: a smaller
    number committed after a larger one would be skipped for good. So a second writer waits
    for the first to commit before it numbers its change."""
    latest, _ = await store.subscription_changes(None)
    other = await place.open()
    try:
        async with store._db.transaction() as connection:
            await connection.execute(
                "INSERT INTO subscriptions (chat_id, filter, cooldown_s, created_at)"
                " VALUES (?, '{}', 60, now())",
                (ALICE,),
            )
            racing = asyncio.create_task(other.add_subscription(BOB, H100))

            async def waits_for_the_first() -> bool:
                async with store._db.access() as watcher:
                    waiting = await watcher.fetchall(
                        "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                        " AND database = (SELECT oid FROM pg_database"
                        "  WHERE datname = current_database())"
                    )
                return bool(waiting)

            await eventually(waits_for_the_first)
            assert not racing.done()
        second = await racing
        after, changed = await store.subscription_changes(latest)
        assert changed is not None
        assert len(changed) == 2
        # The racing writer's change was numbered after the first one committed.
        _, since_first = await store.subscription_changes(after - 1)
        assert since_first == {second.id}
    finally:
        await other.close()


async def test_one_edit_pauses_and_caps_at_once_and_only_for_its_chat(store: Store):
    sub = await store.add_subscription(ALICE, H100)
    both = WatchEdit(paused=True, cap_changed=True, cap=300)
    assert await store.edit_watch(BOB, sub.id, both) is None  # another chat's: untouched
    assert await store.get_subscription(sub.id) == sub
    edited = await store.edit_watch(ALICE, sub.id, both)
    assert edited is not None
    assert (edited.paused, edited.filter.max_rub_per_gpu_hour) == (True, 300)
    assert await store.get_subscription(sub.id) == edited
    resumed = await store.edit_watch(ALICE, sub.id, WatchEdit(paused=False))
    assert resumed is not None
    assert (resumed.paused, resumed.filter.max_rub_per_gpu_hour) == (False, 300)  # cap kept
