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
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

from monitor.events import Event, EventKind
from monitor.offers import Offer, Price, StockState, Vat
from monitor.queueing import Queued
from monitor.subscriptions import WatchFilter
from monitor.users import Language
from storage.sql import (
    Connection,
    Database,
    Dialect,
    Row,
    greatest,
    in_list,
    list_value,
    moment_of,
    moment_value,
    not_in_list,
    scalar,
)
from storage.subscriptions import filter_from_json

OutboxStatus = Literal["pending", "sent", "dropped"]

PAYLOAD_VERSION = 1


def to_text(moment: datetime) -> str:
    """UTC with microseconds always present: fixed width, so text order is time order.

    SQLite's form of the outbox's times (storage.sql.moment_value at microseconds)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _moment(dialect: Dialect, moment: datetime) -> object:
    # The outbox keeps microseconds: rows made within one second keep their order.
    return moment_value(dialect, moment, "microseconds")


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
    # Each time in the rows, text (SQLite's form) -> the moment (PostgreSQL's form).
    moments: Mapping[str, datetime]


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
    return PreparedAlerts(
        tuple(payloads), tuple(rows), {text: moment for moment, text in texts.items()}
    )


async def insert_alerts(connection: Connection, prepared: PreparedAlerts) -> int:
    """Write the rows; returns how many were new (an alert already queued by an earlier
    refresh, the same dedupe key, is left as it is). Call inside the caller's transaction."""
    if not prepared.rows:
        return 0
    if connection.dialect == "postgresql":
        return await _insert_alerts_postgresql(connection, prepared)
    # Explicit ids, so one executemany stores every payload and the rows know theirs: the
    # caller's write transaction keeps anyone else from taking the same ids meanwhile (SQLite
    # has one writer at a time).
    first = int(await scalar(connection, "SELECT coalesce(max(id), 0) + 1 FROM outbox_events"))
    await connection.executemany(
        "INSERT INTO outbox_events (id, payload) VALUES (?, ?)",
        [(first + number, payload) for number, payload in enumerate(prepared.payloads)],
    )
    before = await scalar(connection, "SELECT total_changes()")
    await connection.executemany(
        "INSERT INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider, sku,"
        " location, created_at, due_at, held, cooling_until, event_id, payload)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')"
        " ON CONFLICT (dedupe_key) DO NOTHING",
        [(*row[:-1], first + row[-1]) for row in prepared.rows],
    )
    # Rows the unique key turned away change nothing, so they are not counted.
    return int(await scalar(connection, "SELECT total_changes()")) - int(before)


async def _insert_alerts_postgresql(connection: Connection, prepared: PreparedAlerts) -> int:
    """The payloads under ids from their sequence, then every row in ONE statement over
    arrays (asyncpg's executemany would make one trip per row); its status line counts the
    rows the unique key let in.

    Per row go only what differs per row (chat, subscription, dedupe key, held); what rows
    share goes once (an event's kind and offer, each distinct due or cooldown time), and each
    row points at it: encoding 20k timestamps and offer keys was a third of the statement.
    """
    found = await connection.fetchall(
        "SELECT nextval(pg_get_serial_sequence('outbox_events', 'id')) FROM generate_series(1, ?)",
        (len(prepared.payloads),),
    )
    ids = [row[0] for row in found]
    await connection.execute(
        "INSERT INTO outbox_events (id, payload)"
        " SELECT * FROM unnest(CAST(? AS bigint[]), CAST(? AS text[]))",
        (ids, list(prepared.payloads)),
    )
    columns = list(zip(*prepared.rows, strict=True))
    # What each event number stands for (rows of one event agree), in number order.
    offers = dict(zip(columns[11], zip(*columns[3:7], strict=True), strict=True))
    kinds, providers, skus, locations = zip(*(offers[n] for n in range(len(ids))), strict=True)
    times = {text: place for place, text in enumerate(set(columns[8] + columns[10]), start=1)}
    moments = prepared.moments
    return await connection.execute(
        _INSERT_OUTBOX_ARRAYS,
        {
            "chats": columns[0],
            "subscriptions": columns[1],
            "keys": columns[2],
            "held": columns[9],
            "events": [number + 1 for number in columns[11]],  # SQL arrays count from 1
            "dues": [times[text] for text in columns[8]],
            "coolings": [times[text] for text in columns[10]],
            "ids": ids,
            "kinds": kinds,
            "providers": providers,
            "skus": skus,
            "locations": locations,
            "created": moments[columns[7][0]],  # one refresh, one creation time
            "times": [moments[text] for text in times],
        },
    )


