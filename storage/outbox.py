"""The delivery outbox: alerts queued in the refresh's transaction, drained by the sender.

Two module functions run on the caller's connection INSIDE its transaction (the pipeline
writes events and their outbox rows atomically); everything the sender and the alert buttons
need is on the `OutboxQueries` mixin, which takes its own transactions.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiosqlite

from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import Offer, Price, StockState, Vat
from monitor.subscriptions import WatchFilter
from monitor.users import Language, User
from storage.database import Database
from storage.subscriptions import filter_from_json

OutboxStatus = Literal["pending", "sent", "dropped"]
OfferKey = tuple[str, str, str]

DEFAULT_TIMEZONE = "Europe/Moscow"  # the market's time, as DESIGN.md says
PAYLOAD_VERSION = 1
# Well under SQLite's host-parameter limit, for `id IN (...)` lists.
_CHUNK = 500
# A row due this much after it was made was held back (quiet hours, a snooze), not just queued.
HELD_AFTER = timedelta(minutes=1)


def to_text(moment: datetime) -> str:
    """UTC with microseconds always present: fixed width, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _from_text(text: str) -> datetime:
    return datetime.fromisoformat(text)


# --- time ----------------------------------------------------------------------------------


def zone(name: str) -> ZoneInfo:
    """The user's zone; a name this machine does not know falls back to Moscow time."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_TIMEZONE)


def next_local_time(now: datetime, timezone: str, minute: int) -> datetime:
    """The first moment after `now` when the clock in `timezone` shows `minute` after midnight.

    Built from the local date (wall-clock arithmetic), so it stays "08:00 local" across a
    DST change where a zone has one. Returned in UTC.
    """
    local = now.astimezone(zone(timezone))
    candidate = local.replace(hour=minute // 60, minute=minute % 60, second=0, microsecond=0)
    if candidate <= local:
        # Aware + timedelta is wall-clock arithmetic in Python: still `minute` local tomorrow.
        candidate += timedelta(days=1)
    return candidate.astimezone(UTC)


def due_time(user: User | None, now: datetime) -> datetime:
    """`now`, or the end of the user's quiet hours when `now` falls inside them."""
    if user is None or user.quiet_hours is None:
        return now
    local = now.astimezone(zone(user.timezone))
    if not user.quiet_hours.contains(local.time()):
        return now
    return next_local_time(now, user.timezone, user.quiet_hours.end)


# --- payload -------------------------------------------------------------------------------


