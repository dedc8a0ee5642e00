"""The command menu Telegram shows next to the input field, in each language."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram import Bot
from aiogram.types import BotCommand

from estimator.i18n import Translator
from monitor.users import Language

# Only commands that work today; later features add theirs here.
MENU_COMMANDS = (
    "start",
    "prices",
    "stock",
    "fit",
    "watch",
    "subs",
    "history",
    "help",
    "settings",
)


def bot_commands(i18n: Translator) -> list[BotCommand]:
    return [BotCommand(command=name, description=i18n(f"command-{name}")) for name in MENU_COMMANDS]


async def set_bot_commands(
    bot: Bot, translators: Mapping[Language, Translator], default_language: Language
) -> None:
    """One list per language, plus the default list for clients in any other language."""
    for language, translator in translators.items():
        await bot.set_my_commands(bot_commands(translator), language_code=language)
    await bot.set_my_commands(bot_commands(translators[default_language]))
