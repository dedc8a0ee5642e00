"""A chat's watches as the chat shows them: the /subs list with its buttons, and the reply
to a notify-me question (the watch it asks for, with its «Следить» button)."""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import (
    SubsCallback,
    WatchQuestionCallback,
)
from bot.ports import BotStore
from estimator.i18n import Translator
from estimator.number_text import money
from monitor.subscriptions import (
    MAX_SUBSCRIPTIONS,
    Subscription,
    WatchFilter,
)
from monitor.users import DEFAULT_TIMEZONE, zone
from monitor.watch_codec import encode
from monitor.watch_describe import describe, short_label
from monitor.watch_words import canonical


async def subs_view(
    store: BotStore, i18n: Translator, chat_id: int, timezone: str = DEFAULT_TIMEZONE
) -> tuple[str, InlineKeyboardMarkup | None]:
    subscriptions = await store.subscriptions_of(chat_id)
    if not subscriptions:
        return i18n("subs-empty"), None
    lines = [i18n("subs-title", count=len(subscriptions), limit=MAX_SUBSCRIPTIONS), ""]
    builder = InlineKeyboardBuilder()
    now = datetime.now(UTC)
    for number, sub in enumerate(subscriptions, start=1):
        lines.append(subs_line(i18n, number, sub, now, timezone))
        pause = "▶️" if sub.paused else "⏸"
        builder.button(
            text=f"{pause} {number}",
            callback_data=SubsCallback(action="resume" if sub.paused else "pause", sub=sub.id),
        )
        builder.button(text=f"✏️ {number}", callback_data=SubsCallback(action="edit", sub=sub.id))
        builder.button(text=f"🗑 {number}", callback_data=SubsCallback(action="delete", sub=sub.id))
    builder.adjust(3)
    return "\n".join(lines), builder.as_markup()


def subs_line(
    i18n: Translator,
    number: int,
    sub: Subscription,
    now: datetime | None = None,
    timezone: str = DEFAULT_TIMEZONE,
) -> str:
    state = i18n("subs-paused") if sub.paused else ""
    if sub.muted_until is not None and sub.muted_until > (now or datetime.now(UTC)):
        until = sub.muted_until.astimezone(zone(timezone)).strftime("%d.%m %H:%M")
        state += i18n("subs-muted", until=until)
    return i18n("subs-line", number=number, summary=describe(sub.filter, i18n.language)) + state


# Telegram's limit on callback_data, in bytes.
CALLBACK_LIMIT = 64


def question_reply(
    i18n: Translator, watch: WatchFilter, language: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The watch the question (or a shared link) asked for, the per-GPU-hour rule, and its
    button, which carries the watch typed (monitor.watch_codec), or its /watch words when no
    text carries it (a watch on a run); the command to send when neither fits in a button."""
    lines = [i18n("watchq-offer", summary=describe(watch, i18n.language))]
    cap = watch.max_rub_per_gpu_hour
    if cap is not None and watch.min_count is not None and watch.min_count > 1:
        lines.append(
            i18n(
                "watchq-cap-server",
                max=money(cap, i18n.language),
                count=watch.min_count,
                server=money(cap * watch.min_count, i18n.language),
            )
        )
    elif cap is not None:
        lines.append(i18n("watchq-cap", max=money(cap, i18n.language)))
    spec = encode(watch) or canonical(watch)
    data = WatchQuestionCallback(lang=language, spec=spec).pack() if ":" not in spec else ""
    if not data or len(data.encode()) > CALLBACK_LIMIT:
        lines.append(i18n("watchq-command", command=f"/watch {canonical(watch)}"))
        return "\n".join(lines), None
    lines.append(i18n("watchq-press"))
    builder = InlineKeyboardBuilder()
    builder.button(text=i18n("watchq-button", label=short_label(watch)), callback_data=data)
    return "\n".join(lines), builder.as_markup()
