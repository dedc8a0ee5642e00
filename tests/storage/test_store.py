import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from monitor.users import QuietHours
from storage import Store

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path: Path):
    opened = await Store.open(tmp_path / "s.sqlite3")
    yield opened
    await opened.close()


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


async def test_setters_persist_across_reopen(tmp_path: Path):
    path = tmp_path / "p.sqlite3"
    store = await Store.open(path)
    await store.ensure_user(5, language="ru", timezone="Europe/Moscow")
    await store.set_language(5, "en")
    await store.set_timezone(5, "Asia/Vladivostok")
    await store.set_quiet_hours(5, QuietHours(23 * 60, 8 * 60))
    await store.set_blocked(5, True)
    await store.close()

    reopened = await Store.open(path)
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
