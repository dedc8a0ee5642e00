"""The delivery outbox: alerts written by the refresh's commit, drained by the sender.

`prepare_alerts` and `insert_alerts` write the rows monitor.queueing decided on, inside the
refresh's transaction (storage.refresh); everything the sender and the alert buttons need is
on the `OutboxQueries` mixin, which takes its own transactions. No delivery rule lives here:
cooldown, quiet hours, snoozes and dedupe are worked out in monitor.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

import aiosqlite

from monitor.events import Event, EventKind
from monitor.offers import Offer, Price, StockState, Vat
from monitor.queueing import Queued
from monitor.subscriptions import WatchFilter
from monitor.users import Language
from storage.database import Database
from storage.subscriptions import filter_from_json

OutboxStatus = Literal["pending", "sent", "dropped"]
OfferKey = tuple[str, str, str]

PAYLOAD_VERSION = 1
# Well under SQLite's host-parameter limit, for `id IN (...)` lists.
_CHUNK = 500


def to_text(moment: datetime) -> str:
    """UTC with microseconds always present: fixed width, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _from_text(text: str) -> datetime:
    return datetime.fromisoformat(text)


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


# --- writes inside the refresh's transaction -----------------------------------------------


@dataclass(frozen=True)
class PreparedAlerts:
    """Outbox rows made ready before the write transaction opens, so it only inserts them.

    Each event's JSON is stored once (outbox_events), not once per alert: 20k copies of one
    H100's payload were 12 MB and a fifth of the refresh's write. A row's last value is the
    index of its event in `payloads`, turned into the event's id inside the transaction.
    """

    payloads: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


def prepare_alerts(queued: Iterable[Queued], created_at: datetime) -> PreparedAlerts:
    created = to_text(created_at)
    # A refresh's alerts share few events and few due and cooldown times: each is turned
    # into text once. At 20k alerts this work used to run inside the write transaction.
    texts: dict[datetime, str] = {created_at: created}
    events: dict[int, tuple[str, str, str, str, int]] = {}
    payloads: list[str] = []
    rows = []
    for alert, dedupe, due_at, held, cooling_until in queued:
        event = alert.event
        parts = events.get(id(event))
        if parts is None:
            provider, sku, location = event.offer.key
            parts = (event.kind.value, provider, sku, location, len(payloads))
            events[id(event)] = parts
            payloads.append(event_to_json(event))
        due = texts.get(due_at) or texts.setdefault(due_at, to_text(due_at))
        cooling = texts.get(cooling_until) or texts.setdefault(
            cooling_until, to_text(cooling_until)
        )
        rows.append(
            (
                alert.chat_id,
                alert.subscription_id,
                dedupe,
                *parts[:4],
                created,
                due,
                int(held),
                cooling,
                parts[4],
            )
        )
    # In index order: inserting 20k rows into the unique key's b-tree in order touches each
    # page once instead of at random (a third less time here).
    rows.sort(key=operator.itemgetter(2))
    return PreparedAlerts(tuple(payloads), tuple(rows))


async def insert_alerts(connection: aiosqlite.Connection, prepared: PreparedAlerts) -> int:
    """Write the rows; returns how many were new (an alert already queued by an earlier
    refresh, the same dedupe key, is left as it is). Call inside the caller's transaction."""
    if not prepared.rows:
        return 0
    # Explicit ids, so one executemany stores every payload and the rows know theirs: the
    # caller's write transaction keeps anyone else from taking the same ids meanwhile (SQLite
    # has one writer at a time; on PostgreSQL the ids must come from the table's sequence).
    cursor = await connection.execute("SELECT coalesce(max(id), 0) + 1 FROM outbox_events")
    row = await cursor.fetchone()
    first = 1 if row is None else int(row[0])
    await connection.executemany(
        "INSERT INTO outbox_events (id, payload) VALUES (?, ?)",
        [(first + number, payload) for number, payload in enumerate(prepared.payloads)],
    )
    cursor = await connection.executemany(
        "INSERT INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider, sku,"
        " location, created_at, due_at, held, cooling_until, event_id, payload)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')"
        " ON CONFLICT (dedupe_key) DO NOTHING",
        [(*row[:-1], first + row[-1]) for row in prepared.rows],
    )
    # executemany sums the changes; skipped duplicates count zero.
    return max(0, cursor.rowcount)


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

    async def end_snooze(self, chat_id: int, due_at: datetime) -> int:
        """Lift the chat's snooze: what it held is due at `due_at` (now, or when the user's
        quiet hours end: monitor.users.due_time). Returns how many rows were brought forward.
        """
        due = to_text(due_at)
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

        Keep well over the longest cooldown: a refresh reads the cooling rows (storage.refresh),
        and the unique key stops a re-derived old event only while its row exists.
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
