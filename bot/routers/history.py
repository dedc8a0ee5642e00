"""/history <gpu>: a PNG chart of price and stock over 30 days, with the 30-day low marked."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Protocol

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import BufferedInputFile, Message

from bot.chart_pool import ChartBusyError, ChartPool
from bot.i18n import Translator
from bot.routers.prices import MAX_FILTER, gpu_filter
from estimator.plan_text import rubles
from storage.history import HistoryPoint

WINDOW = timedelta(days=30)


class HistoryStore(Protocol):
    """What /history reads (storage.history.HistoryQueries)."""

    async def price_series(
        self, gpu_ids: Collection[str], since: datetime, /
    ) -> list[HistoryPoint]: ...

    async def lowest_price(
        self, gpu_ids: Collection[str], since: datetime, /
    ) -> HistoryPoint | None: ...


def create_router() -> Router:
    router = Router(name="history")
    router.message.register(on_history, Command("history"))
    return router


async def on_history(
    message: Message,
    command: CommandObject,
    i18n: Translator,
    store: HistoryStore,
    charts: ChartPool,
) -> None:
    wanted = (command.args or "").strip()
    if len(wanted) > MAX_FILTER:
        await message.answer(i18n("args-too-long", limit=MAX_FILTER))
        return
    selection = gpu_filter(wanted) if wanted else None
    if selection is None:
        key = "history-usage" if not wanted else "history-unknown-gpu"
        await message.answer(i18n(key, gpu=wanted))
        return
    label, ids = selection
    until = datetime.now(UTC)
    since = until - WINDOW
    points = await store.price_series(ids, since)
    if not points:
        await message.answer(i18n("history-empty", gpu=label))
        return
    low = await store.lowest_price(ids, since)
    user = message.from_user.id if message.from_user else message.chat.id
    try:
        # Drawn in a worker process: matplotlib would hold the GIL, and so the event loop.
        png = await charts.render(user, points, label, since, until)
    except ChartBusyError as busy:
        await message.answer(i18n("history-wait", seconds=busy.wait_s))
        return
    caption = (
        i18n(
            "history-caption", gpu=label, low=rubles(low.price_per_gpu_hour), provider=low.provider
        )
        if low
        else i18n("history-caption-nolow", gpu=label)
    )
    await message.answer_photo(BufferedInputFile(png, "history.png"), caption=caption)
