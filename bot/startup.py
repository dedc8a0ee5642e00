"""Start-up probes: open the database the settings name, and reach Telegram, before serving.

Each turns what goes wrong into one line for the operator: a ConfigError (the settings are
wrong) or a StartupError (Telegram unreachable); `python -m bot` exits 2 on either.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.exceptions import TelegramNetworkError, TelegramServerError

from bot.config import ConfigError, Settings
from monitor.redaction import hide_userinfo
from storage import MigrationError, Store
from storage.lock import DatabaseInUseError, DatabaseLock
from storage.postgres import DatabaseUnavailableError

logger = logging.getLogger("gpuradar")


class StartupError(Exception):
    """Start-up gave up (Telegram unreachable); `str()` is the one line for the operator."""


async def open_store(settings: Settings) -> tuple[Store, DatabaseLock | None]:
    """Open and migrate the database the settings name; a failure is a configuration error.

    PostgreSQL (GPURADAR_DATABASE_URL) is shared by replicas and needs no lock; nothing is
    written to the local disk then. A SQLite file is locked first: a second process on the
    same file must not even migrate it.
    """
    if settings.database_url is not None:
        try:
            store = await Store.connect(
                settings.database_url.get_secret_value(), retry_for_s=settings.startup_retry_s
            )
        except (DatabaseUnavailableError, MigrationError) as error:
            # Neither holds the password (storage.postgres cuts it out of what asyncpg says).
            raise ConfigError(f"cannot use database GPURADAR_DATABASE_URL: {error}") from None
        return store, None
    try:
        lock = DatabaseLock.acquire(settings.db_path)
    except DatabaseInUseError as error:
        raise ConfigError(str(error)) from None
    except OSError as error:
        raise ConfigError(
            f"cannot use database GPURADAR_DB_PATH={settings.db_path}: {error}"
        ) from error
    try:
        return await Store.open(settings.db_path), lock
    except (sqlite3.Error, OSError, MigrationError) as error:
        lock.release()
        raise ConfigError(
            f"cannot use database GPURADAR_DB_PATH={settings.db_path}: {error}"
        ) from error
    except BaseException:
        lock.release()
        raise


async def reach_telegram(
    bot: Bot,
    settings: Settings,
    *,
    budget_s: float,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """getMe until Telegram answers, retrying network errors and 5xx with a backoff for
    up to `budget_s`; then StartupError. A 401 is raised at once: retrying cannot fix it.
    """
    deadline = time.monotonic() + budget_s
    delay = 1.0
    while True:
        try:
            await bot.me()  # cached: start_polling's own getMe uses this answer
            return
        except (TelegramNetworkError, TelegramServerError) as error:
            left = deadline - time.monotonic()
            if left <= 0:
                raise StartupError(
                    f"cannot reach Telegram at GPURADAR_TELEGRAM_API_URL="
                    f"{hide_userinfo(settings.telegram_api_url)} (retried {budget_s:.0f} s):"
                    f" {error.message}"
                ) from None
            logger.warning("Telegram not reachable yet (%s); retrying", error.message)
            await sleep(min(delay, left))
            delay = min(delay * 2, 15.0)
