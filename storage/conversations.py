"""Each chat's last sizing answer, so that a reply to it can adjust it (bot.routers.followup).

Kept in the database, not in a process, so that replicas sharing PostgreSQL share it: the
follow-up may reach another replica than the answer did. A chat has one row, replaced by
each new answer.
"""

from __future__ import annotations

from datetime import datetime

from monitor.sizing_memory import REMEMBER_FOR, RememberedSizing
from monitor.users import Language
from storage.sql import Database, moment_of, moment_value


class ConversationQueries:
    _db: Database

    async def remember_sizing(
        self,
        chat_id: int,
        command: str,
        language: Language,
        at: datetime,
        /,
        model: str | None = None,
    ) -> None:
        """Keep `command` as the chat's last sizing, replacing the one before; `model` is the
        shapes of a model from a config.json (schema/0018), None for a catalog model."""
        async with self._db.write() as connection:
            await connection.execute(
                "INSERT INTO sizing_memory (chat_id, command, language, remembered_at, model)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET"
                " command = excluded.command, language = excluded.language,"
                " remembered_at = excluded.remembered_at, model = excluded.model",
                (chat_id, command, language, moment_value(connection.dialect, at), model),
            )

    async def last_sizing(self, chat_id: int, now: datetime, /) -> RememberedSizing | None:
        """The chat's last sizing, unless it is older than REMEMBER_FOR at `now`."""
        async with self._db.access() as connection:
            row = await connection.fetchone(
                "SELECT command, language, remembered_at, model FROM sizing_memory"
                " WHERE chat_id = ? AND remembered_at >= ?",
                (chat_id, moment_value(connection.dialect, now - REMEMBER_FOR)),
            )
        if row is None:
            return None
        return RememberedSizing(row[0], row[1], moment_of(row[2]), row[3])

    async def forget_sizings(self, now: datetime) -> int:
        """Delete the sizings too old to be followed up at `now` (housekeeping)."""
        async with self._db.write() as connection:
            return await connection.execute(
                "DELETE FROM sizing_memory WHERE remembered_at < ?",
                (moment_value(connection.dialect, now - REMEMBER_FOR),),
            )