_INSERT_OUTBOX_ARRAYS = (
    "INSERT INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider, sku, location,"
    " created_at, due_at, held, cooling_until, event_id, payload)"
    " SELECT r.chat_id, r.subscription_id, r.dedupe_key,"
    " (CAST(:kinds AS text[]))[r.event], (CAST(:providers AS text[]))[r.event],"
    " (CAST(:skus AS text[]))[r.event], (CAST(:locations AS text[]))[r.event],"
    " CAST(:created AS timestamptz), (CAST(:times AS timestamptz[]))[r.due], r.held,"
    " (CAST(:times AS timestamptz[]))[r.cooling], (CAST(:ids AS bigint[]))[r.event], ''"
    " FROM unnest(CAST(:chats AS bigint[]), CAST(:subscriptions AS bigint[]),"
    " CAST(:keys AS text[]), CAST(:held AS integer[]), CAST(:events AS integer[]),"
    " CAST(:dues AS integer[]), CAST(:coolings AS integer[]))"
    " AS r (chat_id, subscription_id, dedupe_key, held, event, due, cooling)"
    " ON CONFLICT (dedupe_key) DO NOTHING"
)


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

    A claim leases rows to one sender until `claimed_until`. On PostgreSQL several replicas
    claim from one outbox at once: each claims whole chats, under a transaction lock per chat
    and FOR UPDATE SKIP LOCKED per row, so no row and no chat is ever held by two senders,
    and a chat's messages keep their order.

    The duplicate bound: a row claimed by a replica that dies (kill -9, a lost host) is
    claimed again once its lease ends. If the dead replica had already sent it and had not
    yet marked it sent, the user gets it twice. At most the messages a sender had in flight
    when it died come twice (GPURADAR_SEND_CONCURRENCY chats, one message each); nothing is
    lost. With SQLite one process holds the database (bot.startup locks the file), so there is one
    claimer, and `release_claims()` at its start gives the dead process's claims back at once.
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
    ) -> list[OutboxRow]:
        """Claim up to `limit` due pending rows, at most `per_chat` of any one chat, until
        `now + lease`; oldest first. Rows claimed by someone else (a live lease) are skipped,
        and so are the chats in `skip_chats` (messaged a moment ago: pacing).

        On PostgreSQL a chat with any row under a live lease is skipped whole, and so is a
        chat messaged less than `chat_gap` before `now` (by any replica): the limiter's
        per-chat gap (bot.delivery.limiter), which one process keeps in memory (`skip_chats`)
        but replicas keep only here.
        """
        async with self._db.transaction() as connection:
            if connection.dialect == "postgresql":
                rows = await _claim_chats(
                    connection, now, limit, per_chat, lease, now - chat_gap, skip_chats
                )
            else:
                rows = await _claim_rows(connection, now, limit, per_chat, lease, skip_chats)
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
        due = None if due_at is None else _moment(self._db.dialect, due_at)
        return await self._update_ids(
            "claimed_until = NULL, due_at = coalesce(?, due_at),"
            " attempts = attempts + ?, last_error = coalesce(?, last_error)",
            (due, int(failed), _reason(error)),
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
            dialect = connection.dialect
            await connection.execute(
                "UPDATE outbox SET attempts = attempts + ?, last_error = ?"  # noqa: S608
                f" WHERE status = 'pending' AND id {in_list(dialect)}",
                (int(failed), _reason(error), list_value(dialect, ids)),
            )
            return await connection.execute(
                f"UPDATE outbox SET due_at = {greatest(dialect, 'due_at', '?')},"  # noqa: S608
                " claimed_until = NULL WHERE chat_id = ? AND status = 'pending'",
                (_moment(dialect, due_at), chat_id),
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

    async def oldest_due(self, now: datetime) -> datetime | None:
        """When the longest-waiting due pending row became due (for "outbox stuck")."""
        async with self._db.access() as connection:
            found = await scalar(
                connection,
                "SELECT min(due_at) FROM outbox WHERE status = 'pending' AND due_at <= ?",
                (_moment(connection.dialect, now),),
            )
        return None if found is None else moment_of(found)

    async def outbox_rows(self, chat_id: int | None = None) -> list[OutboxRow]:
        """Every row (any status) in insertion order; for inspection, not for the hot path."""
        query = f"SELECT {_ROW_COLUMNS} FROM {_ROW_TABLES}"  # noqa: S608 - fixed parts
        params: tuple[int, ...] = ()
        if chat_id is not None:
            query += " WHERE outbox.chat_id = ?"
            params = (chat_id,)
        async with self._db.access() as connection:
            rows = await connection.fetchall(query + " ORDER BY outbox.id", params)
        return _outbox_rows(rows)

    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int:
        """Telegram accepted these; only pending rows change, so a late mark is harmless."""
        return await self._update_ids(
            "status = 'sent', sent_at = ?, attempts = attempts + 1, claimed_until = NULL",
            (_moment(self._db.dialect, at),),
            ids,
        )

    async def extend_claims(self, ids: Sequence[int], until: datetime) -> int:
        """Renew a live sender's claims (Sender._renew_claims); settled rows stay settled."""
        return await self._update_ids("claimed_until = ?", (_moment(self._db.dialect, until),), ids)

    async def mark_dropped(self, ids: Sequence[int], reason: str) -> int:
        """Never to be sent; the reason is kept in last_error."""
        return await self._update_ids(
            "status = 'dropped', last_error = ?, claimed_until = NULL", (_reason(reason),), ids
        )

    async def pending_count(self) -> int:
        async with self._db.access() as connection:
            found = await scalar(connection, "SELECT count(*) FROM outbox WHERE status = 'pending'")
        return int(found)

    async def drop_subscription(self, chat_id: int, subscription_id: int, reason: str) -> int:
        """Drop a subscription's pending rows (it was muted or deleted from an alert)."""
        async with self._db.transaction() as connection:
            return await connection.execute(
                "UPDATE outbox SET status = 'dropped', last_error = ?"
                " WHERE chat_id = ? AND subscription_id = ? AND status = 'pending'",
                (reason[:500], chat_id, subscription_id),
            )

    async def defer_chat(self, chat_id: int, until: datetime) -> int:
        """Snooze a chat: nothing is due before `until`, including alerts queued meanwhile.

        Returns how many pending rows were pushed back.
        """
        async with self._db.transaction() as connection:
            moment = _moment(connection.dialect, until)
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
                (chat_id, _moment(connection.dialect, now)),
            )
        return None if found is None else moment_of(found)

    async def end_snooze(self, chat_id: int, due_at: datetime) -> int:
        """Lift the chat's snooze: what it held is due at `due_at` (now, or when the user's
        quiet hours end: monitor.users.due_time). Returns how many rows were brought forward.
        """
        async with self._db.transaction() as connection:
            due = _moment(connection.dialect, due_at)
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
                (_moment(connection.dialect, before),),
            )
            await connection.execute(
                "DELETE FROM outbox_events WHERE id NOT IN"
                " (SELECT event_id FROM outbox WHERE event_id IS NOT NULL)"
            )
        return purged

    async def _update_ids(
        self, assignments: str, values: tuple[object, ...], ids: Sequence[int]
    ) -> int:
        """One UPDATE of the pending rows among `ids` (a single list parameter, any length).

        The sender marks every message: one statement is atomic on its own (autocommit),
        and skipping BEGIN/COMMIT saves two of three trips to the database.
        """
        if not ids:
            return 0
        async with self._db.write() as connection:
            dialect = connection.dialect
            return await connection.execute(
                f"UPDATE outbox SET {assignments}"  # noqa: S608 - fixed assignments
                f" WHERE status = 'pending' AND id {in_list(dialect)}",
                (*values, list_value(dialect, ids)),
            )


async def _claim_rows(
    connection: Connection,
    now: datetime,
    limit: int,
    per_chat: int,
    lease: timedelta,
    skip_chats: Collection[int],
) -> list[Row]:
    """SQLite's claim: the one sender, inside the write transaction that the one writer holds."""
    dialect = connection.dialect
    moment = _moment(dialect, now)
    found = await connection.fetchall(
        "WITH ranked AS (SELECT id, due_at, row_number() OVER"  # noqa: S608
        "  (PARTITION BY chat_id ORDER BY due_at, id) AS n FROM outbox"
        "  WHERE status = 'pending' AND due_at <= :now"
        "  AND (claimed_until IS NULL OR claimed_until <= :now)"
        f"  AND chat_id {not_in_list(dialect, ':skip')})"
        " SELECT id FROM ranked WHERE n <= :per_chat ORDER BY due_at, id LIMIT :limit",
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
        f"UPDATE outbox SET claimed_until = ? WHERE id {in_list(dialect)}",  # noqa: S608
        (_moment(dialect, now + lease), ids),
    )
    return await connection.fetchall(
        f"SELECT {_ROW_COLUMNS}, users.language AS language,"  # noqa: S608
        f" subscriptions.filter AS watch FROM {_ROW_TABLES}"
        " LEFT JOIN users ON users.chat_id = outbox.chat_id"
        " LEFT JOIN subscriptions ON subscriptions.id = outbox.subscription_id"
        f" WHERE outbox.id {in_list(dialect)} ORDER BY outbox.due_at, outbox.id",
        (ids,),
    )


