"""Pacing for the sender: a reserving token bucket on an injectable monotonic clock."""

from __future__ import annotations

from collections.abc import Callable


class TokenBucket:
    """`rate` sends per second on average, at most `burst` at once after an idle spell.

    `reserve()` takes the token immediately and says how long to wait before using it. Taking
    first (the balance may go negative) lets concurrent senders queue up fairly, each with its
    own slot, instead of all waking at the same moment and racing for one token.
    """

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._stamp = clock()

    def reserve(self) -> float:
        """Take one token; returns the seconds to wait before sending (0: send now)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        self._tokens -= 1
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate
