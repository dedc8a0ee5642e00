"""/history <gpu>: a PNG chart of price and stock over 30 days, with the 30-day low marked."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.types import BufferedInputFile, Message

from bot.chart_pool import ChartBusyError, ChartPool
from bot.config import Settings
from bot.fields import FieldError, read_card_filter
from bot.miniapp.links import table_button, with_button
from bot.ports import BotStore
from bot.usecases.market import MAX_FILTER
from bot.views.history import caption, chart_spec
from estimator.i18n import Translator
from monitor.users import User

logger = logging.getLogger(__name__)

WINDOW = timedelta(days=30)


def create_router() -> Router:
    router = Router(name="history")
    router.message.register(on_history, Command("history"))
    return router


async def on_history(
    message: Message,
    command: CommandObject,
    bot: Bot,
    i18n: Translator,
    user: User,
    store: BotStore,
    charts: ChartPool,
    settings: Settings,
) -> None:
    wanted = (command.args or "").strip()
    if len(wanted) > MAX_FILTER:
        await message.answer(i18n("args-too-long", limit=MAX_FILTER))
        return
    if not wanted:
        await message.answer(i18n("history-usage", gpu=wanted))
        return
    try:
        # The card words /prices and /watch read, matched on each offer's stored card: the
        # history of «a100» is every A100 /prices lists, whatever its provider calls it.
        cards = read_card_filter(wanted)
    except FieldError:
        await message.answer(i18n("history-unknown-gpu", gpu=wanted))
        return
    # "Sending a photo…" at once: the chart takes a moment. Sent alongside the reading and
    # drawing, and awaited before any reply, so it never shows after the chart.
    action = asyncio.create_task(_upload_photo_action(bot, message.chat.id))
    label = cards.label
    until = datetime.now(UTC)
    since = until - WINDOW
    points = await store.price_series(cards, since)
    spec = chart_spec(i18n, label, points, since, until, user.timezone)
    if not spec.series:
        await action
        await message.answer(i18n("history-empty", gpu=label))
        return
    sender = message.from_user.id if message.from_user else message.chat.id
    try:
        # Drawn in a worker process: matplotlib would hold the GIL, and so the event loop.
        png = await charts.render(sender, spec)
    except ChartBusyError as busy:
        await action
        await message.answer(i18n("history-wait", seconds=busy.wait_s))
        return
    await action
    table = table_button(i18n, settings.public_url, message.chat.type, "history", label)
    await message.answer_photo(
        BufferedInputFile(png, "history.png"),
        caption=caption(i18n, label, spec),
        reply_markup=with_button(None, table),
    )


async def _upload_photo_action(bot: Bot, chat_id: int) -> None:
    try:
        await bot.send_chat_action(chat_id, "upload_photo")
    except TelegramAPIError as error:  # only a hint: the chart goes out without it
        logger.warning("chat action for /history not sent: %s", error)
