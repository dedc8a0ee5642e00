"""/prices and /stock [filters]: the offers now, per GPU, with freshness and failing providers.

Filters are /watch's words plus a billing kind (monitor.price_query): `/prices 80gb`,
`/prices h100 hourly`, `/prices max=300`, `/prices provider=selectel`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
)

from bot.button_data import PricesCallback
from bot.config import Settings
from bot.miniapp.links import table_button, with_button
from bot.ports import BotStore
from bot.replies import show
from bot.views.prices import filter_text, prices_keyboard, prices_text
from estimator.i18n import Translator
from estimator.parse import QueryError
from monitor.price_query import PriceQuery, parse_price_query
from monitor.users import DEFAULT_TIMEZONE, User

# A GPU name or family plus a few filters; longer arguments are refused, not silently cut.
MAX_FILTER = 80
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def create_router() -> Router:
    router = Router(name="prices")
    router.message.register(on_prices, Command("prices", "stock"))
    router.callback_query.register(on_page, PricesCallback.filter())
    return router


async def render_page(
    store: BotStore,
    i18n: Translator,
    page: int,
    query: PriceQuery,
    in_stock_only: bool = False,
    table: InlineKeyboardButton | None = None,
    timezone: str = DEFAULT_TIMEZONE,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A page of offers; `table` (the Mini App's «📊 Таблица») goes below the page buttons.
    Stale offers are marked with their data's time on the reader's clock (`timezone`)."""
    offers = [item for item in await store.observed_offers() if query.accepts(item.offer)]
    if in_stock_only:  # in stock while its data counts (monitor.freshness)
        offers = [item for item in offers if item.in_stock]
    health = await store.provider_health()
    canonical = query.canonical()
    if in_stock_only:
        title = i18n("stock-title") + (f" · {query.label}" if query.label else "")
    elif query.label:
        title = i18n("prices-title-gpu", gpu=query.label)
    else:
        title = i18n("prices-title")
    # The buttons carry the canonical words; the user reads the filter in their language.
    text = prices_text(
        i18n,
        offers,
        health,
        page,
        datetime.now(UTC),
        title=title,
        filters=filter_text(query, i18n.language),
        timezone=timezone,
    )
    return text, with_button(prices_keyboard(len(offers), page, canonical, in_stock_only), table)


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
