"""The Bot API session: aiogram's aiohttp one, closed without a pause where nothing is TLS,
and with each answer's model built once.

aiogram's `AiohttpSession.close` sleeps 250 ms after closing, so that TLS connections finish
their shutdown (aiohttp's "graceful shutdown"). Against `https://api.telegram.org` that stays;
a plain-http API (a local Bot API server, the console's in-process one, the tests' fakes) has
no TLS to wait for, and every stop of the bot paid the quarter second for nothing.

aiogram reads every answer as `Response[T]` (BaseSession.check_response), and pydantic keeps a
parametrized model only as long as something else refers to it (a weak cache): each time the
cyclic collector freed `Response[list[Update]]` or `Response[Message]`, the next answer built
it again, milliseconds of CPU each. The session holds every one it has used.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import TelegramMethod
from aiogram.methods.base import Response, TelegramType

# Response[T] for each answer type T read so far in this process (see above).
_ANSWER_MODELS: dict[object, type[Response[Any]]] = {}


class ApiSession(AiohttpSession):
    def __init__(self, api_url: str, **options: Any) -> None:
        super().__init__(api=TelegramAPIServer.from_base(api_url), **options)
        self.tls = urlsplit(api_url).scheme != "http"
        self.stopped = False

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 (aiogram's signature)
    ) -> TelegramType:
        if self.stopped:
            # A handler or sender still running as the bot stops: aiogram would open a new
            # session that nobody closes. A network error, as a vanished API would give.
            raise TelegramNetworkError(method=method, message="the bot is stopping")
        returning = method.__returning__
        if returning not in _ANSWER_MODELS:
            _ANSWER_MODELS[returning] = Response[returning]  # type: ignore[valid-type]
        return await super().make_request(bot, method, timeout)

    async def close(self) -> None:
        # aiogram's create_session also calls close() (to reset the connector) before the
        # first request, with no session yet: only closing a session stops this one.
        self.stopped = self.stopped or self._session is not None
        if self.tls:
            await super().close()
        elif self._session is not None and not self._session.closed:
            await self._session.close()
