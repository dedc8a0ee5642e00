"""The delivery outbox: alerts written by the refresh's commit, drained by the sender.

One module per job: storage.outbox_codec (the payload and the stored forms),
storage.outbox_insert (the refresh's insert), storage.outbox_claims (the sender's claims and
their leases), storage.outbox_marks (what settles a row: sent, dropped, retried, snoozed, and
the purge). Here: the decoding of the row the sender reads (monitor.outbox.OutboxRow). No
delivery rule lives in any of them: cooldown, quiet hours, snoozes and dedupe are worked out in
monitor.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import cast

from monitor.events import Event
from monitor.outbox import OutboxRow, OutboxStatus
from monitor.subscriptions import WatchFilter
from monitor.users import Language
from storage.outbox_codec import event_from_json
from storage.sql import Row, moment_of
from storage.subscriptions import filter_from_json

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
