"""/prices [gpu]: what the providers offer now, with freshness and failing providers named."""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, LinkPreviewOptions, Message

from bot.callbacks import PricesCallback
from bot.i18n import Translator
from bot.replies import show
from bot.views.prices import prices_keyboard, prices_text
from estimator.gpus import family_members, family_of, resolve_for_sizing
from monitor.offers import StockState
from storage import Store

# A GPU name or family; longer arguments are refused, not silently cut to something else.
MAX_FILTER = 40


def create_router() -> Router:
    router = Router(name="prices")
    router.message.register(on_prices, Command("prices", "stock"))
    router.callback_query.register(on_page, PricesCallback.filter())
    return router


def gpu_filter(text: str) -> tuple[str, set[str]] | None:
    """The label and canonical ids a user's GPU words mean: one card or a whole family."""
    gpu_id = resolve_for_sizing(text)
    family = family_of(text)
    if family is not None and (gpu_id is None or family.lower() == text.strip().lower()):
        return family, {gpu.id for gpu in family_members(family)}
    if gpu_id is not None:
        return gpu_id, {gpu_id}
    return None


async def render_page(
    store: Store, i18n: Translator, page: int, wanted: str, in_stock_only: bool = False
) -> tuple[str, InlineKeyboardMarkup | None]:
    selection = gpu_filter(wanted) if wanted else None
    label, ids = selection if selection else ("", None)
    offers = await store.current_offers()
    if ids is not None:
        # A provider may publish only the family and size ("A100 80GB"): such offers keep
        # their raw name, and still belong to the family the user asked for.
        offers = [o for o in offers if o.gpu in ids or family_of(o.gpu) == label]
    if in_stock_only:
        offers = [o for o in offers if o.stock is StockState.IN_STOCK]
    health = await store.provider_health()
    text = prices_text(i18n, offers, health, page, datetime.now(UTC), label, in_stock_only)
    return text, prices_keyboard(len(offers), page, label, in_stock_only)


async def on_prices(
    message: Message, command: CommandObject, i18n: Translator, store: Store
) -> None:
    wanted = (command.args or "").strip()
    if len(wanted) > MAX_FILTER:
        await message.answer(i18n("args-too-long", limit=MAX_FILTER))
        return
    if wanted and gpu_filter(wanted) is None:
        await message.answer(i18n("prices-unknown-gpu", gpu=wanted))
        return
    in_stock_only = command.command.lower() == "stock"
    text, keyboard = await render_page(store, i18n, 0, wanted, in_stock_only)
    await message.answer(
        text, reply_markup=keyboard, link_preview_options=LinkPreviewOptions(is_disabled=True)
    )


async def on_page(
    callback: CallbackQuery, callback_data: PricesCallback, i18n: Translator, store: Store
) -> None:
    await callback.answer()
    text, keyboard = await render_page(
        store, i18n, callback_data.page, callback_data.gpu, bool(callback_data.stock)
    )
    await show(callback, text, keyboard)
