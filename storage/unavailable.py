"""What "storage is unavailable" means, typed, in one place: the errors after which the same
work succeeds once the database is back, as opposed to a bug in one statement.

The bot holds a message whose handler failed with one of these and answers it when storage
returns (bot.middlewares.hold); anything else is a bug, apologised for (bot.routers.errors).
"""

from __future__ import annotations

import sqlite3

from storage.postgres import UNWRITABLE_ERRORS, DatabaseReadOnlyError, DatabaseUnavailableError

# PostgreSQL gone, restarting, read-only or out of connections (with OSError and
# TimeoutError: a refused or timed-out connection, whichever driver); SQLite's file read-only,
# full or locked past its busy timeout (its OperationalError).
STORAGE_UNAVAILABLE: tuple[type[BaseException], ...] = (
    *UNWRITABLE_ERRORS,
    sqlite3.OperationalError,
    DatabaseUnavailableError,
    DatabaseReadOnlyError,
)
