"""The Bot API session: aiogram's aiohttp one, closed without a pause where nothing is TLS.

aiogram's `AiohttpSession.close` sleeps 250 ms after closing, so that TLS connections finish
their shutdown (aiohttp's "graceful shutdown"). Against `https://api.telegram.org` that stays;
a plain-http API (a local Bot API server, the console's in-process one, the tests' fakes) has
no TLS to wait for, and every stop of the bot paid the quarter second for nothing.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer


class ApiSession(AiohttpSession):
    def __init__(self, api_url: str, **options: Any) -> None:
        super().__init__(api=TelegramAPIServer.from_base(api_url), **options)
        self.tls = urlsplit(api_url).scheme != "http"

    async def close(self) -> None:
        if self.tls:
            await super().close()
        elif self._session is not None and not self._session.closed:
            await self._session.close()
