"""Where the Mini App opens from: the chat's menu button and «📊 Таблица» under /prices and
/history, each a web_app button on GPURADAR_PUBLIC_URL + /app/ (none without that setting).

A page and a GPU travel in the query string: Telegram appends the launch parameters
(initData, theme) to the URL's fragment and keeps the query as it is.
"""

from __future__ import annotations

from urllib.parse import urlencode

from aiogram import Bot
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, MenuButtonWebApp, WebAppInfo

from estimator.i18n import Translator

PAGES = ("table", "history", "fit", "watches")


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


async def set_menu_button(bot: Bot, public_url: str, i18n: Translator) -> None:
    """Every chat's menu button opens the table (setChatMenuButton with no chat)."""
    button = MenuButtonWebApp(
        text=i18n("miniapp-button"), web_app=WebAppInfo(url=app_url(public_url))
    )
    await bot.set_chat_menu_button(menu_button=button)
