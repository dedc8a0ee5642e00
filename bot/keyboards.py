"""Inline keyboards shared by several routers."""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import MenuCallback, MenuItem
from estimator.i18n import Translator


def main_menu(i18n: Translator) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for item, key in (
        (MenuItem.PRICES, "menu-prices"),
        (MenuItem.FIT, "menu-fit"),
        (MenuItem.SUBSCRIPTIONS, "menu-subscriptions"),
        (MenuItem.SETTINGS, "menu-settings"),
        (MenuItem.HELP, "menu-help"),
    ):
        builder.button(text=i18n(key), callback_data=MenuCallback(item=item))
    builder.adjust(2, 2, 1)
    return builder.as_markup()
