"""/prices and /stock [filters]: the offers now, per GPU, with freshness and failing providers.

Filters are /watch's words plus a billing kind (monitor.price_query): `/prices 80gb`,
`/prices h100 hourly`, `/prices max=300`, `/prices provider=selectel`.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import (
    CallbackQuery,
    LinkPreviewOptions,
    Message,
)

from bot.button_data import PricesCallback
from bot.config import Settings
from bot.miniapp.links import table_button
from bot.ports import BotStore
from bot.replies import show
from bot.usecases.market import MAX_FILTER, render_page
from estimator.i18n import Translator
from estimator.parse import QueryError
from monitor.price_query import PriceQuery, parse_price_query
from monitor.users import DEFAULT_TIMEZONE, User

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def create_router() -> Router:
    router = Router(name="prices")
    router.message.register(on_prices, Command("prices", "stock"))
    router.callback_query.register(on_page, PricesCallback.filter())
    return router


async def on_prices(
    message: Message,
    command: CommandObject,
    i18n: Translator,
    store: BotStore,
    settings: Settings,
    user: User,
) -> None:
    wanted = (command.args or "").strip()
    if len(wanted) > MAX_FILTER:
        await message.answer(i18n("args-too-long", limit=MAX_FILTER))
        return
    try:
        query = parse_price_query(wanted)
    except QueryError as error:
        key = "prices-unknown-gpu" if error.code == "unknown_gpu" else "prices-bad-filter"
        await message.answer(i18n(key, gpu=error.value or wanted, value=error.value or wanted))
        return
    in_stock_only = command.command.lower() == "stock"
    table = table_button(i18n, settings.public_url, message.chat.type)
    text, keyboard = await render_page(store, i18n, 0, query, in_stock_only, table, user.timezone)
    await message.answer(text, reply_markup=keyboard, link_preview_options=NO_PREVIEW)


async def on_page(
    callback: CallbackQuery,
    callback_data: PricesCallback,
    i18n: Translator,
    store: BotStore,
    settings: Settings,
    user: User | None = None,  # a press with no chat (an inline message's) has no user row
) -> None:
    await callback.answer()
    chat_type = callback.message.chat.type if callback.message is not None else ""
    table = table_button(i18n, settings.public_url, chat_type)
    try:
        query = parse_price_query(callback_data.gpu)
    except QueryError:  # forged or from an older version: show everything rather than fail
        query = PriceQuery()
    text, keyboard = await render_page(
        store,
        i18n,
        callback_data.page,
        query,
        bool(callback_data.stock),
        table,
        user.timezone if user is not None else DEFAULT_TIMEZONE,
    )
    await show(callback, text, keyboard, preview=False)