def event_to_json(event: Event) -> str:
    """Everything needed to render the alert later, whatever happens to the offer meanwhile."""
    offer = dataclasses.asdict(event.offer)  # StrEnum values serialise as their strings
    data = {
        "v": PAYLOAD_VERSION,
        "kind": event.kind.value,
        "at": event.at.isoformat(),
        "old_price_hour": event.old_price_hour,
        "new_price_hour": event.new_price_hour,
        "old_stock": None if event.old_stock is None else event.old_stock.value,
        "offer": offer,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def event_from_json(text: str) -> Event:
    data = json.loads(text)
    old_stock = data.get("old_stock")
    return Event(
        kind=EventKind(data["kind"]),
        offer=_offer_from_dict(data["offer"]),
        at=datetime.fromisoformat(data["at"]),
        old_price_hour=data.get("old_price_hour"),
        new_price_hour=data.get("new_price_hour"),
        old_stock=None if old_stock is None else StockState(old_stock),
    )


_OFFER_FIELDS = frozenset(field.name for field in dataclasses.fields(Offer))
_PRICE_FIELDS = frozenset(field.name for field in dataclasses.fields(Price))


def _offer_from_dict(raw: dict[str, Any]) -> Offer:
    # Only the fields Offer has today: a row written by an older or newer version still loads
    # (a field added since then takes its default).
    values = {name: value for name, value in raw.items() if name in _OFFER_FIELDS}
    values["price"] = Price(**{k: v for k, v in raw["price"].items() if k in _PRICE_FIELDS})
    values["stock"] = StockState(raw["stock"])
    values["vat"] = Vat(raw.get("vat", Vat.UNKNOWN.value))
    return Offer(**values)


# --- writes inside the pipeline's transaction ----------------------------------------------


async def enqueue(
    connection: aiosqlite.Connection,
    alerts: Iterable[Alert],
    users: Mapping[int, User],
    now: datetime,
) -> int:
    """Queue alerts; returns how many rows were new. Call inside the caller's transaction.

    Blocked users are skipped. An alert whose chat is missing from `users` is still queued,
    due now: losing it would be worse than ignoring quiet hours we cannot see.
    """
    snoozed = await _snoozes(connection, now)
    created = to_text(now)
    rows = []
    for alert in alerts:
        user = users.get(alert.chat_id)
        if user is not None and user.blocked:
            continue
        due = max(now, snoozed.get(alert.chat_id, now))
        due = due_time(user, due)  # a snooze that ends inside quiet hours waits for their end
        provider, sku, location = alert.event.offer.key
        rows.append(
            (
                alert.chat_id,
                alert.subscription_id,
                alert.dedupe_key,
                alert.event.kind.value,
                provider,
                sku,
                location,
                event_to_json(alert.event),
                created,
                to_text(due),
            )
        )
    if not rows:
        return 0
    cursor = await connection.executemany(
        "INSERT OR IGNORE INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider,"
        " sku, location, payload, created_at, due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    # executemany sums the changes; ignored duplicates count zero.
    return max(0, cursor.rowcount)


async def _snoozes(connection: aiosqlite.Connection, now: datetime) -> dict[int, datetime]:
    # Only live snoozes; the table holds one row per chat that ever snoozed, so it stays small.
    cursor = await connection.execute(
        "SELECT chat_id, until FROM chat_snooze WHERE until > ?", (to_text(now),)
    )
    return {row[0]: _from_text(row[1]) for row in await cursor.fetchall()}


async def last_alert_at(
    connection: aiosqlite.Connection, subscription_id: int, offer_key: OfferKey, kind: EventKind
) -> datetime | None:
    """When this subscription was last alerted about this offer and kind of change.

    Every status counts: a dropped row (the chat blocked us) was still an alert made.
    """
    provider, sku, location = offer_key
    cursor = await connection.execute(
        "SELECT max(created_at) FROM outbox WHERE subscription_id = ? AND provider = ?"
        " AND sku = ? AND location = ? AND kind = ?",
        (subscription_id, provider, sku, location, kind.value),
    )
    row = await cursor.fetchone()
    return None if row is None or row[0] is None else _from_text(row[0])


# --- the sender's side ---------------------------------------------------------------------


@dataclass(frozen=True)
class OutboxRow:
    id: int
    chat_id: int
    subscription_id: int
    event: Event
    created_at: datetime
    due_at: datetime
    status: OutboxStatus
    attempts: int
    last_error: str | None
    sent_at: datetime | None
    # The recipient's language when the query knows it (due_messages joins users).
    language: Language | None = None
    # The subscription's filter when the query knows it and the subscription still exists
    # (due_messages joins subscriptions): the alert names the watch it is for.
    watch: WatchFilter | None = None

    @property
    def held(self) -> bool:
        """Quiet hours or a snooze kept it back: it arrives later than it was made."""
        return self.due_at - self.created_at > HELD_AFTER


class OutboxQueries:
    _db: Database

    async def due_messages(self, now: datetime, limit: int) -> list[OutboxRow]:
        """Pending rows due by `now`, oldest first: about `limit` rows, never half a chat.

        The first `limit` due rows pick the chats; every due row of those chats comes back, so
        a quiet-hours backlog is rendered as one digest rather than split across passes.
        """
        moment = to_text(now)
        async with self._db.access() as connection:
            cursor = await connection.execute(
                "WITH head AS (SELECT DISTINCT chat_id FROM (SELECT chat_id FROM outbox"
                "  WHERE status = 'pending' AND due_at <= :now ORDER BY due_at, id LIMIT :limit))"
                " SELECT outbox.*, users.language AS language, subscriptions.filter AS watch"
                " FROM outbox LEFT JOIN users ON users.chat_id = outbox.chat_id"
                " LEFT JOIN subscriptions ON subscriptions.id = outbox.subscription_id"
                " WHERE outbox.status = 'pending' AND outbox.due_at <= :now"
                " AND outbox.chat_id IN head ORDER BY outbox.due_at, outbox.id",
                {"now": moment, "limit": limit},
            )
            rows = await cursor.fetchall()
        return [_outbox_row(row) for row in rows]

    async def outbox_rows(self, chat_id: int | None = None) -> list[OutboxRow]:
        """Every row (any status) in insertion order; for inspection, not for the hot path."""
        query = "SELECT * FROM outbox"
        params: tuple[int, ...] = ()
        if chat_id is not None:
            query += " WHERE chat_id = ?"
            params = (chat_id,)
        async with self._db.access() as connection:
            cursor = await connection.execute(query + " ORDER BY id", params)
            rows = await cursor.fetchall()
        return [_outbox_row(row) for row in rows]

    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int:
        """Telegram accepted these; only pending rows change, so a late mark is harmless."""
        return await self._update_ids(
            "status = 'sent', sent_at = ?, attempts = attempts + 1", (to_text(at),), ids
        )

    async def mark_dropped(self, ids: Sequence[int], reason: str) -> int:
        """Never to be sent; the reason is kept in last_error."""
        return await self._update_ids("status = 'dropped', last_error = ?", (reason[:500],), ids)

    async def record_attempt(self, ids: Sequence[int], error: str) -> int:
        """A failed try that leaves the rows pending for a later pass."""
        return await self._update_ids(
            "attempts = attempts + 1, last_error = ?", (error[:500],), ids
        )

    async def pending_count(self) -> int:
        async with self._db.access() as connection:
            cursor = await connection.execute(
                "SELECT count(*) FROM outbox WHERE status = 'pending'"
            )
            row = await cursor.fetchone()
        return 0 if row is None else int(row[0])

    async def drop_chat(self, chat_id: int, reason: str) -> int:
        """Drop everything pending for a chat (403: the user blocked the bot)."""
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE outbox SET status = 'dropped', last_error = ?"
                " WHERE chat_id = ? AND status = 'pending'",
                (reason[:500], chat_id),
            )
        return cursor.rowcount

    async def drop_subscription(self, chat_id: int, subscription_id: int, reason: str) -> int:
        """Drop a subscription's pending rows (it was muted or deleted from an alert)."""
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE outbox SET status = 'dropped', last_error = ?"
                " WHERE chat_id = ? AND subscription_id = ? AND status = 'pending'",
                (reason[:500], chat_id, subscription_id),
            )
        return cursor.rowcount

    async def defer_chat(self, chat_id: int, until: datetime) -> int:
        """Snooze a chat: nothing is due before `until`, including alerts queued meanwhile.

        Returns how many pending rows were pushed back.
        """
        moment = to_text(until)
        async with self._db.transaction() as connection:
            await connection.execute(
                "INSERT INTO chat_snooze (chat_id, until) VALUES (?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET until = excluded.until",
                (chat_id, moment),
            )
            cursor = await connection.execute(
                "UPDATE outbox SET due_at = ? WHERE chat_id = ? AND status = 'pending'"
                " AND due_at < ?",
                (moment, chat_id, moment),
            )
        return cursor.rowcount

    async def snoozed_until(self, chat_id: int, now: datetime) -> datetime | None:
        async with self._db.access() as connection:
            cursor = await connection.execute(
                "SELECT until FROM chat_snooze WHERE chat_id = ? AND until > ?",
                (chat_id, to_text(now)),
            )
            row = await cursor.fetchone()
        return None if row is None else _from_text(row[0])

    async def end_snooze(self, chat_id: int, now: datetime, user: User | None) -> int:
        """Lift the chat's snooze: what it held is due now (or when quiet hours end).

        Returns how many pending rows were brought forward.
        """
        due = to_text(due_time(user, now))
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "DELETE FROM chat_snooze WHERE chat_id = ? RETURNING until", (chat_id,)
            )
            row = await cursor.fetchone()
            if row is None:
                return 0
            cursor = await connection.execute(
                "UPDATE outbox SET due_at = ? WHERE chat_id = ? AND status = 'pending'"
                " AND due_at <= ? AND due_at > ?",
                (due, chat_id, row[0], due),
            )
        return cursor.rowcount

    async def purge_outbox(self, before: datetime) -> int:
        """Forget delivered and dropped rows created before `before`.

        Keep well over the longest cooldown: last_alert_at reads these rows, and the unique
        key stops a re-derived old event only while its row exists.
        """
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "DELETE FROM outbox WHERE status != 'pending' AND created_at < ?",
                (to_text(before),),
            )
        return cursor.rowcount

    async def _update_ids(
        self, assignments: str, values: tuple[object, ...], ids: Sequence[int]
    ) -> int:
        if len(ids) <= _CHUNK:
            # The sender marks every message: one statement is atomic on its own (autocommit),
            # and skipping BEGIN/COMMIT saves two of three trips to the database thread.
            async with self._db.access() as connection:
                return await _update_chunk(connection, assignments, values, ids)
        changed = 0
        async with self._db.transaction() as connection:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                changed += await _update_chunk(connection, assignments, values, chunk)
        return changed


