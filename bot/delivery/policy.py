"""What each of Telegram's refusals means for delivery, and how long things wait: the
decisions, on a clock; the sender (bot.delivery.sender) carries them out.

* A 429 pauses what it covers: that chat, or every send when two chats are flooded within
  FLOOD_WINDOW_S (a bot-wide flood), for at most `flood_cap` seconds.
* Transport errors (5xx, network) from two chats with no success between, or any 401, mean
  Telegram itself is down: every send pauses, 1 s doubling to 30 s.
* Any other failure is the chat's: it backs off from `backoff_base` doubling to
  `backoff_cap`, and after `max_attempts` tries its message is given up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from aiogram.exceptions import TelegramAPIError, TelegramUnauthorizedError

logger = logging.getLogger(__name__)

# Two chats answered 429 within this many seconds: the flood is the bot's, not one chat's.
FLOOD_WINDOW_S = 2.0
# Backoff of the "Telegram is down" pause (transport errors from two chats in a row).
OUTAGE_BACKOFF_S = (1.0, 30.0)


@dataclass(frozen=True)
class Flood:
    """What a 429 covers. `pause`: every send waits that long (bot-wide), else None (the
    chat alone). `retry_now`: the same message goes again after the pause; otherwise it goes
    back to the outbox, due when Telegram said."""

    pause: float | None
    retry_now: bool


class DeliveryPolicy:
    def __init__(
        self,
        *,
        clock: Callable[[], float],
        max_attempts: int = 10,
        backoff_base: float = 2.0,
        backoff_cap: float = 600.0,
        flood_cap: float = 30.0,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        self._clock = clock
        self.max_attempts = max_attempts
        self._backoff_base = backoff_base
        self._backoff_cap = backoff_cap
        self.flood_cap = flood_cap
        self._floods: dict[int, float] = {}  # chat -> clock of its last 429
        self._outage_failures = 0  # consecutive "Telegram is down" pauses
        self._transport_failed: set[int] = set()  # chats, since the last accepted message

    def flood(self, chat_id: int, retry_after: float) -> Flood:
        """A 429 for `chat_id`: one chat's, or the bot's when another chat had one lately."""
        now = self._clock()
        bot_wide = any(
            other != chat_id and now - at <= FLOOD_WINDOW_S for other, at in self._floods.items()
        )
        self._floods[chat_id] = now
        if not bot_wide:
            logger.warning("429 for chat %s: it waits %s s", chat_id, retry_after)
            return Flood(None, retry_now=False)
        pause = min(float(retry_after), self.flood_cap)
        logger.warning("429 for several chats: every send waits %.0f s", pause)
        return Flood(pause, retry_now=retry_after <= self.flood_cap)

    def forget_old_floods(self) -> None:
        now = self._clock()
        for chat in [chat for chat, at in self._floods.items() if now - at > FLOOD_WINDOW_S]:
            del self._floods[chat]

    def telegram_down(self, chat_id: int, error: TelegramAPIError) -> float | None:
        """A transport error for `chat_id`: the pause for every send when the fault is
        Telegram's or the network's (two chats failing with no success between, or a 401),
        else None (the chat's failure). After a pause the message is retried without spending
        an attempt."""
        self._transport_failed.add(chat_id)
        bot_wide = isinstance(error, TelegramUnauthorizedError) or len(self._transport_failed) > 1
        if not bot_wide:
            return None
        low, high = OUTAGE_BACKOFF_S
        pause = min(high, low * 2.0 ** min(10, self._outage_failures))
        self._outage_failures += 1
        logger.warning("Telegram unreachable (%s): every send waits %.0f s", error, pause)
        return pause

    def accepted(self) -> None:
        """Telegram took a message: it is up."""
        self._transport_failed.clear()
        self._outage_failures = 0

    def backoff(self, tries: int) -> float | None:
        """The chat's wait after its `tries`-th failed try, or None: give the message up."""
        if tries >= self.max_attempts:
            return None
        return min(self._backoff_cap, self._backoff_base * 2.0 ** (tries - 1))