async def _claim_chats(
    connection: Connection,
    now: datetime,
    limit: int,
    per_chat: int,
    lease: timedelta,
    paced: datetime,
    skip_chats: Collection[int],
) -> list[Row]:
    """PostgreSQL's claim, for several replicas at once, in three statements:

    1. the chats with due rows, none under a live lease, none messaged after `paced`, the
       longest-waiting first;
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
        "limit": limit,
    }
    chats = await connection.fetchall(
        f"SELECT chat_id FROM outbox WHERE {_CLAIMABLE} AND chat_id <> ALL(CAST(:skip AS bigint[]))"  # noqa: S608
        " GROUP BY chat_id ORDER BY min(due_at), min(id) LIMIT :limit",
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
        "  WHERE n <= :per_chat ORDER BY due_at, id LIMIT :limit) FOR UPDATE SKIP LOCKED),"
        " claimed AS (UPDATE outbox SET claimed_until = :until"
        "  WHERE id IN (SELECT id FROM picked) RETURNING *)"
        " SELECT claimed.*, coalesce(outbox_events.payload, claimed.payload) AS event_payload,"
        " users.language AS language, subscriptions.filter AS watch FROM claimed"
        " LEFT JOIN outbox_events ON outbox_events.id = claimed.event_id"
        " LEFT JOIN users ON users.chat_id = claimed.chat_id"
        " LEFT JOIN subscriptions ON subscriptions.id = claimed.subscription_id"
        " ORDER BY claimed.due_at, claimed.id",
        {
            "now": now,
            "paced": paced,
            "chats": [row[0] for row in locked],
            "per_chat": per_chat,
            "limit": limit,
            "until": now + lease,
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


async def drop_pending(connection: Connection, chat_id: int, reason: str) -> int:
    """Drop every pending row of a chat (a 403: Store.block), in the caller's transaction."""
    return await connection.execute(
        "UPDATE outbox SET status = 'dropped', last_error = ?"
        " WHERE chat_id = ? AND status = 'pending'",
        (reason[:500], chat_id),
    )


def _reason(text: str | None) -> str | None:
    return None if text is None else text[:500]


# A row with its event's payload: from outbox_events, or its own for rows queued before 0007.
_ROW_COLUMNS = "outbox.*, coalesce(outbox_events.payload, outbox.payload) AS event_payload"
_ROW_TABLES = "outbox LEFT JOIN outbox_events ON outbox_events.id = outbox.event_id"


def _outbox_rows(rows: Iterable[Row]) -> list[OutboxRow]:
    events: dict[str, Event] = {}  # a fan-out's rows share one payload: parse it once
    return [_outbox_row(row, events) for row in rows]


def _outbox_row(row: Row, events: dict[str, Event]) -> OutboxRow:
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
        created_at=moment_of(row["created_at"]),
        due_at=moment_of(row["due_at"]),
        status=cast(OutboxStatus, row["status"]),
        attempts=row["attempts"],
        last_error=row["last_error"],
        sent_at=None if sent_at is None else moment_of(sent_at),
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
