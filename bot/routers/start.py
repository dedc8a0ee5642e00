"""/start: the greeting and the main menu, and the menu's own buttons."""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram import Router
from aiogram.filters import CommandObject, CommandStart
from aiogram.types import CallbackQuery, Message

from bot.button_data import MenuCallback, MenuItem
from bot.config import Settings
from bot.conversation import Conversations
from bot.deep_links import DeepLinkError, LinkKind, decode_link
from bot.keyboards import main_menu
from bot.miniapp.links import set_chat_menu_button
from bot.ports import BotStore
from bot.replies import show
from bot.usecases.market import render_page
from bot.views.settings import settings_view
from bot.views.sizing_reply import reply_with_answer, size_keyboard
from bot.views.watches import question_reply, subs_view
from estimator.fit_words import understand
from estimator.i18n import Translator
from estimator.parse import ParsedQuery, QueryError
from estimator.stated_codec import StatedCodecError, sizing
from monitor.price_query import PriceQuery
from monitor.providers import PROVIDERS
from monitor.subscriptions import WatchFilter
from monitor.users import User
from monitor.watch_codec import WatchCodecError, decode
from monitor.watch_words import parse_watch


def create_router() -> Router:
    router = Router(name="start")
    # A payload first: «t.me/bot?start=…» opens what was shared (bot.deep_links).
    router.message.register(on_start_link, CommandStart(deep_link=True))
    router.message.register(on_start, CommandStart())
    router.callback_query.register(on_menu, MenuCallback.filter())
    return router


def providers_in_words(i18n: Translator) -> str:
    """Every registered provider, as the greeting names them: «Selectel, HOSTKEY и immers.cloud»."""
    names = [provider.name for provider in PROVIDERS]
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} {i18n('list-and')} {names[-1]}"


async def on_start_link(
    message: Message,
    command: CommandObject,
    i18n: Translator,
    user: User,
    store: BotStore,
    conversations: Conversations,
    settings: Settings,
) -> None:
    """A shared link: a prepared watch offers its «Следить» button, a prepared sizing is
    answered as /fit would be, at today's prices. Anything else gets one short line."""
    # A first contact may come by a link: the menu button speaks the chat's language too.
    await set_chat_menu_button(message.bot, settings.public_url, message.chat, i18n)
    try:
        link = decode_link(command.args or "", today=datetime.now(UTC).date())
        if link.kind is LinkKind.WATCH:
            watch = _legacy_watch(link.text) if link.words else decode(link.text)
            text, keyboard = question_reply(i18n, watch, user.language)
            await message.answer(text, reply_markup=keyboard)
            return
        parsed = _legacy_sizing(link.text) if link.words else sizing(link.text)
    except DeepLinkError as error:
        await message.answer(i18n(f"link-{error.code}"))
        return
    except (QueryError, StatedCodecError, WatchCodecError):  # well-formed, but not read now
        await message.answer(i18n("link-malformed"))
        return
    if parsed is None:
        await message.answer(i18n("link-malformed"))
        return
    await conversations.remember(message.chat.id, parsed, user.language)
    await reply_with_answer(message, parsed, user.language, i18n, store)


def _legacy_sizing(words: str) -> ParsedQuery | None:
    """A sizing link made before the typed texts: its /fit command, read by the grammar."""
    return understand(words)


def _legacy_watch(words: str) -> WatchFilter:
    """A watch link made before the typed texts (or of a watch on a run): its /watch words,
    read by the grammar."""
    return parse_watch(words)


async def on_start(message: Message, i18n: Translator, settings: Settings) -> None:
    sender = message.from_user
    name = sender.first_name if sender and sender.first_name else i18n("start-user-fallback")
    greeting = i18n("start-greeting", name=name, providers=providers_in_words(i18n))
    await message.answer(f"{greeting}\n\n{i18n('start-menu-hint')}", reply_markup=main_menu(i18n))
    # The language the user middleware chose for this chat: the menu button says it too.
    await set_chat_menu_button(message.bot, settings.public_url, message.chat, i18n)


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
        text, keyboard = await render_page(store, i18n, 0, PriceQuery(), timezone=user.timezone)
        await show(callback, text, keyboard)
    elif item is MenuItem.SUBSCRIPTIONS and callback.message is not None:
        text, keyboard = await subs_view(store, i18n, callback.message.chat.id, user.timezone)
        await show(callback, text, keyboard)
    elif item is MenuItem.FIT:
        await show(callback, i18n("fit-wizard-size"), size_keyboard())
    elif item is MenuItem.HELP:
        if callback.message is not None and callback.bot is not None:
            await callback.bot.send_message(callback.message.chat.id, i18n("help"))
    elif item is MenuItem.HOME:
        await show(callback, i18n("start-menu-hint"), main_menu(i18n))
