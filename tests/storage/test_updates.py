"""Webhook update claims (storage.updates), on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storage import Store
from storage.updates import KEEP_UPDATES

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=30)


async def test_the_first_claim_is_mine_a_second_is_busy_until_done(store: Store):
    assert await store.claim_update(7, "a", NOW, LEASE) == "mine"
    assert await store.claim_update(7, "b", NOW + timedelta(seconds=1), LEASE) == "busy"
    await store.finish_update(7, "b")  # not b's claim: changes nothing
    assert await store.claim_update(7, "b", NOW + timedelta(seconds=2), LEASE) == "busy"
    await store.finish_update(7, "a")
    assert await store.claim_update(7, "b", NOW + timedelta(seconds=3), LEASE) == "done"
    # Done stays done, however late the retry.
    assert await store.claim_update(7, "b", NOW + timedelta(hours=1), LEASE) == "done"


async def test_a_lapsed_claim_is_taken_over_and_the_first_holder_cannot_finish_it(store: Store):
    assert await store.claim_update(8, "frozen", NOW, LEASE) == "mine"
    assert await store.claim_update(8, "b", NOW + LEASE + timedelta(seconds=1), LEASE) == "mine"
    await store.finish_update(8, "frozen")  # woke up: its claim is b's now
    assert await store.claim_update(8, "c", NOW + 3 * LEASE, LEASE) == "mine"


async def test_a_released_claim_can_be_taken_at_once(store: Store):
    assert await store.claim_update(9, "a", NOW, LEASE) == "mine"
    await store.release_update(9, "a")
    assert await store.claim_update(9, "b", NOW, LEASE) == "mine"


async def test_claims_older_than_a_day_are_forgotten(store: Store):
    await store.claim_update(1, "a", NOW - KEEP_UPDATES - timedelta(minutes=1), LEASE)
    await store.claim_update(2, "a", NOW, LEASE)
    assert await store.forget_updates(NOW) == 1
    assert await store.claim_update(2, "b", NOW, LEASE) == "busy"
