"""User rows: the mapping shared by the Store and by transactions that need users."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

import aiosqlite

from monitor.users import QuietHours, User


async def read_users(
    connection: aiosqlite.Connection, chat_ids: Collection[int]
) -> dict[int, User]:
    ids = sorted(chat_ids)
    if not ids:
        return {}
    cursor = await connection.execute(
        f"SELECT * FROM users WHERE chat_id IN ({', '.join('?' * len(ids))})",  # noqa: S608
        ids,
    )
    return {row["chat_id"]: user_from_row(row) for row in await cursor.fetchall()}


def user_from_row(row: aiosqlite.Row) -> User:
    quiet = None
    if row["quiet_start"] is not None and row["quiet_end"] is not None:
        quiet = QuietHours(row["quiet_start"], row["quiet_end"])
    return User(
        chat_id=row["chat_id"],
        language=row["language"],
        timezone=row["timezone"],
        quiet_hours=quiet,
        blocked=bool(row["blocked"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        last_seen_at=datetime.fromisoformat(row["last_seen_at"]),
    )
