"""The delivery outbox: alerts queued in the refresh's transaction, drained by the sender.

Two module functions run on the caller's connection INSIDE its transaction (the pipeline
writes events and their outbox rows atomically); everything the sender and the alert buttons
need is on the `OutboxQueries` mixin, which takes its own transactions.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
from collections.abc import Collection, Iterable, Mapping, Sequence
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
from storage.users import user_from_row

OutboxStatus = Literal["pending", "sent", "dropped"]
OfferKey = tuple[str, str, str]
# What a cooldown is kept per: subscription id, provider, sku, location, EventKind value.
CooldownKey = tuple[int, str, str, str, str]

DEFAULT_TIMEZONE = "Europe/Moscow"  # the market's time, as DESIGN.md says
PAYLOAD_VERSION = 1
# Well under SQLite's host-parameter limit, for `id IN (...)` lists.
_CHUNK = 500


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
    # A refresh's alerts share few events (thousands of subscribers, one H100): everything
    # of an event is worked out once, and most alerts are due now. At 20k alerts this work is
    # done inside the refresh's write transaction, so it must cost next to nothing.
    # Each event's JSON is stored once (outbox_events), not once per alert: 20k copies of
    # one H100's payload were 12 MB and a fifth of the refresh's write.
    next_event = await _next_event_id(connection)
    events: dict[int, tuple[str, str, str, str, str, int]] = {}
    payloads: list[tuple[int, str]] = []
    for alert in alerts:
        user = users.get(alert.chat_id)
        if user is not None and user.blocked:
            continue
        event = alert.event
        parts = events.get(id(event))
        if parts is None:
            provider, sku, location = event.offer.key
            event_id = next_event + len(payloads)
            payloads.append((event_id, event_to_json(event)))
            parts = (event.key, event.kind.value, provider, sku, location, event_id)
            events[id(event)] = parts
        key, kind, provider, sku, location, event_id = parts
        due = created
        snooze = snoozed.get(alert.chat_id)
        if snooze is not None or (user is not None and user.quiet_hours is not None):
            # A snooze that ends inside quiet hours waits for their end.
            due = to_text(due_time(user, max(now, snooze or now)))
        dedupe = f"{alert.subscription_id}|{key}"  # = Alert.dedupe_key
        rows.append(
            (
                alert.chat_id,
                alert.subscription_id,
                dedupe,
                kind,
                provider,
                sku,
                location,
                event_id,
                created,
                due,
                int(due != created),  # held back by quiet hours or a snooze
            )
        )
    if not rows:
        return 0
    await connection.executemany("INSERT INTO outbox_events (id, payload) VALUES (?, ?)", payloads)
    # In index order: inserting 20k rows into the unique key's b-tree in order touches each
    # page once instead of at random (a third less time here).
    rows.sort(key=operator.itemgetter(2))
    cursor = await connection.executemany(
        "INSERT OR IGNORE INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider,"
        " sku, location, payload, event_id, created_at, due_at, held)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?)",
        rows,
    )
    # executemany sums the changes; ignored duplicates count zero.
    return max(0, cursor.rowcount)


async def users_to_hold(
    connection: aiosqlite.Connection, chat_ids: Collection[int]
) -> dict[int, User]:
    """Of these chats, the users whose alerts do not simply go now: blocked, or with quiet
    hours. For enqueue, which treats every other chat as due now; reading only these keeps
    a 20k-alert refresh from loading 20k users inside its write transaction."""
    if not chat_ids:
        return {}
    cursor = await connection.execute(
        "SELECT * FROM users WHERE (blocked = 1 OR quiet_start IS NOT NULL)"
        " AND chat_id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(chat_ids)),),
    )
    return {row["chat_id"]: user_from_row(row) for row in await cursor.fetchall()}


async def _next_event_id(connection: aiosqlite.Connection) -> int:
    # Explicit ids, so one executemany stores every payload and the rows know theirs: the
    # caller's write transaction keeps anyone else from taking the same ids meanwhile.
    cursor = await connection.execute("SELECT coalesce(max(id), 0) + 1 FROM outbox_events")
    row = await cursor.fetchone()
    return 1 if row is None else int(row[0])


async def _snoozes(connection: aiosqlite.Connection, now: datetime) -> dict[int, datetime]:
    # Only live snoozes; the table holds one row per chat that ever snoozed, so it stays small.
    cursor = await connection.execute(
        "SELECT chat_id, until FROM chat_snooze WHERE until > ?", (to_text(now),)
    )
    return {row[0]: _from_text(row[1]) for row in await cursor.fetchall()}


async def last_alerts_at(
    connection: aiosqlite.Connection, keys: Iterable[CooldownKey]
) -> dict[CooldownKey, datetime]:
    """When each (subscription, offer, kind of change) was last alerted, in one query.

    Keys never alerted are absent. Every status counts: a dropped row (the chat blocked us)
    was still an alert made. One query for a whole refresh, not one per alert: 20k of those
    inside the refresh's write transaction held every handler's database access for a
    second. The query has a part per offer and kind (a refresh's alerts share few), each
    looking up its subscriptions in the cooldown index; past SQLite's limit of compound
    parts it is split.
    """
    groups: dict[tuple[str, str, str, str], set[int]] = {}
    for sub, provider, sku, location, kind in keys:
        groups.setdefault((provider, sku, location, kind), set()).add(sub)
    found: dict[CooldownKey, datetime] = {}
    items = sorted(groups.items())
    for start in range(0, len(items), _COMPOUND_LIMIT):
        chunk = items[start : start + _COMPOUND_LIMIT]
        params: list[object] = []
        for (provider, sku, location, kind), subs in chunk:
            params += [provider, sku, location, kind, json.dumps(sorted(subs))]
        cursor = await connection.execute(" UNION ALL ".join([_LAST_ALERTS] * len(chunk)), params)
        for row in await cursor.fetchall():
            found[(row[0], row[1], row[2], row[3], row[4])] = _from_text(row[5])
    return found


# One part of last_alerts_at's query: an offer and kind, and its subscriptions (JSON).
_LAST_ALERTS = (
    "SELECT subscription_id, provider, sku, location, kind, max(created_at) FROM outbox"
    " WHERE provider = ? AND sku = ? AND location = ? AND kind = ?"
    " AND subscription_id IN (SELECT value FROM json_each(?)) GROUP BY subscription_id"
)
_COMPOUND_LIMIT = 400  # SQLite's SQLITE_MAX_COMPOUND_SELECT is 500 by default


def cooldown_key(alert: Alert) -> CooldownKey:
    provider, sku, location = alert.event.offer.key
    return (alert.subscription_id, provider, sku, location, alert.event.kind.value)


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
    # The recipient's language when the query knows it (claim joins users).
    language: Language | None = None
    # The subscription's filter when the query knows it and the subscription still exists
    # (claim joins subscriptions): the alert names the watch it is for.
    watch: WatchFilter | None = None
    # Quiet hours or a snooze kept it back: it goes out in the quiet-hours digest.
    held: bool = False


class OutboxQueries:
    """The sender's side: claim a fair batch with a lease, then mark sent, release or drop.

    The shape is PostgreSQL's (a claim is FOR UPDATE SKIP LOCKED plus a lease, so several
    senders never take the same row); with SQLite one process holds the database (bot.app
    locks the file), so there is one claimer and `release_claims()` at start is safe.
    """

    _db: Database

    async def claim(
        self,
        now: datetime,
        *,
        limit: int,
        per_chat: int,
        lease: timedelta,
        skip_chats: Collection[int] = (),
    ) -> list[OutboxRow]:
        """Claim up to `limit` due pending rows, at most `per_chat` of any one chat, until
        `now + lease`; oldest first. Rows claimed by someone else (a live lease) are skipped,
        and so are the chats in `skip_chats` (messaged a moment ago: pacing).
        """
        moment = to_text(now)
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "WITH ranked AS (SELECT id, due_at, row_number() OVER"
                "  (PARTITION BY chat_id ORDER BY due_at, id) AS n FROM outbox"
                "  WHERE status = 'pending' AND due_at <= :now"
                "  AND (claimed_until IS NULL OR claimed_until <= :now)"
                "  AND chat_id NOT IN (SELECT value FROM json_each(:skip)))"
                " SELECT id FROM ranked WHERE n <= :per_chat ORDER BY due_at, id LIMIT :limit",
                {
                    "now": moment,
                    "skip": json.dumps(sorted(skip_chats)),
                    "per_chat": per_chat,
                    "limit": limit,
                },
            )
            found = [row[0] for row in await cursor.fetchall()]
            if not found:
                return []
            ids = json.dumps(found)
            await connection.execute(
                "UPDATE outbox SET claimed_until = ? WHERE id IN (SELECT value FROM json_each(?))",
                (to_text(now + lease), ids),
            )
            cursor = await connection.execute(
                f"SELECT {_ROW_COLUMNS}, users.language AS language,"  # noqa: S608
                f" subscriptions.filter AS watch FROM {_ROW_TABLES}"
                " LEFT JOIN users ON users.chat_id = outbox.chat_id"
                " LEFT JOIN subscriptions ON subscriptions.id = outbox.subscription_id"
                " WHERE outbox.id IN (SELECT value FROM json_each(?))"
                " ORDER BY outbox.due_at, outbox.id",
                (ids,),
            )
            rows = await cursor.fetchall()
        return _outbox_rows(rows)

    async def release(
        self,
        ids: Sequence[int],
        *,
        due_at: datetime | None = None,
        error: str | None = None,
        failed: bool = False,
    ) -> int:
        """Give claimed rows back, pending: due at `due_at` (default: as they were).

        `failed` counts a try in `attempts` and keeps `error` as the last one.
        """
        return await self._update_ids(
            "claimed_until = NULL, due_at = coalesce(?, due_at),"
            " attempts = attempts + ?, last_error = coalesce(?, last_error)",
            (None if due_at is None else to_text(due_at), int(failed), _reason(error)),
            ids,
        )

    async def retry_chat_later(
        self, chat_id: int, ids: Sequence[int], due_at: datetime, error: str, *, failed: bool
    ) -> int:
        """A try of rows `ids` failed (or was told to wait): keep `error`, count the try if
        `failed`, and make every pending row of the chat due no sooner than `due_at`.

        The whole chat moves, not only `ids`, so its messages keep their order (the claim
        takes rows by due time). Returns how many of the chat's rows moved.
        """
        async with self._db.transaction() as connection:
            await connection.execute(
                "UPDATE outbox SET attempts = attempts + ?, last_error = ?"
                " WHERE status = 'pending' AND id IN (SELECT value FROM json_each(?))",
                (int(failed), _reason(error), json.dumps(list(ids))),
            )
            cursor = await connection.execute(
                "UPDATE outbox SET due_at = max(due_at, ?), claimed_until = NULL"
                " WHERE chat_id = ? AND status = 'pending'",
                (to_text(due_at), chat_id),
            )
        return cursor.rowcount

    async def release_claims(self) -> int:
        """Release every claim: at start-up, when no other sender can hold one (SQLite)."""
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE outbox SET claimed_until = NULL WHERE claimed_until IS NOT NULL"
            )
        return cursor.rowcount

    async def oldest_due(self, now: datetime) -> datetime | None:
        """When the longest-waiting due pending row became due (for "outbox stuck")."""
        async with self._db.access() as connection:
            cursor = await connection.execute(
                "SELECT min(due_at) FROM outbox WHERE status = 'pending' AND due_at <= ?",
                (to_text(now),),
            )
            row = await cursor.fetchone()
        return None if row is None or row[0] is None else _from_text(row[0])

    async def outbox_rows(self, chat_id: int | None = None) -> list[OutboxRow]:
        """Every row (any status) in insertion order; for inspection, not for the hot path."""
        query = f"SELECT {_ROW_COLUMNS} FROM {_ROW_TABLES}"  # noqa: S608 - fixed parts
        params: tuple[int, ...] = ()
        if chat_id is not None:
            query += " WHERE outbox.chat_id = ?"
            params = (chat_id,)
        async with self._db.access() as connection:
            cursor = await connection.execute(query + " ORDER BY outbox.id", params)
            rows = await cursor.fetchall()
        return _outbox_rows(rows)

    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int:
        """Telegram accepted these; only pending rows change, so a late mark is harmless."""
        return await self._update_ids(
            "status = 'sent', sent_at = ?, attempts = attempts + 1, claimed_until = NULL",
            (to_text(at),),
            ids,
        )

    async def mark_dropped(self, ids: Sequence[int], reason: str) -> int:
        """Never to be sent; the reason is kept in last_error."""
        return await self._update_ids(
            "status = 'dropped', last_error = ?, claimed_until = NULL", (_reason(reason),), ids
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
                "UPDATE outbox SET due_at = ?, held = 1 WHERE chat_id = ? AND status = 'pending'"
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

        Keep well over the longest cooldown: last_alerts_at reads these rows, and the unique
        key stops a re-derived old event only while its row exists.
        """
        async with self._db.transaction() as connection:
            cursor = await connection.execute(
                "DELETE FROM outbox WHERE status != 'pending' AND created_at < ?",
                (to_text(before),),
            )
            await connection.execute(
                "DELETE FROM outbox_events WHERE id NOT IN"
                " (SELECT event_id FROM outbox WHERE event_id IS NOT NULL)"
            )
        return cursor.rowcount

    async def _update_ids(
        self, assignments: str, values: tuple[object, ...], ids: Sequence[int]
    ) -> int:
        if not ids:
            return 0
        if len(ids) <= _CHUNK:
            # The sender marks every message: one statement is atomic on its own (autocommit),
            # and skipping BEGIN/COMMIT saves two of three trips to the database thread.
            async with self._db.write() as connection:
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


