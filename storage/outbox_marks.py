"""What settles an outbox row or moves it: sent, dropped, retried later, snoozed, purged."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from storage.outbox_codec import outbox_moment, reason_text
from storage.sql import Connection, Database, greatest, in_list, list_value, moment_of, scalar


class OutboxMarks:
    """What settles a row or moves it: the sender's marks and retries, the alert buttons'
    drops and snoozes, the daily purge; and what /healthz and tests read of the outbox."""

    _db: Database

    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int:
        """Telegram accepted these; only pending rows change, so a late mark is harmless."""
        return await update_pending(
            self._db,
            "status = 'sent', sent_at = ?, attempts = attempts + 1, claimed_until = NULL",
            (outbox_moment(self._db.dialect, at),),
            ids,
        )

    async def mark_dropped(self, ids: Sequence[int], reason: str) -> int:
        """Never to be sent; the reason is kept in last_error."""
        return await update_pending(
            self._db,
            "status = 'dropped', last_error = ?, claimed_until = NULL",
            (reason_text(reason),),
            ids,
        )

    async def retry_chat_later(
        self,
        chat_id: int,
        ids: Sequence[int],
        due_at: datetime,
        error: str,
        *,
        failed: bool,
        token: int | None = None,
    ) -> int:
        """A try of rows `ids` failed (or was told to wait): keep `error`, count the try if
        `failed`, and make every pending row of the chat due no sooner than `due_at`.

        The whole chat moves, not only `ids`, so its messages keep their order (the claim
        takes rows by due time). Returns how many of the chat's rows moved. With `token`
        (the claim that took `ids`), nothing changes once a later claim holds any of `ids`:
        the chat is another sender's now (claims take a chat's first rows), and moving its
        rows would end that sender's claim.
        """
        async with self._db.transaction() as connection:
            dialect = connection.dialect
            held = list_value(dialect, ids)
            fence, fenced = "", tuple[object, ...]()
            if token is not None:
                fence = (
                    " AND NOT EXISTS (SELECT 1 FROM outbox AS taken"  # noqa: S608
                    f"  WHERE taken.id {in_list(dialect)} AND taken.status = 'pending'"
                    "  AND taken.claim_token IS DISTINCT FROM ?)"
                )
                fenced = (held, token)
            await connection.execute(
                "UPDATE outbox SET attempts = attempts + ?, last_error = ?"  # noqa: S608
                f" WHERE status = 'pending' AND id {in_list(dialect)}{fence}",
                (int(failed), reason_text(error), held, *fenced),
            )
            return await connection.execute(
                f"UPDATE outbox SET due_at = {greatest(dialect, 'due_at', '?')},"  # noqa: S608
                f" claimed_until = NULL WHERE chat_id = ? AND status = 'pending'{fence}",
                (outbox_moment(dialect, due_at), chat_id, *fenced),
            )

    async def delete_watch(self, chat_id: int, sub_id: int, reason: str = "deleted") -> bool:
        """Delete a chat's watch (False: not the chat's) with the alerts queued for it, which
        would arrive after the user deleted it: one transaction (/subs, the Mini App, an
        alert's «unsubscribe» all delete so)."""
        async with self._db.transaction() as connection:
            deleted = await connection.execute(
                "DELETE FROM subscriptions WHERE id = ? AND chat_id = ?", (sub_id, chat_id)
            )
            if deleted:
                await drop_subscription_rows(connection, chat_id, sub_id, reason)
        return deleted > 0

    async def drop_subscription(self, chat_id: int, subscription_id: int, reason: str) -> int:
        """Drop a subscription's pending rows (it was muted from an alert)."""
        async with self._db.transaction() as connection:
            return await drop_subscription_rows(connection, chat_id, subscription_id, reason)

    async def defer_chat(self, chat_id: int, until: datetime) -> int:
        """Snooze a chat: nothing is due before `until`, including alerts queued meanwhile.

        Returns how many pending rows were pushed back.
        """
        async with self._db.transaction() as connection:
            moment = outbox_moment(connection.dialect, until)
            await connection.execute(
                "INSERT INTO chat_snooze (chat_id, until) VALUES (?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET until = excluded.until",
                (chat_id, moment),
            )
            return await connection.execute(
                "UPDATE outbox SET due_at = ?, held = 1 WHERE chat_id = ? AND status = 'pending'"
                " AND due_at < ?",
                (moment, chat_id, moment),
            )

    async def snoozed_until(self, chat_id: int, now: datetime) -> datetime | None:
        async with self._db.access() as connection:
            found = await scalar(
                connection,
                "SELECT until FROM chat_snooze WHERE chat_id = ? AND until > ?",
                (chat_id, outbox_moment(connection.dialect, now)),
            )
        return None if found is None else moment_of(found)

    async def end_snooze(self, chat_id: int, due_at: datetime) -> int:
        """Lift the chat's snooze: what it held is due at `due_at` (now, or when the user's
        quiet hours end: monitor.users.due_time). Returns how many rows were brought forward.
        """
        async with self._db.transaction() as connection:
            due = outbox_moment(connection.dialect, due_at)
            row = await connection.fetchone(
                "DELETE FROM chat_snooze WHERE chat_id = ? RETURNING until", (chat_id,)
            )
            if row is None:
                return 0
            return await connection.execute(
                "UPDATE outbox SET due_at = ? WHERE chat_id = ? AND status = 'pending'"
                " AND due_at <= ? AND due_at > ?",
                (due, chat_id, row[0], due),
            )

    async def purge_outbox(self, before: datetime) -> int:
        """Forget delivered and dropped rows created before `before`.

        Keep well over the longest cooldown: a refresh reads the cooling rows (storage.refresh),
        and the unique key stops a re-derived old event only while its row exists.
        """
        async with self._db.transaction() as connection:
            purged = await connection.execute(
                "DELETE FROM outbox WHERE status != 'pending' AND created_at < ?",
                (outbox_moment(connection.dialect, before),),
            )
            await connection.execute(
                "DELETE FROM outbox_events WHERE id NOT IN"
                " (SELECT event_id FROM outbox WHERE event_id IS NOT NULL)"
            )
        return purged

    async def pending_count(self) -> int:
        async with self._db.access() as connection:
            found = await scalar(connection, "SELECT count(*) FROM outbox WHERE status = 'pending'")
        return int(found)

    async def oldest_due(self, now: datetime) -> datetime | None:
        """When the longest-waiting due pending row became due (for "outbox stuck")."""
        async with self._db.access() as connection:
            found = await scalar(
                connection,
                "SELECT min(due_at) FROM outbox WHERE status = 'pending' AND due_at <= ?",
                (outbox_moment(connection.dialect, now),),
            )
        return None if found is None else moment_of(found)


async def update_pending(
    db: Database,
    assignments: str,
    values: tuple[object, ...],
    ids: Sequence[int],
    *,
    token: int | None = None,
) -> int:
    """One UPDATE of the pending rows among `ids` (a single list parameter, any length);
    with `token`, only those still held by that claim (storage.outbox_claims: the fence is
    in the statement, so no pause between a check and the write can slip past it).

    The sender marks every message: one statement is atomic on its own (autocommit),
    and skipping BEGIN/COMMIT saves two of three trips to the database.
    """
    if not ids:
        return 0
    fence, fenced = ("", ()) if token is None else (" AND claim_token = ?", (token,))
    async with db.write() as connection:
        dialect = connection.dialect
        return await connection.execute(
            f"UPDATE outbox SET {assignments}"  # noqa: S608 - fixed assignments
            f" WHERE status = 'pending' AND id {in_list(dialect)}{fence}",
            (*values, list_value(dialect, ids), *fenced),
        )


async def drop_subscription_rows(
    connection: Connection, chat_id: int, subscription_id: int, reason: str
) -> int:
    """Drop a subscription's pending rows, inside the caller's transaction."""
    return await connection.execute(
        "UPDATE outbox SET status = 'dropped', last_error = ?"
        " WHERE chat_id = ? AND subscription_id = ? AND status = 'pending'",
        (reason[:500], chat_id, subscription_id),
    )


async def drop_pending(connection: Connection, chat_id: int, reason: str) -> int:
    """Drop every pending row of a chat (a 403: Store.block), in the caller's transaction."""
    return await connection.execute(
        "UPDATE outbox SET status = 'dropped', last_error = ?"
        " WHERE chat_id = ? AND status = 'pending'",
        (reason[:500], chat_id),
    )
