"""/history <gpu>: a PNG chart of price and stock over 30 days, with the 30-day low marked."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import BufferedInputFile, Message

from bot.charts import history_png
from bot.i18n import Translator
from bot.routers.prices import MAX_FILTER, gpu_filter
from estimator.render import rubles
from storage import Store

WINDOW = timedelta(days=30)


def create_router() -> Router:
    router = Router(name="history")
    router.message.register(on_history, Command("history"))
    return router


async def on_history(
    message: Message, command: CommandObject, i18n: Translator, store: Store
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
    # Drawing takes tens of milliseconds of CPU: keep it off the event loop.
    png = await asyncio.to_thread(history_png, points, label, since, until)
    caption = (
        i18n(
            "history-caption", gpu=label, low=rubles(low.price_per_gpu_hour), provider=low.provider
        )
        if low
        else i18n("history-caption-nolow", gpu=label)
    )
    await message.answer_photo(BufferedInputFile(png, "history.png"), caption=caption)
