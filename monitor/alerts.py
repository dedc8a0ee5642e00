"""An alert: one event that one subscription wants, on its way to one chat."""

from __future__ import annotations

from typing import NamedTuple

from monitor.events import Event


class Alert(NamedTuple):
    """Immutable, and a tuple underneath: a refresh may build hundreds of thousands of these
    (bench/match.py), and a tuple is the cheapest immutable object Python creates."""

    chat_id: int
    subscription_id: int
    event: Event

    @property
    def dedupe_key(self) -> str:
        """Unique per subscription + offer + event: inserting the same alert twice is a no-op."""
        return f"{self.subscription_id}|{self.event.key}"
