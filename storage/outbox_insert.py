"""Writing alerts into the outbox, inside the refresh's transaction (storage.refresh): the rows
monitor.queueing decided on, made ready before the transaction opens, then inserted."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from monitor.queueing import Queued
from storage.outbox_codec import event_to_json, to_text
from storage.sql import Connection, scalar


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
