"""The daily purge: sent and dropped alerts older than 30 days go, at start and every day, and
so does the history's detail past its retention."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.jobs import OUTBOX_KEEP, housekeeping
from monitor.alerts import Alert
from monitor.sizing_memory import REMEMBER_FOR
from storage import Store
from storage.history import record_change_points
from storage.history_tiers import DAY, FULL_DETAIL
from storage.sql import scalar
from tests.bot.test_e2e_delivery import the_event
from tests.factories import enqueue, make_offer
from tests.polling import eventually
from tests.store_helpers import outbox_rows


async def test_housekeeping_purges_old_rows_at_start_and_stops_at_once(tmp_path: Path):
    store = await Store.open(tmp_path / "h.sqlite3")
    try:
        now = datetime.now(UTC)
        old = now - OUTBOX_KEEP - timedelta(days=1)
        await store.ensure_user(1, language="ru", timezone="UTC", now=old)
        await enqueue(store, [Alert(1, 1, the_event())], old)
        await enqueue(store, [Alert(1, 2, the_event())], old)
        await enqueue(store, [Alert(1, 3, the_event())], now)
        first, second, recent = await outbox_rows(store)
        await store.mark_sent([first.id, recent.id], now)
        stop = asyncio.Event()
        task = asyncio.create_task(housekeeping(store, stop))

        async def purged() -> bool:
            return len(await outbox_rows(store)) == 2

        await eventually(purged)
        stop.set()
        await asyncio.wait_for(task, 30)  # not a day
        left = {row.id for row in await outbox_rows(store)}
    finally:
        await store.close()
    # The old pending row stays (never purged), and so does the recent sent one.
    assert left == {second.id, recent.id}


async def test_housekeeping_forgets_sizings_too_old_to_follow_up(tmp_path: Path):
    store = await Store.open(tmp_path / "h.sqlite3")
    try:
        now = datetime.now(UTC)
        await store.remember_sizing(1, "13b qlora", "ru", now - REMEMBER_FOR - timedelta(hours=1))
        await store.remember_sizing(2, "7b lora", "en", now - timedelta(hours=1))
        stop = asyncio.Event()
        task = asyncio.create_task(housekeeping(store, stop))

        async def forgotten() -> bool:
            async with store.database.access() as connection:
                return bool(await scalar(connection, "SELECT count(*) FROM sizing_memory") == 1)

        await eventually(forgotten)
        stop.set()
        await asyncio.wait_for(task, 30)
        kept = await store.last_sizing(2, now)
    finally:
        await store.close()
    assert kept is not None
    assert kept.command == "7b lora"


async def test_housekeeping_keeps_full_history_detail_for_its_retention_only(tmp_path: Path):
    store = await Store.open(tmp_path / "h.sqlite3")
    try:
        now = datetime.now(UTC)
        old = now - FULL_DETAIL - timedelta(days=2)
        offer = make_offer("a", 100)
        async with store.database.transaction() as connection:
            await record_change_points(connection, [offer], old)
            await record_change_points(connection, [make_offer("a", 90)], old + timedelta(days=1))
            await record_change_points(connection, [offer], now)
        stop = asyncio.Event()
        task = asyncio.create_task(housekeeping(store, stop))

        async def compacted() -> bool:
            async with store.database.access() as connection:
                return bool(await scalar(connection, "SELECT count(*) FROM offer_history") == 2)

        await eventually(compacted)
        stop.set()
        await asyncio.wait_for(task, 30)
        async with store.database.access() as connection:
            days = await scalar(
                connection,
                "SELECT count(DISTINCT start) FROM offer_history_tiers WHERE grain = ?",
                (DAY,),
            )
    finally:
        await store.close()
    assert days == 3  # each day's summary stays
