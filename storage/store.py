"""The Store: the queries of the handlers, the refresh, the sender and /healthz, as typed
methods, gathered from one module per table group (storage.offers, .history, .subscriptions,
.outbox_claims, ...). The shared flood state (storage.flows), the heartbeats
(storage.replicas), the election (storage.leader) and the migrations hold their own SQL,
used through their own objects."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from monitor.users import Language, QuietHours, User
from storage.admin import AdminQueries
from storage.conversations import ConversationQueries
from storage.database import SqliteDatabase
from storage.history import HistoryQueries
from storage.measurements import MeasurementQueries
from storage.migrations import migrate
from storage.offers import OfferQueries
from storage.outbox_claims import OutboxClaims
from storage.outbox_marks import OutboxMarks, drop_pending
from storage.postgres import CONNECT_RETRY_S, PgDatabase
from storage.refresh import RefreshQueries
from storage.sql import Database, Dialect, moment_value, scalar
from storage.subscriptions import PAUSE_FOR_BLOCK, RESUME_AFTER_BLOCK, SubscriptionQueries
from storage.updates import UpdateQueries
from storage.users import user_from_row

# last_seen_at is for activity statistics, not for logic: refreshing it at most this often
# keeps a chatty user from costing a write per message.
LAST_SEEN_RESOLUTION = timedelta(minutes=5)


def _now() -> datetime:
    return datetime.now(UTC)


class Store(
    OfferQueries,
    HistoryQueries,
    SubscriptionQueries,
    OutboxClaims,
    OutboxMarks,
    RefreshQueries,
    AdminQueries,
    ConversationQueries,
    UpdateQueries,
    MeasurementQueries,
):
    """Users here; the other tables in their own modules (storage.offers, .history, ...)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    @classmethod
    async def open(cls, path: Path) -> Store:
        """Open (creating if needed) and migrate the SQLite database file at `path`."""
        return await cls._migrated(await SqliteDatabase.open(path))

    @classmethod
    async def connect(
        cls, url: str, *, retry_for_s: float = CONNECT_RETRY_S, max_size: int = 10
    ) -> Store:
        """Connect to PostgreSQL at `url` and create or migrate the schema (under a lock:
        replicas may start together). An unreachable server is retried for `retry_for_s`,
        then DatabaseUnavailableError; nothing is written to the local disk."""
        database = await PgDatabase.open(url, retry_for_s=retry_for_s, max_size=max_size)
        return await cls._migrated(database)

    @classmethod
    async def _migrated(cls, database: SqliteDatabase | PgDatabase) -> Store:
        try:
            await migrate(database)
        except BaseException:
            await database.close()
            raise
        return cls(database)

    @property
    def database(self) -> Database:
        """The connection pool itself, for what replicas share outside the Store's queries
        (storage.flows, storage.replicas)."""
        return self._db

    @property
    def dialect(self) -> Dialect:
        return self._db.dialect

    async def close(self) -> None:
        await self._db.close()

    async def ping(self) -> bool:
        async with self._db.access() as connection:
            return bool(await scalar(connection, "SELECT 1") == 1)

    async def probe_write(self) -> None:
        """Raises if the database cannot take a write lock now (see Database.probe_write)."""
        await self._db.probe_write()

    @property
    def write_error(self) -> str | None:
        """Why the last write failed, while no write has succeeded since; None if they work."""
        return self._db.write_error

    # -- users ---------------------------------------------------------------------------

    async def get_user(self, chat_id: int) -> User | None:
        async with self._db.access() as connection:
            row = await connection.fetchone("SELECT * FROM users WHERE chat_id = ?", (chat_id,))
        return None if row is None else user_from_row(row)

    async def ensure_user(
        self,
        chat_id: int,
        *,
        language: Language,
        timezone: str,
        now: datetime | None = None,
    ) -> User:
        """Return the user, creating them with the given defaults on first contact.

        An existing user keeps their own settings; only a stale last_seen_at is refreshed.
        """
        moment = now or _now()
        existing = await self.get_user(chat_id)
        if existing is not None:
            if moment - existing.last_seen_at < LAST_SEEN_RESOLUTION:
                return existing
            async with self._db.transaction() as connection:
                await connection.execute(
                    "UPDATE users SET last_seen_at = ? WHERE chat_id = ?",
                    (moment_value(connection.dialect, moment), chat_id),
                )
            return await self._require_user(chat_id)
        async with self._db.transaction() as connection:
            seen = moment_value(connection.dialect, moment)
            # DO NOTHING: two first updates from one user racing must not fail either one.
            await connection.execute(
                "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO NOTHING",
                (chat_id, language, timezone, seen, seen),
            )
        return await self._require_user(chat_id)

    async def set_language(self, chat_id: int, language: Language) -> User:
        return await self._update_user(chat_id, "language = ?", (language,))

    async def set_timezone(self, chat_id: int, timezone: str) -> User:
        return await self._update_user(chat_id, "timezone = ?", (timezone,))

    async def set_quiet_hours(self, chat_id: int, quiet_hours: QuietHours | None) -> User:
        start = None if quiet_hours is None else quiet_hours.start
        end = None if quiet_hours is None else quiet_hours.end
        return await self._update_user(chat_id, "quiet_start = ?, quiet_end = ?", (start, end))

    async def block(self, chat_id: int, *, refused: str | None = None) -> int:
        """The user blocked the bot: mark them and pause their subscriptions (marked as the
        block's, so `unblock` resumes exactly these), in one transaction. Returns how many
        paused.

        With `refused` (a 403's reason, from the sender), the chat's pending alerts are
        dropped with it in the same transaction, and a chat with no users row is no error:
        its rows must go, or the next pass meets the same 403.
        """
        async with self._db.transaction() as connection:
            known = await connection.execute(
                "UPDATE users SET blocked = 1 WHERE chat_id = ?", (chat_id,)
            )
            if refused is not None:
                await drop_pending(connection, chat_id, refused)
            elif not known:
                raise LookupError(f"no user with chat id {chat_id}")
            return await connection.execute(PAUSE_FOR_BLOCK, (chat_id,))

    async def unblock(self, chat_id: int) -> int:
        """The user is back (any update from them): clear the block and resume what the 403
        paused (`block`); what they paused themselves stays paused.
        Returns how many subscriptions resumed."""
        async with self._db.transaction() as connection:
            await connection.execute("UPDATE users SET blocked = 0 WHERE chat_id = ?", (chat_id,))
            return await connection.execute(RESUME_AFTER_BLOCK, (chat_id,))

    async def count_users(self) -> int:
        async with self._db.access() as connection:
            return int(await scalar(connection, "SELECT count(*) FROM users") or 0)

    async def _update_user(
        self, chat_id: int, assignments: str, values: tuple[object, ...]
    ) -> User:
        async with self._db.transaction() as connection:
            changed = await connection.execute(
                f"UPDATE users SET {assignments} WHERE chat_id = ?",  # noqa: S608 - fixed columns
                (*values, chat_id),
            )
            if not changed:
                raise LookupError(f"no user with chat id {chat_id}")
        return await self._require_user(chat_id)

    async def _require_user(self, chat_id: int) -> User:
        user = await self.get_user(chat_id)
        if user is None:
            raise LookupError(f"no user with chat id {chat_id}")
        return user