def _reason(text: str | None) -> str | None:
    return None if text is None else text[:500]


# A row with its event's payload: from outbox_events, or its own for rows queued before 0007.
_ROW_COLUMNS = "outbox.*, coalesce(outbox_events.payload, outbox.payload) AS event_payload"
_ROW_TABLES = "outbox LEFT JOIN outbox_events ON outbox_events.id = outbox.event_id"


def _outbox_rows(rows: Iterable[aiosqlite.Row]) -> list[OutboxRow]:
    events: dict[str, Event] = {}  # a fan-out's rows share one payload: parse it once
    return [_outbox_row(row, events) for row in rows]


def _outbox_row(row: aiosqlite.Row, events: dict[str, Event]) -> OutboxRow:
    sent_at = row["sent_at"]
    columns = row.keys()
    language = row["language"] if "language" in columns else None
    watch = row["watch"] if "watch" in columns else None
    payload = row["event_payload"]
    event = events.get(payload)
    if event is None:
        event = events[payload] = event_from_json(payload)
    return OutboxRow(
        id=row["id"],
        chat_id=row["chat_id"],
        subscription_id=row["subscription_id"],
        event=event,
        created_at=_from_text(row["created_at"]),
        due_at=_from_text(row["due_at"]),
        status=cast(OutboxStatus, row["status"]),
        attempts=row["attempts"],
        last_error=row["last_error"],
        sent_at=None if sent_at is None else _from_text(sent_at),
        language=cast("Language | None", language),
        watch=None if watch is None else _watch_from_json(watch),
        held=bool(row["held"]),
    )


@functools.lru_cache(maxsize=4096)
def _watch_from_json(text: str) -> WatchFilter | None:
    # Cached: a fan-out sends one change to thousands of chats whose filters are mostly alike.
    try:
        return filter_from_json(text)
    except ValueError:  # a format this version does not read: the alert goes out unnamed
        return None
