"""Per-user flood control: a few answers in a row, then one per interval, and one notice per
flood at its first dropped update (the rule: monitor.flood). A message is judged at the time
Telegram dated it, so a backlog is answered as it was sent. Callback queries have their own
bucket and are answered with a toast, never with a message.

Replicas that each answer updates (webhook mode, or a takeover) share the flows through
PostgreSQL (storage.flows), so a user's flood spread over several replicas is still one flood.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, Message, TelegramObject
from aiogram.types import User as TelegramUser

from estimator.i18n import Translator
from monitor.flood import FORGET_AFTER_S, Flow, FlowKey, Verdict, judge

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

_PRUNE_EVERY = 1024


class FlowStore(Protocol):
    async def judge_flow(self, key: FlowKey, sent_at: float | None, interval: float) -> Verdict:
        """Judge the update sent at `sent_at` (Unix seconds; None: now, by the store's clock)
        and keep the user's new flow, atomically per user."""


class LocalFlows:
    """This process's flows: enough while one replica answers every update (polling)."""

    # Wall time, as Telegram's dates are.
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._flows: dict[FlowKey, Flow] = {}
        self._seen = 0

    async def judge_flow(self, key: FlowKey, sent_at: float | None, interval: float) -> Verdict:
        now = self._clock()
        self._maybe_prune(now)
        at = now if sent_at is None else sent_at
        verdict, self._flows[key] = judge(self._flows.get(key), at, interval)
        return verdict

    def _maybe_prune(self, now: float) -> None:
        self._seen += 1
        if self._seen % _PRUNE_EVERY:
            return
        stale = [
            key for key, flow in self._flows.items() if now - flow.last_arrival > FORGET_AFTER_S
        ]
        for key in stale:
            del self._flows[key]


class ThrottlingMiddleware(BaseMiddleware):
    def __init__(self, interval: float = 1.0, flows: FlowStore | None = None) -> None:
        self._interval = interval
        self._flows: FlowStore = flows or LocalFlows()

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        sender: TelegramUser | None = data.get("event_from_user")
        if sender is None or self._interval <= 0:
            return await handler(event, data)
        # A message at the time Telegram dated it; a button press (undated) at its arrival.
        sent_at = event.date.timestamp() if isinstance(event, Message) else None
        key = (type(event).__name__, sender.id)
        verdict = await self._flows.judge_flow(key, sent_at, self._interval)
        if verdict == "answer":
            return await handler(event, data)
        if isinstance(event, CallbackQuery):
            await event.answer(self._text(data, "throttled-callback"))
        elif verdict == "notice" and isinstance(event, Message):
            await event.answer(self._text(data, "throttled"))
        return None

    def _text(self, data: dict[str, Any], key: str) -> str:
        translator: Translator | None = data.get("i18n")
        return translator(key) if translator else key
