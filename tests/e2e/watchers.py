"""The scenario the process tests share: many users watch the H100, then it comes into stock.

The fake Selectel's 8x H100 server (tests/fakes/sites/selectel.py, H100Control) starts with
no units; the test flips it into stock once every user's /watch is answered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from tests.bot.test_e2e_delivery import delivered
from tests.fakes.providers import FakeSite
from tests.fakes.telegram import FakeTelegram
from tests.processes import BotProcess

WATCH = "/watch h100"
WATCH_CREATED = "✅ Подписка"  # watch-created in estimator/locales/ru/watch.ftl
HELP_TITLE = "Что я умею"  # the first line of help in estimator/locales/ru/main.ftl
# The request of Selectel's scrape that lists the servers (scrapers/selectel.py): one per
# refresh, so counting it counts refreshes.
SERVER_LIST = "/servers/v2/pub/service/server"


def watching(telegram: FakeTelegram, chats: range) -> bool:
    """Every chat's /watch was answered with its new subscription."""
    return all(
        any(text.startswith(WATCH_CREATED) for text in telegram.texts(chat)) for chat in chats
    )


def alerts(telegram: FakeTelegram, chats: range) -> Counter[int]:
    """Alert messages delivered (answered ok) per chat, for these chats only."""
    return Counter({chat: n for chat, n in delivered(telegram).items() if chat in chats})


def server_list_fetches(selectel: FakeSite) -> list[float]:
    """When (time.monotonic()) each Selectel refresh fetched the server list."""
    return [request.at for request in selectel.requests if request.path == SERVER_LIST]


def selectel_success(body: dict[str, Any]) -> datetime | None:
    """When the bot's /healthz says Selectel was last refreshed, if ever."""
    last = body.get("providers", {}).get("selectel", {}).get("last_success")
    return None if last is None else datetime.fromisoformat(last)


def answered_help(telegram: FakeTelegram, chat: int, after: int) -> bool:
    return any(
        call.ok
        and call.index >= after
        and int(call.params["chat_id"]) == chat
        and HELP_TITLE in call.result["text"]
        for call in telegram.calls_of("sendMessage")
    )


def drained(bot: BotProcess) -> Callable[[], Awaitable[bool]]:
    """A check: the bot's outbox has nothing pending (sends in flight count as pending)."""

    async def check() -> bool:
        bot.check_alive()
        return await bot.metric("gpuradar_outbox_pending") == 0

    return check
