"""The sender's claims on the outbox: which due rows a pass takes, leased to it."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from monitor.outbox import OutboxRow
from storage.outbox import ROW_COLUMNS, ROW_TABLES, decode_rows
from storage.outbox_codec import outbox_moment, reason_text
from storage.outbox_marks import update_pending
from storage.sql import Connection, Database, Dialect, Row, in_list, list_value, not_in_list


class OutboxClaims:
    """The sender's claims: a fair batch leased to one sender, renewed while it works, given
    back when it is done with them.

    A claim leases rows to one sender until `claimed_until`. On PostgreSQL several replicas
    claim from one outbox at once: each claims whole chats, under a transaction lock per chat
    and FOR UPDATE SKIP LOCKED per row, so no row and no chat is ever held by two senders,
    and a chat's messages keep their order.

    The duplicate bound: a row claimed by a replica that dies (kill -9, a lost host) is
    claimed again once its lease ends. If the dead replica had already sent it and had not
    yet marked it sent, the user gets it twice. At most the messages a sender had in flight
    when it died come twice (GPURADAR_SEND_CONCURRENCY chats, one message each); nothing is
    lost. With SQLite one process holds the database (bot.startup locks the file), so there
    is one claimer, and `release_claims()` at its start gives the dead process's claims back
    at once.

    Claims are fenced in the statement: a claim writes its `token` on the rows it takes
    (column claim_token, migration 0017), and `release` and `extend_claims` given that token
    change only the rows still carrying it. A holder frozen between its own deadline check
    (bot.delivery.sender) and its statement wakes to find another claim's token on the rows,
    and changes nothing: it can neither end nor stretch a claim it no longer holds.
    """

    _db: Database

    async def claim(
        self,
        now: datetime,
        *,
        limit: int,
        per_chat: int,
        lease: timedelta,
        chat_gap: timedelta,
        skip_chats: Collection[int] = (),
        token: int | None = None,
    ) -> list[OutboxRow]:
        """Claim due pending rows until `now + lease`: whole chats, each with its first
        `per_chat` rows, in the fan-out's fair order (`_BATCH`), until the next chat would
        take the batch past `limit` rows (the first chat is taken whatever its size). Rows
        claimed by someone else (a live lease) are skipped, and so are the chats in
        `skip_chats` (messaged a moment ago: pacing).

        The rows carry `token` (`new_claim_token()`; by default a fresh one) until the next
        claim: the holder passes it to `release` and `extend_claims` to fence them.

        On PostgreSQL a chat with any row under a live lease is skipped whole, and so is a
        chat messaged less than `chat_gap` before `now` (by any replica): the limiter's
        per-chat gap (bot.delivery.limiter), which one process keeps in memory (`skip_chats`)
        but replicas keep only here.
        """
        stamp = new_claim_token() if token is None else token
        async with self._db.transaction() as connection:
            if connection.dialect == "postgresql":
                rows = await _claim_chats(
                    connection, now, limit, per_chat, lease, now - chat_gap, skip_chats, stamp
                )
            else:
                rows = await _claim_rows(connection, now, limit, per_chat, lease, skip_chats, stamp)
        return decode_rows(rows)

    async def release(
        self,
        ids: Sequence[int],
        *,
        due_at: datetime | None = None,
        error: str | None = None,
        failed: bool = False,
        token: int | None = None,
    ) -> int:
        """Give claimed rows back, pending: due at `due_at` (default: as they were).

        `failed` counts a try in `attempts` and keeps `error` as the last one. With `token`,
        only the rows that claim still holds change (a later claim's rows are not ours).
        """
        due = None if due_at is None else outbox_moment(self._db.dialect, due_at)
        return await update_pending(
            self._db,
            "claimed_until = NULL, due_at = coalesce(?, due_at),"
            " attempts = attempts + ?, last_error = coalesce(?, last_error)",
            (due, int(failed), reason_text(error)),
            ids,
            token=token,
        )

    async def extend_claims(
        self, ids: Sequence[int], until: datetime, *, token: int | None = None
    ) -> int:
        """Renew a live sender's claims (Sender._renew_claims); settled rows stay settled, and
        with `token` so do the rows another claim has taken since."""
        return await update_pending(
            self._db,
            "claimed_until = ?",
            (outbox_moment(self._db.dialect, until),),
            ids,
            token=token,
        )

    async def release_claims(self) -> int:
        """Release every claim: at start-up, when no other sender can hold one. Only SQLite
        (one process per database) can know that; replicas sharing PostgreSQL leave a dead
        one's claims to their leases, and asking here is a bug."""
        if self._db.dialect != "sqlite":
            raise RuntimeError("release_claims() is for SQLite: on PostgreSQL leases expire")
        async with self._db.transaction() as connection:
            return await connection.execute(
                "UPDATE outbox SET claimed_until = NULL WHERE claimed_until IS NOT NULL"
            )


def new_claim_token() -> int:
    """A claim's token: random, so two replicas' claims never share one (63 bits fit both
    backends' integer columns)."""
    return secrets.randbits(63)


async def _claim_rows(
    connection: Connection,
    now: datetime,
    limit: int,
    per_chat: int,
    lease: timedelta,
    skip_chats: Collection[int],
    token: int,
) -> list[Row]:
    """SQLite's claim: the one sender, inside the write transaction that the one writer holds."""
    dialect = connection.dialect
    moment = outbox_moment(dialect, now)
    found = await connection.fetchall(
        _batch(dialect, not_in_list(dialect, ":skip"))  # noqa: S608
        + " SELECT due.id FROM due JOIN batch ON batch.chat_id = due.chat_id"
        " WHERE due.place <= :per_chat ORDER BY batch.position, due.place",
        {
            "now": moment,
            "skip": list_value(dialect, sorted(skip_chats)),
            "per_chat": per_chat,
            "limit": limit,
        },
    )
    if not found:
        return []
    ids = list_value(dialect, [row[0] for row in found])
    await connection.execute(
        "UPDATE outbox SET claimed_until = ?, claim_token = ?"  # noqa: S608
        f" WHERE id {in_list(dialect)}",
        (outbox_moment(dialect, now + lease), token, ids),
    )
    rows = await connection.fetchall(
        f"SELECT {ROW_COLUMNS}, users.language AS language,"  # noqa: S608
        f" subscriptions.filter AS watch FROM {ROW_TABLES}"
        " LEFT JOIN users ON users.chat_id = outbox.chat_id"
        " LEFT JOIN subscriptions ON subscriptions.id = outbox.subscription_id"
        f" WHERE outbox.id {in_list(dialect)}",
        (ids,),
    )
    order = {row[0]: place for place, row in enumerate(found)}
    return sorted(rows, key=lambda row: order[row["id"]])


async def _claim_chats(
    connection: Connection,
    now: datetime,
    limit: int,
    per_chat: int,
    lease: timedelta,
    paced: datetime,
    skip_chats: Collection[int],
    token: int,
) -> list[Row]:
    """PostgreSQL's claim, for several replicas at once, in three statements:

    1. the chats with due rows, none under a live lease, none messaged after `paced`, in the
       fair order (`_BATCH`);
    2. of those, the ones this transaction can lock (pg_try_advisory_xact_lock on the chat
       id): another replica claiming the same chat right now holds its lock, and we skip it;
    3. with the chats locked, the same conditions read again (a new snapshot: a claim
       another replica committed before we took a lock shows now), then their first rows
       leased, FOR UPDATE SKIP LOCKED, and returned with what the message needs.

    The advisory keys are the chat ids; the fixed keys of storage.leader are above 2^62, far
    from any Telegram chat id (at most 52 bits).
    """
    params = {
        "now": now,
        "paced": paced,
        "skip": sorted(skip_chats),
        "per_chat": per_chat,
        "limit": limit,
    }
    chats = await connection.fetchall(
        _batch("postgresql", not_in_list("postgresql", ":skip"))  # noqa: S608
        + " SELECT chat_id FROM batch ORDER BY position",
        params,
    )
    if not chats:
        return []
    locked = await connection.fetchall(
        "SELECT chat FROM unnest(CAST(? AS bigint[])) AS candidates (chat)"
        " WHERE pg_try_advisory_xact_lock(chat)",
        ([row[0] for row in chats],),
    )
    if not locked:
        return []
    return await connection.fetchall(
        "WITH ranked AS (SELECT id, due_at, row_number() OVER"  # noqa: S608
        "  (PARTITION BY chat_id ORDER BY due_at, id) AS n FROM outbox"
        f"  WHERE {_CLAIMABLE} AND chat_id = ANY(CAST(:chats AS bigint[]))),"
        " picked AS (SELECT id FROM outbox WHERE id IN (SELECT id FROM ranked"
        "  WHERE n <= :per_chat) FOR UPDATE SKIP LOCKED),"
        " claimed AS (UPDATE outbox SET claimed_until = :until, claim_token = :token"
        "  WHERE id IN (SELECT id FROM picked) RETURNING *)"
        " SELECT claimed.*, coalesce(outbox_events.payload, claimed.payload) AS event_payload,"
        " users.language AS language, subscriptions.filter AS watch FROM claimed"
        " LEFT JOIN outbox_events ON outbox_events.id = claimed.event_id"
        " LEFT JOIN users ON users.chat_id = claimed.chat_id"
        " LEFT JOIN subscriptions ON subscriptions.id = claimed.subscription_id"
        " ORDER BY array_position(CAST(:chats AS bigint[]), claimed.chat_id),"
        " claimed.due_at, claimed.id",
        {
            "now": now,
            "paced": paced,
            "chats": [row[0] for row in locked],
            "per_chat": per_chat,
            "until": now + lease,
            "token": token,
        },
    )


# The rows a PostgreSQL claim may take: due and pending, in a chat that no sender holds (no
# pending row under a live lease) and that no replica messaged after :paced (the partial
# index outbox_recent_sent finds the few rows sent that recently).
_CLAIMABLE = (
    "status = 'pending' AND due_at <= :now"
    " AND NOT EXISTS (SELECT 1 FROM outbox AS held WHERE held.chat_id = outbox.chat_id"
    "  AND held.status = 'pending' AND held.claimed_until > :now)"
    " AND chat_id NOT IN (SELECT sent.chat_id FROM outbox AS sent"
    "  WHERE sent.status = 'sent' AND sent.sent_at > :paced)"
)


# SQLite's claimable rows: the one claimer holds the write transaction, so a row under no
# live lease is free.
_SQLITE_CLAIMABLE = (
    "status = 'pending' AND due_at <= :now AND (claimed_until IS NULL OR claimed_until <= :now)"
)

# The fan-out's fair order, one rule for both backends: which chats a claim takes, in the
# order they are sent (`batch`), and each due row's place in its chat (`due.place`).
#
# Events take turns: an event's claimable rows are numbered in their own order (`turn`: 1, 2,
# 3...), and chats go by the lowest turn among their rows, then by age. A refresh that fans one
# change out to 10 000 chats and an event that comes a minute later for 10 chats are then
# interleaved: the late event's first rows go in the next pass, not after the whole backlog. A
# chat goes whole (its first `per_chat` rows), so one person's matches from one refresh stay
# one message; a chat's own rows keep their order. The batch ends before the chat that would
# take it past :limit rows.
#
# Bounded work, whatever the backlog: the pending events are found by a skip scan of the
# index outbox_pending_event (0021), each event gives only its first :limit rows (no later
# turn can make the batch), and only the first :limit chats are ranked and counted. Each
# event's first rows are a LATERAL join on PostgreSQL and a correlated IN on SQLite (which has
# no LATERAL; PostgreSQL plans that IN as a scan of the whole table per event).
_BATCH = (
    "WITH RECURSIVE events (event) AS ("
    "  SELECT (SELECT event_id FROM {by_event} WHERE status = 'pending'"
    "   AND event_id IS NOT NULL ORDER BY event_id LIMIT 1)"
    "  UNION ALL SELECT (SELECT event_id FROM {by_event}"
    "   WHERE status = 'pending' AND event_id > events.event ORDER BY event_id LIMIT 1)"
    "  FROM events WHERE events.event IS NOT NULL),"
    " heads AS MATERIALIZED (SELECT head.id, head.chat_id, head.due_at, row_number() OVER"
    "  (PARTITION BY head.event_id ORDER BY head.due_at, head.id) AS turn"
    "  FROM {heads}),"
    " front AS MATERIALIZED (SELECT chat_id, min(turn) AS turn, min(due_at) AS since,"
    "  min(id) AS first FROM heads GROUP BY chat_id ORDER BY 2, 3, 4 LIMIT :limit),"
    " due AS MATERIALIZED (SELECT id, chat_id, row_number() OVER"
    "  (PARTITION BY chat_id ORDER BY due_at, id) AS place"
    "  FROM outbox WHERE {claimable} AND chat_id IN (SELECT chat_id FROM front)),"
    " sizes AS (SELECT chat_id, sum(CASE WHEN place <= :per_chat THEN 1 ELSE 0 END) AS size"
    "  FROM due GROUP BY chat_id),"
    " queue AS (SELECT front.chat_id, row_number() OVER fair AS position,"
    "  sum(sizes.size) OVER fair AS upto FROM front JOIN sizes ON sizes.chat_id = front.chat_id"
    "  WINDOW fair AS (ORDER BY front.turn, front.since, front.first"
    "  ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),"
    " batch AS MATERIALIZED (SELECT chat_id, position FROM queue"
    "  WHERE upto <= :limit OR position = 1)"
)

# Each pending event's first :limit claimable rows (`head`), the two dialects' ways.
_HEADS = (
    "events CROSS JOIN LATERAL (SELECT id, chat_id, due_at, event_id FROM outbox"
    " WHERE event_id = events.event AND {claimable} AND chat_id {skip}"
    " ORDER BY due_at, id LIMIT :limit) AS head"
)
_SQLITE_HEADS = (
    "events JOIN outbox AS head ON head.id IN (SELECT id FROM outbox"
    " WHERE event_id = events.event AND {claimable} AND chat_id {skip}"
    " ORDER BY due_at, id LIMIT :limit)"
)


def _batch(dialect: Dialect, skip: str) -> str:
    """`_BATCH` in `dialect`'s words; `skip`: `chat_id <that>` leaves the skipped chats out.

    SQLite is told to walk the events on outbox_pending_event: left to itself it scans the
    whole backlog on outbox_pending_chat, whose first column matches too.
    """
    if dialect == "postgresql":
        parts = {"claimable": _CLAIMABLE, "skip": skip, "by_event": "outbox"}
        heads = _HEADS
    else:
        by_event = "outbox INDEXED BY outbox_pending_event"
        parts = {"claimable": _SQLITE_CLAIMABLE, "skip": skip, "by_event": by_event}
        heads = _SQLITE_HEADS
    return _BATCH.format(heads=heads.format(**parts), **parts)
