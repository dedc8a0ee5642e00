"""Where the Mini App opens from: the chat's menu button and «📊 Таблица» under /prices and
/history, each a web_app button on GPURADAR_PUBLIC_URL + /app/ (none without that setting).

The menu button has a default for every chat, in the bot's default language (at start-up),
and each private chat gets its own in its user's language when /start or /settings decides
that language.

A page and a GPU travel in the query string: Telegram appends the launch parameters
(initData, theme) to the URL's fragment and keeps the query as it is.
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import (
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MenuButtonWebApp,
    WebAppInfo,
)

from estimator.i18n import Translator

PAGES = ("table", "history", "fit", "watches")
logger = logging.getLogger(__name__)


def app_url(public_url: str, page: str = "table", gpu: str | None = None) -> str:
    if page not in PAGES:
        raise ValueError(f"no Mini App page {page!r}")
    params = {"page": page} | ({"gpu": gpu} if gpu else {})
    return f"{public_url}/app/?{urlencode(params)}"


def table_button(
    i18n: Translator,
    public_url: str | None,
    chat_type: str,
    page: str = "table",
    gpu: str | None = None,
) -> InlineKeyboardButton | None:
    """«📊 Таблица», or None when the Mini App is off or the chat is not private: Telegram
    allows web_app buttons in private chats only (Bot API, InlineKeyboardButton.web_app)."""
    if public_url is None or chat_type != "private":
        return None
    return InlineKeyboardButton(
        text=i18n("miniapp-button"), web_app=WebAppInfo(url=app_url(public_url, page, gpu))
    )


def with_button(
    keyboard: InlineKeyboardMarkup | None, button: InlineKeyboardButton | None
) -> InlineKeyboardMarkup | None:
    """`keyboard` with `button` on a row of its own below it."""
    if button is None:
        return keyboard
    rows = keyboard.inline_keyboard if keyboard is not None else []
    return InlineKeyboardMarkup(inline_keyboard=[*rows, [button]])


def menu_button(public_url: str, i18n: Translator) -> MenuButtonWebApp:
    return MenuButtonWebApp(
        text=i18n("miniapp-button"), web_app=WebAppInfo(url=app_url(public_url))
    )


async def set_menu_button(bot: Bot, public_url: str, i18n: Translator) -> None:
    """Every chat's menu button opens the table (setChatMenuButton with no chat)."""
    await bot.set_chat_menu_button(menu_button=menu_button(public_url, i18n))


async def set_chat_menu_button(
    bot: Bot | None, public_url: str | None, chat: Chat, i18n: Translator
) -> None:
    """This chat's menu button in `i18n`'s language (setChatMenuButton with its chat_id).

    Nothing when the Mini App is off or the chat is not private (Telegram keeps a menu button
    per private chat only). A refusal is logged, not raised: the reply it comes with matters
    more than the button's words, and the default button still opens the app."""
    if bot is None or public_url is None or chat.type != "private":
        return
    try:
        await bot.set_chat_menu_button(chat_id=chat.id, menu_button=menu_button(public_url, i18n))
    except TelegramAPIError as error:
        logger.warning("setChatMenuButton for a chat failed: %s", error)
