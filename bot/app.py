"""The composition root: the one place that builds and wires every part of the bot.

Nothing is built at import time; each factory takes what it needs as arguments, so tests
build the same application against a fake Bot API and a temporary database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.commands import set_bot_commands
from bot.config import ConfigError, Settings
from bot.delivery.sender import Sender
from bot.i18n import Translator, load_translators
from bot.middlewares.throttling import ThrottlingMiddleware
from bot.middlewares.user import UserMiddleware
from bot.routers import create_routers
from bot.scheduler import create_scheduler
from monitor.users import Language
from monitor.watchlist import Watchlist
from scrapers.http import Http
from scrapers.registry import create_scrapers
from scrapers.source import BoundSource
from storage import MigrationError, Store

logger = logging.getLogger("gpuradar")

# Seconds the client waits on one Bot API call (long polls add their own timeout on top).
REQUEST_TIMEOUT_S = 30.0


def create_bot(token: str, api_url: str) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url), timeout=REQUEST_TIMEOUT_S)
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))


def create_dispatcher(
    *,
    store: Store,
    translators: Mapping[Language, Translator],
    settings: Settings,
    throttle_interval: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
) -> Dispatcher:
    # Keyword data becomes handler parameters (aiogram's dependency injection).
    dispatcher = Dispatcher(
        store=store,
        translators=dict(translators),
        settings=settings,
        default_language=settings.default_language,
    )
    user_middleware = UserMiddleware(
        store, translators, settings.default_language, settings.timezone
    )
    throttling = ThrottlingMiddleware(throttle_interval, clock)
    for observer in (dispatcher.message, dispatcher.callback_query):
        # Order matters: throttling answers in the user's language, which the first one loads.
        observer.outer_middleware(user_middleware)
        observer.outer_middleware(throttling)
    dispatcher.include_routers(*create_routers())
    dispatcher.startup.register(on_startup)
    return dispatcher


async def on_startup(
    bot: Bot, translators: dict[Language, Translator], default_language: Language
) -> None:
    # Polling and a webhook exclude each other; pending updates are kept, not dropped.
    await bot.delete_webhook(drop_pending_updates=False)
    await set_bot_commands(bot, translators, default_language)


@dataclass
class Application:
    settings: Settings
    store: Store
    bot: Bot
    dispatcher: Dispatcher
    http: Http | None = None
    scheduler: AsyncIOScheduler | None = None

    async def run_polling(
        self, *, handle_signals: bool = True, handle_as_tasks: bool = True
    ) -> None:
        """Serve until stopped by a signal or by `stop()`."""
        await self.dispatcher.start_polling(
            self.bot,
            handle_signals=handle_signals,
            handle_as_tasks=handle_as_tasks,
            close_bot_session=False,
        )

    async def stop(self) -> None:
        # stop_polling raises RuntimeError when polling is not running, which is fine here.
        with contextlib.suppress(RuntimeError):
            await self.dispatcher.stop_polling()

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()
        await self.bot.session.close()
        await self.store.close()


async def open_store(settings: Settings) -> Store:
    """Open and migrate the database; a failure is a configuration error, not a crash."""
    try:
        return await Store.open(settings.db_path)
    except (sqlite3.Error, OSError, MigrationError) as error:
        raise ConfigError(
            f"cannot use database GPURADAR_DB_PATH={settings.db_path}: {error}"
        ) from error


async def build_application(
    settings: Settings,
    *,
    token: str,
    api_url: str,
    throttle_interval: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
) -> Application:
    """Open the database and build the bot; the caller owns `close()`."""
    store = await open_store(settings)
    try:
        translators = load_translators()
        bot = create_bot(token, api_url)
    except BaseException:
        await store.close()
        raise
    dispatcher = create_dispatcher(
        store=store,
        translators=translators,
        settings=settings,
        throttle_interval=throttle_interval,
        clock=clock,
    )
    application = Application(settings=settings, store=store, bot=bot, dispatcher=dispatcher)
    attach_delivery(application, translators)
    if settings.monitor:
        attach_monitor(application)
    return application


def attach_delivery(application: Application, translators: Mapping[Language, Translator]) -> None:
    """Send the outbox in the background for as long as the dispatcher runs."""
    store = application.store
    sender = Sender(
        application.bot,
        store,
        translators,
        on_blocked=store.pause_all,
        rate=application.settings.send_rate,
        default_language=application.settings.default_language,
    )
    stop = asyncio.Event()
    running: list[asyncio.Task[None]] = []

    async def start_delivery() -> None:
        stop.clear()
        running.append(asyncio.create_task(sender.run(stop), name="delivery"))

    async def stop_delivery() -> None:
        stop.set()
        while running:
            await running.pop()

    application.dispatcher.startup.register(start_delivery)
    application.dispatcher.shutdown.register(stop_delivery)


def attach_monitor(application: Application) -> None:
    """Scrape every provider on a schedule that starts and stops with the dispatcher."""
    http = Http()
    sources = [BoundSource(scraper, http) for scraper in create_scrapers(application.settings)]
    scheduler = create_scheduler(
        sources,
        application.store,
        Watchlist(application.store),
        interval_override_s=application.settings.refresh_seconds,
    )
    application.http, application.scheduler = http, scheduler

    async def start_monitor() -> None:
        scheduler.start()

    async def stop_monitor() -> None:
        # shutdown() cancels jobs still running; the last good snapshot stays in the store.
        scheduler.shutdown(wait=False)

    application.dispatcher.startup.register(start_monitor)
    application.dispatcher.shutdown.register(stop_monitor)
