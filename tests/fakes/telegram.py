"""The fake Telegram for tests: the core fake Bot API plus faults, rate limits and helpers.

Typical use (fixtures in ``tests/fakes/conftest.py`` do the first two lines)::

    async with FakeTelegram() as tg, make_bot(tg) as bot:
        tg.flood_wait("sendMessage", retry_after=3)
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(42, "hi")

Faults are queued per method and consumed in order; blocked chats and rate limits apply until
changed.  Rate limits use an injectable clock, so tests advance time instead of sleeping.

Two bot instances polling at once are seen as Telegram sees them: a getUpdates that arrives
while another is held open makes the older one fail with 409 Conflict (the core fake does that);
each such answer is kept in :attr:`FakeTelegram.conflicts`, stamped on the same clock, so a test
can assert that none came after a warm-up.  A 409 answered to a client that had already gone
(a bot killed while its poll was held) reached nobody: it is kept, marked, and left out of
:meth:`FakeTelegram.conflicts_since`.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import ErrorEvent
from aiohttp import web

from bot.fake_telegram import (
    ApiCall,
    ApiError,
    ApiRequest,
    FakeBotApi,
    InlineButton,
    SentMessage,
)
from bot.fake_telegram.recorder import WAIT_S

__all__ = [
    "BLOCKED",
    "TOKEN",
    "Conflict",
    "FakeTelegram",
    "LocalSession",
    "TokenBucket",
    "make_bot",
    "polling",
]

TOKEN = "123456:TEST"
BLOCKED = "Forbidden: bot was blocked by the user"
# Methods that count as "messages" for Telegram's flood limits.
RATE_LIMITED = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "sendmediagroup",
        "sendvideo",
        "sendanimation",
        "sendaudio",
        "sendvoice",
        "sendsticker",
        "sendlocation",
        "sendpoll",
        "copymessage",
        "forwardmessage",
    }
)


def too_many_requests(retry_after: int) -> ApiError:
    # retry_after must stay >= 1: aiogram checks it for truthiness (docs/telegram.md §Errors).
    retry_after = max(1, retry_after)
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


@dataclass
class _Fault:
    error: ApiError | None  # None: reset the connection instead of answering
    times: int


@dataclass(frozen=True)
class Conflict:
    """One getUpdates answered 409 because a newer one arrived while it was held open."""

    at: float  # FakeTelegram.clock() when the 409 was answered
    call: ApiCall
    heard: bool  # the client was still connected to receive it


# The HTTP request being answered, for _record (called deep inside the core's _handle, in the
# same task): whether its client is still connected.
_ANSWERING: ContextVar[web.Request | None] = ContextVar("fake_telegram_answering", default=None)


class _ResetConnectionError(Exception):
    """Raised by intercept(); _handle() drops the connection without an answer."""


class TokenBucket:
    """``rate`` messages per second with bursts up to ``burst``, on an injectable clock."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._stamp: float | None = None

    def wait_time(self) -> float:
        """Seconds until one message may go (0 when it may go now)."""
        now = self._clock()
        if self._stamp is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        # The epsilon absorbs float noise: 1/30 s at 30 msg/s must buy exactly one message.
        return 0.0 if self._tokens >= 1 - 1e-9 else (1 - self._tokens) / self.rate

    def take(self) -> None:
        self._tokens -= 1


