"""An alert: one event that one subscription wants, on its way to one chat."""

from __future__ import annotations

from typing import NamedTuple

from monitor.events import Event

# A watch's cooldown unless the user asks for another (/watch ... cooldown=1h): one alert per
# offer and kind in six hours keeps a flapping stock flag from paging anyone all day.
DEFAULT_COOLDOWN_S = 6 * 3600


class Alert(NamedTuple):
    """Immutable, and a tuple underneath: a refresh may build hundreds of thousands of these
    (bench/match.py), and a tuple is the cheapest immutable object Python creates."""

    chat_id: int
    subscription_id: int
    event: Event
    # The subscription's cooldown, taken from the index entry that matched: queueing needs
    # no second look-up into the index the alert just came from.
    cooldown_s: int = DEFAULT_COOLDOWN_S

    @property
    def dedupe_key(self) -> str:
        """Unique per subscription + offer + event: inserting the same alert twice is a no-op."""
        return f"{self.subscription_id}|{self.event.key}"
