"""/start: the greeting and the main menu, and the menu's own buttons."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import CommandStart
from aiogram.types import CallbackQuery, Message

from bot.button_data import MenuCallback, MenuItem
from bot.keyboards import main_menu
from bot.ports import BotStore
from bot.replies import show
from bot.routers.fit import size_keyboard
from bot.routers.help import help_text
from bot.routers.prices import render_page
from bot.routers.settings import settings_view
from bot.routers.watch import subs_view
from estimator.i18n import Translator
from monitor.price_query import PriceQuery
from monitor.providers import PROVIDERS
from monitor.users import User


def create_router() -> Router:
    router = Router(name="start")
    router.message.register(on_start, CommandStart())
    router.callback_query.register(on_menu, MenuCallback.filter())
    return router


def providers_in_words(i18n: Translator) -> str:
    """Every registered provider, as the greeting names them: «Selectel, HOSTKEY и immers.cloud»."""
    names = [provider.name for provider in PROVIDERS]
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} {i18n('list-and')} {names[-1]}"


async def on_start(message: Message, i18n: Translator) -> None:
    sender = message.from_user
    name = sender.first_name if sender and sender.first_name else i18n("start-user-fallback")
    greeting = i18n("start-greeting", name=name, providers=providers_in_words(i18n))
    await message.answer(f"{greeting}\n\n{i18n('start-menu-hint')}", reply_markup=main_menu(i18n))


async def on_menu(
    callback: CallbackQuery,
    callback_data: MenuCallback,
    i18n: Translator,
    user: User,
    store: BotStore,
) -> None:
    item = callback_data.item
    await callback.answer()
    if item is MenuItem.SETTINGS:
        await show(callback, *await settings_view(store, i18n, user))
    elif item is MenuItem.PRICES:
        text, keyboard = await render_page(store, i18n, 0, PriceQuery())
        await show(callback, text, keyboard)
    elif item is MenuItem.SUBSCRIPTIONS and callback.message is not None:
        text, keyboard = await subs_view(store, i18n, callback.message.chat.id, user.timezone)
        await show(callback, text, keyboard)
    elif item is MenuItem.FIT:
        await show(callback, i18n("fit-wizard-size"), size_keyboard())
    elif item is MenuItem.HELP:
        if callback.message is not None and callback.bot is not None:
            await callback.bot.send_message(callback.message.chat.id, help_text(i18n))
    elif item is MenuItem.HOME:
        await show(callback, i18n("start-menu-hint"), main_menu(i18n))
