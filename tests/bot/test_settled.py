"""Start-up's order: replies first; what no reply needs soon (housekeeping's first pass, the
chart workers' warm-up) waits for each provider's first refresh (the first loads the index)."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.chart_pool import ChartPool
from bot.jobs import OUTBOX_KEEP, after
from monitor.alerts import Alert
from storage import Store
from storage.subscriptions import Undecoded
from tests.bot.conftest import CHAT, monitored_app
from tests.bot.test_e2e_delivery import the_event
from tests.factories import enqueue
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.store_helpers import outbox_rows


async def an_old_sent_alert(db_path: Path) -> None:
    """An alert sent long enough ago for housekeeping's first pass to purge it."""
    store = await Store.open(db_path)
    try:
        old = datetime.now(UTC) - OUTBOX_KEEP - timedelta(days=1)
        await store.ensure_user(CHAT + 1, language="ru", timezone="UTC", now=old)
        await enqueue(store, [Alert(CHAT + 1, 1, the_event())], old)
        (row,) = await outbox_rows(store)
        await store.mark_sent([row.id], old)
    finally:
        await store.close()


async def test_a_reply_goes_before_the_work_deferred_until_the_first_refreshes(
    telegram: FakeTelegram, db_path: Path, monkeypatch: pytest.MonkeyPatch
):
    await an_old_sent_alert(db_path)
    loading, release = asyncio.Event(), asyncio.Event()
    load = Store.active_subscriptions_lazily

    async def held_load(self: Store, after: int = 0, limit: int | None = None) -> Undecoded:
        loading.set()
        await release.wait()  # the index's first load, as long as the test wants
        return await load(self, after, limit)

    monkeypatch.setattr(Store, "active_subscriptions_lazily", held_load)
    pools: list[Executor] = []

    def executor() -> Executor:
        pools.append(ThreadPoolExecutor(1))  # no matplotlib: only when the workers start
        return pools[-1]

    async with monitored_app(
        telegram, db_path, warm_charts=True, charts=ChartPool(executor=executor)
    ) as (application, _):
        await asyncio.wait_for(loading.wait(), 30)
        after_help = telegram.mark()
        telegram.push_message(CHAT, "/help")
        await telegram.wait_for_call("sendMessage", after=after_help)
        # Answered while the index loads; nothing deferred has started.
        assert not application.settled.is_set()
        assert len(await outbox_rows(application.store)) == 1
        assert pools == []

        release.set()
        await asyncio.wait_for(application.settled.wait(), 30)

        async def purged() -> bool:
            return await outbox_rows(application.store) == []

        await eventually(purged)
        await eventually(lambda: len(pools) == 1)
    for pool in pools:
        pool.shutdown()


async def test_after_runs_at_the_latest_at_its_bound_if_never_ready():
    ran = asyncio.Event()

    async def run(stop: asyncio.Event) -> None:
        ran.set()

    never, stop = asyncio.Event(), asyncio.Event()
    await asyncio.wait_for(after(never, run, at_most_s=0.01)(stop), 30)
    assert ran.is_set()
