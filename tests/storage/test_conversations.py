"""storage.conversations: each chat's last sizing, for the follow-ups that adjust it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from monitor.sizing_memory import REMEMBER_FOR, RememberedSizing
from storage import Store
from tests.storage.conftest import Place

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


async def test_the_last_sizing_of_a_chat_is_read_back(store: Store):
    await store.remember_sizing(7, "13b qlora ctx=4096", "ru", T0)
    assert await store.last_sizing(7, T0 + timedelta(minutes=5)) == RememberedSizing(
        "13b qlora ctx=4096", "ru", T0
    )
    assert await store.last_sizing(8, T0) is None  # another chat remembers nothing


async def test_a_new_answer_replaces_the_one_before(store: Store):
    await store.remember_sizing(7, "13b qlora", "ru", T0)
    later = T0 + timedelta(minutes=3)
    await store.remember_sizing(7, "70b full gpus=8", "en", later)
    assert await store.last_sizing(7, later) == RememberedSizing("70b full gpus=8", "en", later)


async def test_a_sizing_older_than_the_expiry_is_not_read(store: Store):
    await store.remember_sizing(7, "13b qlora", "ru", T0)
    assert await store.last_sizing(7, T0 + REMEMBER_FOR) is not None  # the last moment
    assert await store.last_sizing(7, T0 + REMEMBER_FOR + timedelta(seconds=1)) is None


async def test_housekeeping_forgets_only_expired_sizings(store: Store):
    await store.remember_sizing(1, "7b lora", "ru", T0)
    await store.remember_sizing(2, "8b qlora", "en", T0 + timedelta(hours=20))
    now = T0 + REMEMBER_FOR + timedelta(hours=1)
    assert await store.forget_sizings(now) == 1
    assert await store.last_sizing(1, T0) is None  # deleted, not merely expired
    assert await store.last_sizing(2, now) == RememberedSizing(
        "8b qlora", "en", T0 + timedelta(hours=20)
    )


async def test_replicas_share_the_memory(place: Place):
    """What one replica (or the process before a restart) remembered, another reads."""
    first, second = await place.open(), await place.open()
    try:
        await first.remember_sizing(7, "13b qlora ds=20000", "ru", T0)
        assert await second.last_sizing(7, T0) == RememberedSizing("13b qlora ds=20000", "ru", T0)
    finally:
        await first.close()
        await second.close()


async def test_a_config_models_shapes_are_kept_and_replaced(store: Store):
    """A sizing of a model from a config.json keeps its shapes (schema/0018); the next sizing
    of a catalog model clears them."""
    shapes = '{"id":"llama-9.8B (config.json)"}'
    await store.remember_sizing(7, "7b ctx=8192", "ru", T0, shapes)
    assert await store.last_sizing(7, T0) == RememberedSizing("7b ctx=8192", "ru", T0, shapes)
    await store.remember_sizing(7, "13b qlora", "ru", T0)
    assert await store.last_sizing(7, T0) == RememberedSizing("13b qlora", "ru", T0)
