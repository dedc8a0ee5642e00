"""Telegram's webhook, each update handled once across replicas.

Telegram retries an update whose delivery got no 200 in time (Bot API, setWebhook: "In case
of an unsuccessful request, we will give up after a reasonable amount of attempts"), and
behind the proxy the retry may reach another replica than the first. Before aiogram handles
an update, its update_id is claimed in the shared database (storage.updates):

- a retry of an update already handled is answered 200 and not handled again;
- one another replica has in hand is answered 503 with Retry-After, so Telegram tries again
  later rather than taking a 200 from a replica that did nothing with it;
- a claim older than CLAIM_S that was never finished is taken over: the replica that made it
  died or froze, and the update must not be lost.

The secret header is checked first, so a request without it claims nothing. A body that is
not an update (not JSON, no update_id, fields of the wrong shape) is answered 400 and claims
nothing: it is not Telegram's, and no retry of it can ever be handled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from aiogram import Bot
from aiogram.types import Update
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web
from pydantic import ValidationError

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - a header name, not a secret
# Longer than any update takes to handle (a chart: a few seconds; a stop drains in-flight
# requests for 10 s, bot.ops.server.SHUTDOWN_TIMEOUT_S), so a claim this old was abandoned.
CLAIM_S = 30.0
# What a busy answer asks Telegram to wait before trying again.
RETRY_AFTER_S = 5


class UpdateClaims(Protocol):
    async def claim_update(
        self, update_id: int, holder: str, now: datetime, lease: timedelta
    ) -> Literal["mine", "done", "busy"]: ...

    async def finish_update(self, update_id: int, holder: str) -> None: ...

    async def release_update(self, update_id: int, holder: str) -> None: ...


class OnceWebhook:
    """Wraps aiogram's handler; `holder` is this replica's id."""

    def __init__(
        self,
        handler: SimpleRequestHandler,
        bot: Bot,
        claims: UpdateClaims,
        holder: str,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._handler = handler
        self._bot = bot
        self._claims = claims
        self._holder = holder
        self._now = now

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if not self._handler.verify_secret(request.headers.get(SECRET_HEADER, ""), self._bot):
            return web.Response(body="Unauthorized", status=401)
        update_id = await _update_id(request)
        if update_id is None:
            return web.json_response({"error": "not a Telegram update"}, status=400)
        try:
            claim = await self._claims.claim_update(
                update_id, self._holder, self._now(), timedelta(seconds=CLAIM_S)
            )
        except Exception as error:  # the database is out: the retry will find it back
            logger.warning("webhook update %s not claimed: %s", update_id, error)
            return _busy()
        if claim == "done":
            logger.info("webhook update %s was handled already: not again", update_id)
            return web.json_response({})
        if claim == "busy":
            return _busy()
        try:
            response = await self._handler.handle(request)
        except BaseException:
            await self._release(update_id)
            raise
        if response.status == 200:
            await self._claims.finish_update(update_id, self._holder)
        else:
            await self._release(update_id)
        return response

    async def _release(self, update_id: int) -> None:
        try:
            await self._claims.release_update(update_id, self._holder)
        except Exception as error:  # the claim then lapses after CLAIM_S instead
            logger.warning("webhook update %s claim not released: %s", update_id, error)


async def _update_id(request: web.Request) -> int | None:
    """The update's id, or None when the body is no update aiogram could handle."""
    try:
        body = await request.json()  # aiohttp keeps the body: aiogram reads it again
        update_id = Update.model_validate(body).update_id
    except (ValueError, ValidationError):  # not JSON; not an update's shape
        return None
    return update_id


def _busy() -> web.Response:
    return web.Response(status=503, headers={"Retry-After": str(RETRY_AFTER_S)})
