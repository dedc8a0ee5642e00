"""User rows: the mapping shared by the Store and by transactions that need users."""

from __future__ import annotations

from collections.abc import Collection

from monitor.users import QuietHours, User
from storage.sql import Connection, Row, in_list, list_value, moment_of


async def read_users(connection: Connection, chat_ids: Collection[int]) -> dict[int, User]:
    if not chat_ids:
        return {}
    rows = await connection.fetchall(
        f"SELECT * FROM users WHERE chat_id {in_list(connection.dialect)}",  # noqa: S608
        (list_value(connection.dialect, sorted(chat_ids)),),
    )
    return {row["chat_id"]: user_from_row(row) for row in rows}


def user_from_row(row: Row) -> User:
    quiet = None
    if row["quiet_start"] is not None and row["quiet_end"] is not None:
        quiet = QuietHours(row["quiet_start"], row["quiet_end"])
    return User(
        chat_id=row["chat_id"],
        language=row["language"],
        timezone=row["timezone"],
        quiet_hours=quiet,
        blocked=bool(row["blocked"]),
        created_at=moment_of(row["created_at"]),
        last_seen_at=moment_of(row["last_seen_at"]),
    )