async def _update_chunk(
    connection: aiosqlite.Connection,
    assignments: str,
    values: tuple[object, ...],
    ids: Sequence[int],
) -> int:
    cursor = await connection.execute(
        f"UPDATE outbox SET {assignments}"  # noqa: S608 - fixed assignments
        f" WHERE status = 'pending' AND id IN ({', '.join('?' * len(ids))})",
        (*values, *ids),
    )
    return cursor.rowcount


def _outbox_row(row: aiosqlite.Row) -> OutboxRow:
    sent_at = row["sent_at"]
    columns = row.keys()
    language = row["language"] if "language" in columns else None
    watch = row["watch"] if "watch" in columns else None
    return OutboxRow(
        id=row["id"],
        chat_id=row["chat_id"],
        subscription_id=row["subscription_id"],
        event=event_from_json(row["payload"]),
        created_at=_from_text(row["created_at"]),
        due_at=_from_text(row["due_at"]),
        status=cast(OutboxStatus, row["status"]),
        attempts=row["attempts"],
        last_error=row["last_error"],
        sent_at=None if sent_at is None else _from_text(sent_at),
        language=cast("Language | None", language),
        watch=None if watch is None else _watch_from_json(watch),
    )


@functools.lru_cache(maxsize=4096)
def _watch_from_json(text: str) -> WatchFilter | None:
    # Cached: a fan-out sends one change to thousands of chats whose filters are mostly alike.
    try:
        return filter_from_json(text)
    except ValueError:  # a format this version does not read: the alert goes out unnamed
        return None
