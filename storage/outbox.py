"""The delivery outbox: alerts written by the refresh's commit, drained by the sender.

One module per job: storage.outbox_codec (the payload and the stored forms),
storage.outbox_insert (the refresh's insert), storage.outbox_claims (the sender's claims and
their leases), storage.outbox_marks (what settles a row: sent, dropped, retried, snoozed, and
the purge). Here: the row as the sender reads it, and its decoding. No delivery rule lives in
any of them: cooldown, quiet hours, snoozes and dedupe are worked out in monitor.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from monitor.events import Event
from monitor.subscriptions import WatchFilter
from monitor.users import Language
from storage.outbox_codec import event_from_json
from storage.sql import Row, moment_of
from storage.subscriptions import filter_from_json

OutboxStatus = Literal["pending", "sent", "dropped"]


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


# A row with its event's payload: from outbox_events, or its own for rows queued before 0007.
ROW_COLUMNS = "outbox.*, coalesce(outbox_events.payload, outbox.payload) AS event_payload"
ROW_TABLES = "outbox LEFT JOIN outbox_events ON outbox_events.id = outbox.event_id"


def decode_rows(rows: Iterable[Row]) -> list[OutboxRow]:
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
