"""storage.measurements: each user's own measured speed (schema/0020), on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from monitor.speed_measurements import StoredSpeed
from storage import Store
from tests.storage.conftest import Place

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
SPEED = StoredSpeed("RTX 4090", 1, 1950.0, 2411.5, "8b qlora tokens=1024 bs=4", T0)


async def test_a_users_speed_is_read_back_and_nobody_elses(store: Store):
    await store.save_speed(7, SPEED)
    assert await store.speed_of(7) == SPEED
    assert await store.speed_of(8) is None


async def test_a_new_measurement_replaces_the_one_before(store: Store):
    await store.save_speed(7, SPEED)
    later = StoredSpeed("A100 80GB SXM", 2, 3100.0, 3600.0, "8b lora", T0 + timedelta(days=1))
    await store.save_speed(7, later)
    assert await store.speed_of(7) == later


async def test_replicas_share_the_measurements(place: Place):
    first, second = await place.open(), await place.open()
    try:
        await first.save_speed(7, SPEED)
        assert await second.speed_of(7) == SPEED
    finally:
        await first.close()
        await second.close()
