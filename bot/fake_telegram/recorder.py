"""Call log with listeners and sleep-free waiting; the base of FakeBotApi."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from .models import ApiCall, ApiRequest
from .sync import ChangeSignal

__all__ = ["CallRecorder", "Listener"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
Listener = Callable[[ApiCall], None]


# How long a test waits for the bot to do something before calling it a failure. The failure
# guarded is "never": a loaded machine may take seconds over what takes a quiet one
# milliseconds (a cold chart worker imports matplotlib), so the deadline is long.
WAIT_S = 60.0


class CallRecorder:
    """Records every answered request and lets callers wait for calls or any state change."""

    def __init__(self) -> None:
        self.calls: list[ApiCall] = []
        self._signal = ChangeSignal()
        self._listeners: list[Listener] = []

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(call)`` after every successful call (console mode prints replies)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def mark(self) -> int:
        """The index the next call will get: ``wait_for_call(..., after=api.mark())``."""
        return len(self.calls)

    def calls_of(self, method: str) -> list[ApiCall]:
        wanted = method.lower()
        return [call for call in self.calls if call.method.lower() == wanted]

    async def wait_for_call(
        self,
        method: str,
        *,
        predicate: Callable[[ApiCall], bool] | None = None,
        timeout: float = WAIT_S,  # noqa: ASYNC109 - a per-wait deadline is this helper's point
        after: int = 0,
    ) -> ApiCall:
        """The first call of ``method`` with index >= ``after`` that matches ``predicate``."""
        wanted = method.lower()

        def find() -> ApiCall | None:
            for call in self.calls[after:]:
                if call.method.lower() == wanted and (predicate is None or predicate(call)):
                    return call
            return None

        what = f"{method} call" + (" matching the predicate" if predicate else "")
        return await self.wait_until(find, timeout=timeout, what=f"{what} (index >= {after})")

    async def wait_until(
        self,
        condition: Callable[[], T | None],
        *,
        timeout: float = WAIT_S,  # noqa: ASYNC109
        what: str = "condition",
    ) -> T:
        """Wait for ``condition()`` to return non-None; it is re-checked after every change.

        On timeout raise ``TimeoutError`` listing the recent calls, which is usually enough to
        see why (a handler failed, the bot sent something else, a 400 came back, ...).
        """
        try:
            async with asyncio.timeout(timeout):
                return await self._signal.wait_for(condition)
        except TimeoutError:
            raise TimeoutError(f"no {what} within {timeout} s; {self.describe()}") from None

    def describe(self, count: int = 10) -> str:
        """The last ``count`` calls, one per line, for error messages."""
        lines = [call.summary() for call in self.calls[-count:]] or ["(none)"]
        return f"last {count} calls:\n  " + "\n  ".join(lines)

    def _record(self, request: ApiRequest, status: int, envelope: dict[str, Any]) -> ApiCall:
        call = ApiCall(
            index=len(self.calls),
            method=request.method,
            params=request.params,
            files=request.files,
            time=request.time,
            status=status,
            response=envelope,
        )
        self.calls.append(call)
        self._signal.notify()
        if call.ok:
            for listener in list(self._listeners):
                try:
                    listener(call)
                except Exception:
                    # A broken printer must not turn into a Telegram error for the bot.
                    logger.exception("listener %r failed on %s", listener, call.method)
        return call