class FakeTelegram(FakeBotApi):
    """FakeBotApi with the failures a real Telegram produces, on demand."""

    def __init__(
        self,
        *,
        per_chat_per_second: float | None = None,
        per_chat_burst: int = 1,
        global_per_second: float | None = None,
        global_burst: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        latency: float = 0.0,
        **kwargs: Any,
    ) -> None:
        """Rate limits are off unless a rate is given (ordinary tests are not throttled).

        Telegram's documented limits are ``per_chat_per_second=1`` and
        ``global_per_second=30``; the global burst defaults to one second's worth.
        ``latency`` is a round trip in seconds: half before the request "arrives" (is
        stamped, rate-limited and answered), half before the answer leaves.
        """
        super().__init__(**kwargs)
        self.clock = clock
        self.latency = latency
        self.resets = 0  # connections dropped by reset_chat
        self.conflicts: list[Conflict] = []  # 409s: two pollers overlapped
        self._faults: dict[str, deque[_Fault]] = {}
        self._chat_faults: dict[int, deque[_Fault]] = {}
        self._blocked: dict[int, str] = {}
        self._per_chat_rate = per_chat_per_second
        self._per_chat_burst = per_chat_burst
        self._chat_buckets: dict[int, TokenBucket] = {}
        self._global_bucket = (
            TokenBucket(
                global_per_second,
                global_burst or max(1, math.floor(global_per_second)),
                clock,
            )
            if global_per_second is not None
            else None
        )

    # --- faults ----------------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        status: int = 500,
        description: str = "Internal Server Error",
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` with this error (queued in order)."""
        error = ApiError(status, description, retry_after=retry_after)
        self._faults.setdefault(method.lower(), deque()).append(_Fault(error, times))

    def flood_wait(self, method: str = "sendMessage", retry_after: int = 3, times: int = 1) -> None:
        """429 "Too Many Requests: retry after N" -> aiogram's ``TelegramRetryAfter``."""
        error = too_many_requests(retry_after)
        self.fail_next(method, error.status, error.description, error.retry_after, times)

    def server_error(
        self,
        method: str = "sendMessage",
        status: int = 502,
        description: str = "Bad Gateway",
        times: int = 1,
    ) -> None:
        """A 5xx -> aiogram's ``TelegramServerError``."""
        self.fail_next(method, status, description, times=times)

    def fail_chat(
        self,
        chat_id: int,
        status: int = 502,
        description: str = "Bad Gateway",
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` rate-limited sends to ``chat_id`` with this error."""
        error = ApiError(status, description, retry_after=retry_after)
        self._chat_faults.setdefault(chat_id, deque()).append(_Fault(error, times))

    def flood_chat(self, chat_id: int, retry_after: int = 3, times: int = 1) -> None:
        """A 429 for this chat only, as Telegram's per-chat limit gives."""
        error = too_many_requests(retry_after)
        self.fail_chat(chat_id, error.status, error.description, error.retry_after, times)

    def reset_chat(self, chat_id: int, times: int = 1) -> None:
        """Drop the connection of the next ``times`` sends to ``chat_id``, unanswered."""
        self._chat_faults.setdefault(chat_id, deque()).append(_Fault(None, times))

    def block_chat(self, chat_id: int, description: str = BLOCKED) -> None:
        """Every call aimed at ``chat_id`` gets 403 until :meth:`unblock_chat`.

        ``description`` may be e.g. "Forbidden: user is deactivated".
        """
        self._blocked[chat_id] = description

    def unblock_chat(self, chat_id: int) -> None:
        self._blocked.pop(chat_id, None)

    async def _handle(self, http: web.Request) -> web.Response:
        if self.latency:
            await asyncio.sleep(self.latency / 2)
        answering = _ANSWERING.set(http)
        try:
            response = await super()._handle(http)
        except _ResetConnectionError:
            self.resets += 1
            if http.transport is not None:
                http.transport.abort()
            return web.Response(status=500)  # never reaches the client
        finally:
            _ANSWERING.reset(answering)
        if self.latency:
            await asyncio.sleep(self.latency / 2)
        return response

    async def intercept(self, request: ApiRequest) -> ApiError | None:
        method = request.method.lower()
        fault = _take(self._faults.get(method))
        if fault is not None:
            return fault.error
        chat_id = _chat_id(request)
        if chat_id is not None and method in RATE_LIMITED:
            fault = _take(self._chat_faults.get(chat_id))
            if fault is not None:
                if fault.error is None:
                    raise _ResetConnectionError
                return fault.error
        if chat_id is not None and chat_id in self._blocked:
            return ApiError(403, self._blocked[chat_id])
        if method in RATE_LIMITED and chat_id is not None:
            limited = self._rate_limit(chat_id)
            if limited is not None:
                return limited
        return await super().intercept(request)

    def _rate_limit(self, chat_id: int) -> ApiError | None:
        buckets = [self._global_bucket] if self._global_bucket is not None else []
        if self._per_chat_rate is not None:
            bucket = self._chat_buckets.get(chat_id)
            if bucket is None:
                bucket = TokenBucket(self._per_chat_rate, self._per_chat_burst, self.clock)
                self._chat_buckets[chat_id] = bucket
            buckets.append(bucket)
        wait = max((bucket.wait_time() for bucket in buckets), default=0.0)
        if wait > 0:
            # Telegram rounds up to whole seconds; shave float noise so 1.0000001 stays 1.
            return too_many_requests(math.ceil(wait - 1e-6))
        for bucket in buckets:
            bucket.take()
        return None

    def _record(self, request: ApiRequest, status: int, envelope: dict[str, Any]) -> ApiCall:
        call = super()._record(request, status, envelope)
        if status == 409 and call.method == "getUpdates":
            http = _ANSWERING.get()
            heard = http is None or (http.transport is not None and not http.transport.is_closing())
            self.conflicts.append(Conflict(self.clock(), call, heard))
        return call

    def conflicts_since(self, moment: float) -> list[Conflict]:
        """The 409s a client received at or after ``moment`` (on :attr:`clock`), e.g. after a
        warm-up; those answered to a client already gone are left out."""
        return [c for c in self.conflicts if c.at >= moment and c.heard]

    @property
    def connected_clients(self) -> int:
        """Client connections open now (a killed client's closes once the server notices)."""
        server = None if self._runner is None else self._runner.server
        handlers = [] if server is None else server.connections
        return sum(1 for handler in handlers if handler.transport is not None)

    # --- helpers ---------------------------------------------------------------------------

    @staticmethod
    def buttons(message: SentMessage) -> list[InlineButton]:
        """The message's inline keyboard flattened row by row."""
        return message.buttons()

    def texts(self, chat_id: int) -> list[str]:
        """Plain texts (captions for media) of what the bot sent to ``chat_id``, oldest first."""
        return [message.plain_text for message in self.messages(chat_id)]

    async def user_says(
        self,
        chat_id: int,
        text: str,
        *,
        timeout: float = WAIT_S,  # noqa: ASYNC109 - a per-wait deadline is this helper's point
        **user: Any,
    ) -> int:
        """Push a user message and wait until a polling bot has handled it."""
        update_id = self.push_message(chat_id, text, **user)
        await self.wait_confirmed(update_id, timeout)
        return update_id

    async def user_presses(
        self,
        chat_id: int,
        button: str | int,
        message: SentMessage | None = None,
        *,
        timeout: float = WAIT_S,  # noqa: ASYNC109
        **user: Any,
    ) -> int:
        """Press a button (see :meth:`press`) and wait until a polling bot has handled it."""
        update_id = self.press(chat_id, button, message, **user)
        await self.wait_confirmed(update_id, timeout)
        return update_id


