"""The /settings view: the summary and its three keyboards (main, time zone, quiet hours)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import MenuCallback, MenuItem, SettingsAction, SettingsCallback
from bot.ports import BotStore
from estimator.i18n import Translator
from monitor.users import (
    LANGUAGES,
    QuietHours,
    User,
)

# Russia's zones west to east, then UTC; any other IANA zone can be typed.
TIMEZONE_PRESETS = (
    "Europe/Kaliningrad",
    "Europe/Moscow",
    "Europe/Samara",
    "Asia/Yekaterinburg",
    "Asia/Omsk",
    "Asia/Novosibirsk",
    "Asia/Krasnoyarsk",
    "Asia/Irkutsk",
    "Asia/Yakutsk",
    "Asia/Vladivostok",
    "Asia/Magadan",
    "Asia/Kamchatka",
    "UTC",
)

QUIET_PRESETS = (
    QuietHours(22 * 60, 7 * 60),
    QuietHours(23 * 60, 8 * 60),
    QuietHours(0, 9 * 60),
    QuietHours(1 * 60, 10 * 60),
)

CHECK = "✅ "


def encode_quiet(quiet: QuietHours) -> str:
    """Compact "HHMMHHMM" form for callback data (':' is the callback separator)."""
    return f"{quiet.start // 60:02d}{quiet.start % 60:02d}{quiet.end // 60:02d}{quiet.end % 60:02d}"


def decode_quiet(value: str) -> QuietHours | None:
    if value == "off":
        return None
    if len(value) != 8 or not value.isdigit():
        raise ValueError(f"bad quiet-hours value {value!r}")
    start = int(value[:2]) * 60 + int(value[2:4])
    end = int(value[4:6]) * 60 + int(value[6:])
    return QuietHours(start, end)


def utc_offset_label(zone: str, now: datetime | None = None) -> str:
    moment = (now or datetime.now(UTC)).astimezone(ZoneInfo(zone))
    offset = moment.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours}" if rest == 0 else f"{sign}{hours}:{rest:02d}"


def zone_label(i18n: Translator, zone: str) -> str:
    key = "tz-" + zone.replace("/", "-")
    return i18n(key) if i18n.has(key) else zone


@dataclass(frozen=True)
class Silence:
    """What is holding alerts back right now besides quiet hours: "💤 until morning" on the
    whole chat, and subscriptions muted for 24 h from an alert."""

    snoozed_until: datetime | None = None
    muted: int = 0  # subscriptions muted now
    muted_until: datetime | None = None  # the latest of their mutes


def settings_text(
    i18n: Translator, user: User, now: datetime | None = None, silence: Silence | None = None
) -> str:
    moment = now or datetime.now(UTC)
    local = ZoneInfo(user.timezone)
    local_time = moment.astimezone(local).strftime("%H:%M")
    quiet = (
        i18n("settings-quiet-on", window=user.quiet_hours.label())
        if user.quiet_hours
        else i18n("settings-quiet-off")
    )
    lines = [
        i18n("settings-title"),
        "",
        i18n("settings-language", language=i18n(f"language-name-{user.language}")),
        i18n(
            "settings-timezone",
            timezone=user.timezone,
            offset=utc_offset_label(user.timezone, moment),
            local_time=local_time,
        ),
        quiet,
    ]
    if silence is not None and silence.snoozed_until is not None:
        until = silence.snoozed_until.astimezone(local).strftime("%d.%m %H:%M")
        lines.append(i18n("settings-snoozed", until=until))
    if silence is not None and silence.muted and silence.muted_until is not None:
        until = silence.muted_until.astimezone(local).strftime("%d.%m %H:%M")
        lines.append(i18n("settings-muted", count=silence.muted, until=until))
    lines += ["", i18n("settings-quiet-explain")]
    return "\n".join(lines)


def settings_keyboard(
    i18n: Translator, user: User, silence: Silence | None = None
) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    snoozed = silence is not None and silence.snoozed_until is not None
    for language in LANGUAGES:
        mark = CHECK if language == user.language else ""
        builder.button(
            text=mark + i18n(f"language-name-{language}"),
            callback_data=SettingsCallback(action=SettingsAction.LANGUAGE, value=language),
        )
    builder.button(
        text=i18n("settings-button-timezone"),
        callback_data=SettingsCallback(action=SettingsAction.TIMEZONE_MENU),
    )
    builder.button(
        text=i18n("settings-button-quiet"),
        callback_data=SettingsCallback(action=SettingsAction.QUIET_MENU),
    )
    if snoozed:
        builder.button(
            text=i18n("settings-button-unsnooze"),
            callback_data=SettingsCallback(action=SettingsAction.UNSNOOZE),
        )
    builder.button(text=i18n("menu-back"), callback_data=MenuCallback(item=MenuItem.HOME))
    builder.adjust(len(LANGUAGES), 1, 1, *((1,) if snoozed else ()), 1)
    return builder.as_markup()


def timezone_keyboard(i18n: Translator, user: User) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for zone in TIMEZONE_PRESETS:
        mark = CHECK if zone == user.timezone else ""
        builder.button(
            text=f"{mark}{zone_label(i18n, zone)} (UTC{utc_offset_label(zone)})",
            callback_data=SettingsCallback(action=SettingsAction.TIMEZONE, value=zone),
        )
    builder.button(
        text=i18n("settings-button-back"),
        callback_data=SettingsCallback(action=SettingsAction.SHOW),
    )
    builder.adjust(*([2] * (len(TIMEZONE_PRESETS) // 2)), 1)
    return builder.as_markup()


def quiet_keyboard(i18n: Translator, user: User) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    off_mark = CHECK if user.quiet_hours is None else ""
    builder.button(
        text=off_mark + i18n("settings-quiet-disable"),
        callback_data=SettingsCallback(action=SettingsAction.QUIET, value="off"),
    )
    for preset in QUIET_PRESETS:
        mark = CHECK if preset == user.quiet_hours else ""
        builder.button(
            text=mark + preset.label(),
            callback_data=SettingsCallback(action=SettingsAction.QUIET, value=encode_quiet(preset)),
        )
    builder.button(
        text=i18n("settings-button-back"),
        callback_data=SettingsCallback(action=SettingsAction.SHOW),
    )
    builder.adjust(1, 2, 2, 1)
    return builder.as_markup()


async def settings_view(
    store: BotStore, i18n: Translator, user: User
) -> tuple[str, InlineKeyboardMarkup]:
    """The settings summary with what silences alerts now (a snooze, muted subscriptions)."""
    silence = await current_silence(store, user.chat_id)
    return settings_text(i18n, user, silence=silence), settings_keyboard(i18n, user, silence)


async def current_silence(store: BotStore, chat_id: int) -> Silence:
    now = datetime.now(UTC)
    mutes = [
        sub.muted_until
        for sub in await store.subscriptions_of(chat_id)
        if sub.muted_until is not None and sub.muted_until > now
    ]
    return Silence(
        snoozed_until=await store.snoozed_until(chat_id, now),
        muted=len(mutes),
        muted_until=max(mutes, default=None),
    )
