"""The alert buttons' callback data ("a:m:12"): tiny, far under Telegram's 64 bytes."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class AlertAction(StrEnum):
    MUTE = "m"  # this subscription, 24 h
    UNSUBSCRIBE = "u"  # delete this subscription
    SNOOZE = "z"  # the whole chat, until 08:00 local


class AlertCallback(CallbackData, prefix="a"):
    action: AlertAction
    # The subscription the button acts on; 0 for the chat-wide snooze. Anyone can send any
    # callback_data, so the store scopes every action by the pressing chat's id as well.
    sub: int = 0
