"""An alert as the delivery outbox holds it: queued for one chat, then sent or dropped.

The row is a domain value, not a storage detail: the sender and the alert texts read it, and
storage.outbox only decodes it from the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from monitor.events import Event
from monitor.subscriptions import WatchFilter
from monitor.users import Language

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
