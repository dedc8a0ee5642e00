"""/settings: language, time zone and quiet hours, by buttons or typed arguments."""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.button_data import SettingsAction, SettingsCallback
from bot.config import Settings
from bot.miniapp.links import set_chat_menu_button
from bot.ports import BotStore
from bot.replies import show
from bot.views.settings import (
    decode_quiet,
    quiet_keyboard,
    settings_view,
    timezone_keyboard,
)
from estimator.i18n import Translator
from monitor.timezones import find_timezone
from monitor.users import (
    LANGUAGES,
    Language,
    User,
    due_time,
    is_known_timezone,
    parse_quiet_hours,
)

_TIMEZONE_WORDS = frozenset({"tz", "timezone", "zone", "пояс"})
_QUIET_WORDS = frozenset({"quiet", "тихие", "тишина"})
_LANGUAGE_WORDS = frozenset({"lang", "language", "язык"})
# "tz America/Argentina/ComodRivadavia" is the longest sensible argument; refuse anything far over.
MAX_ARGS = 100


def create_router() -> Router:
    router = Router(name="settings")
    router.message.register(on_settings_command, Command("settings"))
    router.callback_query.register(on_settings_button, SettingsCallback.filter())
    return router


async def on_settings_command(
    message: Message,
    command: CommandObject,
    i18n: Translator,
    user: User,
    store: BotStore,
    translators: dict[Language, Translator],
    settings: Settings,
) -> None:
    if not command.args:
        text, keyboard = await settings_view(store, i18n, user)
        await message.answer(text, reply_markup=keyboard)
        return
    if len(command.args) > MAX_ARGS:
        await message.answer(i18n("args-too-long", limit=MAX_ARGS))
        return
    word, _, value = command.args.strip().partition(" ")
    word, value = word.lower(), value.strip()
    if word in _TIMEZONE_WORDS:
        # An IANA name, or a city in Russian or English ("Новосибирск", the button's label).
        timezone = find_timezone(value)
        if timezone is None:
            await message.answer(i18n("settings-bad-timezone", value=value[:64]))
            return
        user = await store.set_timezone(user.chat_id, timezone)
    elif word in _QUIET_WORDS:
        try:
            quiet = parse_quiet_hours(value)
        except ValueError:
            await message.answer(i18n("settings-bad-quiet", value=value[:64]))
            return
        user = await store.set_quiet_hours(user.chat_id, quiet)
    elif word in _LANGUAGE_WORDS:
        language = _language(value.lower())
        if language is None:
            await message.answer(i18n("settings-bad-language"))
            return
        user = await store.set_language(user.chat_id, language)
        i18n = translators[language]
        await set_chat_menu_button(message.bot, settings.public_url, message.chat, i18n)
    else:
        await message.answer(i18n("settings-bad-command"))
        return
    text, keyboard = await settings_view(store, i18n, user)
    await message.answer(text, reply_markup=keyboard)


async def on_settings_button(
    callback: CallbackQuery,
    callback_data: SettingsCallback,
    i18n: Translator,
    user: User,
    store: BotStore,
    translators: dict[Language, Translator],
    settings: Settings,
) -> None:
    action, value = callback_data.action, callback_data.value
    if action is SettingsAction.TIMEZONE_MENU:
        await callback.answer()
        await show(callback, i18n("settings-choose-timezone"), timezone_keyboard(i18n, user))
        return
    if action is SettingsAction.QUIET_MENU:
        await callback.answer()
        await show(callback, i18n("settings-choose-quiet"), quiet_keyboard(i18n, user))
        return
    if action is SettingsAction.SHOW:
        await callback.answer()
        await show(callback, *await settings_view(store, i18n, user))
        return
    if action is SettingsAction.UNSNOOZE:
        released = await store.end_snooze(user.chat_id, due_time(user, datetime.now(UTC)))
        await callback.answer(i18n("settings-unsnoozed", count=released))
        await show(callback, *await settings_view(store, i18n, user))
        return

    updated = await _apply(action, value, user, store)
    if updated is None:
        # Forged or outdated callback data: say so instead of guessing.
        await callback.answer(i18n("settings-stale-button"), show_alert=True)
        return
    i18n = translators[updated.language]
    await callback.answer(i18n("settings-saved"))
    await show(callback, *await settings_view(store, i18n, updated))
    if action is SettingsAction.LANGUAGE and callback.message is not None:
        chat = callback.message.chat
        await set_chat_menu_button(callback.bot, settings.public_url, chat, i18n)


async def _apply(action: SettingsAction, value: str, user: User, store: BotStore) -> User | None:
    if action is SettingsAction.LANGUAGE:
        language = _language(value)
        return None if language is None else await store.set_language(user.chat_id, language)
    if action is SettingsAction.TIMEZONE:
        if not is_known_timezone(value):
            return None
        return await store.set_timezone(user.chat_id, value)
    if action is SettingsAction.QUIET:
        try:
            quiet = decode_quiet(value)
        except ValueError:
            return None
        return await store.set_quiet_hours(user.chat_id, quiet)
    return None


def _language(value: str) -> Language | None:
    for language in LANGUAGES:
        if value == language:
            return language
    return None