def _take(queue: deque[_Fault] | None) -> _Fault | None:
    if not queue:
        return None
    fault = queue[0]
    fault.times -= 1
    if fault.times <= 0:
        queue.popleft()
    return fault


def _chat_id(request: ApiRequest) -> int | None:
    try:
        return int(request.params["chat_id"])
    except (KeyError, ValueError):
        return None


class LocalSession(AiohttpSession):
    """AiohttpSession without the 0.25 s sleep in ``close()``.

    aiogram sleeps so SSL connections can close; a plain-HTTP loopback server has none, and
    the sleep would add a quarter of a second to every test.
    """

    async def close(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()


@asynccontextmanager
async def make_bot(
    api: FakeBotApi,
    token: str = TOKEN,
    *,
    parse_mode: str | None = "HTML",
    request_timeout: float = 5.0,
) -> AsyncIterator[Bot]:
    """A real ``aiogram.Bot`` talking to ``api``; its session is closed on exit."""
    session = LocalSession(api=TelegramAPIServer.from_base(api.base_url), timeout=request_timeout)
    bot = Bot(token, session=session, default=DefaultBotProperties(parse_mode=parse_mode))
    try:
        yield bot
    finally:
        await bot.session.close()


@asynccontextmanager
async def polling(
    dp: Dispatcher, bot: Bot, *, raise_errors: bool = True, **workflow_data: Any
) -> AsyncIterator[list[Exception]]:
    """Run ``dp.start_polling`` for the block, the deterministic way.

    ``handle_as_tasks=False`` makes a confirmed update a handled one (see
    ``FakeBotApi.wait_confirmed``).  Handler exceptions, which polling would only log, are
    collected into the yielded list and re-raised as an ``ExceptionGroup`` on exit unless
    ``raise_errors`` is False.  ``workflow_data`` reaches handlers as keyword arguments.
    """
    errors: list[Exception] = []

    async def collect(event: ErrorEvent) -> bool:
        errors.append(event.exception)
        return True

    dp.errors.register(collect)
    task = asyncio.create_task(
        dp.start_polling(
            bot,
            polling_timeout=1,
            handle_signals=False,
            close_bot_session=False,
            handle_as_tasks=False,
            **workflow_data,
        )
    )
    try:
        yield errors
    finally:
        if dp._running_lock.locked():
            await dp.stop_polling()
            await asyncio.wait_for(task, 5)
        else:  # the block ended before polling got going; stop_polling would raise
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    if errors and raise_errors:
        raise ExceptionGroup("handlers raised during polling", errors)
