"""End-to-end harness: the real application, long-polling a fake Bot API, on a temp SQLite file."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bot.app import build_application
from bot.chart_pool import ChartPool
from bot.config import Settings
from bot.conversation import utc_now
from bot.replica import ElectionFactory
from bot.runtime import Application
from monitor.users import User
from storage import Store
from tests.fakes.providers import FakeProviders, all_sites
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually

TOKEN = "4242:e2e-secret-TOKEN_value"
CHAT = 501
# The sender's idle poll (bot.app.DELIVERY_POLL_S, 1 s in production). An alert that a
# refresh queued while its chat was still inside the gap after a reply waits for that poll;
# a test would sit through it. A test of the wake itself sets it to an hour.
DELIVERY_POLL_S = 0.1


@pytest.fixture
async def telegram() -> AsyncIterator[FakeTelegram]:
    fake = FakeTelegram()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.sqlite3"


def make_settings(telegram: FakeTelegram, db_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "bot_token": TOKEN,
        "db_path": db_path,
        "telegram_api_url": telegram.base_url,
        # Scheduled scraping would reach the real providers; monitor tests point it at fakes.
        "monitor": False,
        # The ops server (/healthz, /metrics) on a free loopback port: tests run side by side.
        "ops_host": "127.0.0.1",
        "ops_port": 0,
        # A failing fake site is retried at once: the tests prove the retry, not the wait.
        "scrape_backoff_s": 0.01,
        # Telegram's per-chat gap is the limiter's (tests/bot/test_limiter.py and
        # test_delivery.py prove it on an injected clock). Kept at 1 s here, an alert right
        # after a reply to its chat waited out the second and then the sender's idle poll.
        "send_chat_interval_s": 0.05,
    }
    values.update(overrides)
    # model_validate skips the environment and .env: the test decides every value.
    return Settings.model_validate(values)


@asynccontextmanager
async def running_app(
    telegram: FakeTelegram,
    db_path: Path,
    *,
    throttle_interval: float = 0.0,
    clock: Callable[[], float] = time.time,
    handle_as_tasks: bool = True,
    election: ElectionFactory | None = None,
    wall_clock: Callable[[], datetime] | None = None,
    warm_charts: bool = False,
    delivery_poll_s: float = DELIVERY_POLL_S,
    charts: ChartPool | None = None,
    **settings: object,
) -> AsyncIterator[Application]:
    """Start the bot as production does (polling), and stop it cleanly afterwards.

    With an `election`, the replica starts as a follower: the caller decides when it leads.
    """
    application = await build_application(
        make_settings(telegram, db_path, **settings),
        token=TOKEN,
        api_url=telegram.base_url,
        throttle_interval=throttle_interval,
        clock=clock,
        election=election,
        wall_clock=wall_clock or utc_now,
        warm_charts=warm_charts,
        delivery_poll_s=delivery_poll_s,
        charts=charts,
    )
    started_at = len(telegram.calls)
    polling = asyncio.create_task(
        application.run_polling(handle_signals=False, handle_as_tasks=handle_as_tasks)
    )
    try:
        if election is None:
            # aiogram runs the startup hooks (webhook, commands), then getMe, then long-polls.
            await telegram.wait_for_call("getMe", after=started_at)
        else:
            await asyncio.wait_for(application.started.wait(), 10)
        yield application
    finally:
        await application.stop()
        await asyncio.wait_for(polling, 10)
        await application.close()


@asynccontextmanager
async def monitored_app(
    telegram: FakeTelegram, db_path: Path, **settings: Any
) -> AsyncIterator[tuple[Application, FakeProviders]]:
    """`running_app` (its keywords, `charts=` and the like, and settings) with its monitor on,
    scraping every fake provider site, and the sites (a test may make one fail)."""
    async with (
        FakeProviders(all_sites()) as sites,
        running_app(telegram, db_path, monitor=True, **settings, **sites.urls()) as application,
    ):
        yield application, sites


async def scraped_every_site(application: Application, since: datetime) -> None:
    """Wait for the running app's own first scrape of all three fake sites: a success after
    `since`, so health a seeded history left behind does not count. Stored moments keep whole
    seconds, so `since` is taken to its second."""
    since = since.replace(microsecond=0)

    async def scraped() -> bool:
        health = await application.store.provider_health()
        done = [h for h in health if h.last_success_at is not None and h.last_success_at >= since]
        return len(done) == 3

    await eventually(scraped)


async def stored_user(db_path: Path, chat_id: int = CHAT) -> User:
    """The user as the database holds it, read through a second connection (WAL allows it)."""
    store = await Store.open(db_path)
    try:
        user = await store.get_user(chat_id)
    finally:
        await store.close()
    assert user is not None
    return user
