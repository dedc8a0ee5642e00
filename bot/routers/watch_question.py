"""«Сообщи, когда 8×H100 будет дешевле 600 ₽», "notify me when H100 is under 300 rub": the
watch the question states, named in the reply, with one button that creates exactly it.

The cap is per GPU-hour, as /watch max= is matched (monitor.subscriptions compares each
offer's price per GPU-hour, a server's price divided by its cards); the reply says so and,
for a stated count, what that makes for the whole server.
"""

from __future__ import annotations

from typing import Any

from aiogram import F, Router
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.callbacks import WatchQuestionCallback
from bot.i18n import Translator
from bot.replies import show
from bot.routers.watch import SubscribeStore, subscribe
from bot.views.prices import money
from estimator.parsing.text import language_of
from monitor.watch_parse import describe, parse_watch, short_label, watch_words_in_question

MAX_TEXT = 300
# Telegram's limit on callback_data, in bytes.
CALLBACK_LIMIT = 64


def create_router() -> Router:
    router = Router(name="watch_question")
    router.message.register(on_question, F.text, ~F.text.startswith("/"), _notify_question)
    router.callback_query.register(on_press, WatchQuestionCallback.filter())
    return router


def _notify_question(message: Message) -> bool | dict[str, Any]:
    """A filter: the /watch words of a notify-me question, handed to the handler as `spec`."""
    spec = watch_words_in_question((message.text or "")[:MAX_TEXT])
    return {"spec": spec} if spec is not None else False


def _translator(translators: dict[str, Translator], language: str) -> Translator:
    return translators.get(language) or next(iter(translators.values()))


def question_reply(
    i18n: Translator, spec: str, language: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The watch the question asked for, the per-GPU-hour rule, and its button (when the
    words fit in a button; otherwise the command to send)."""
    watch = parse_watch(spec)
    lines = [i18n("watchq-offer", summary=describe(watch, i18n.language))]
    cap = watch.max_rub_per_gpu_hour
    if cap is not None and watch.min_count is not None and watch.min_count > 1:
        lines.append(
            i18n(
                "watchq-cap-server",
                max=money(cap),
                count=watch.min_count,
                server=money(cap * watch.min_count),
            )
        )
    elif cap is not None:
        lines.append(i18n("watchq-cap", max=money(cap)))
    data = WatchQuestionCallback(lang=language, spec=spec).pack() if ":" not in spec else ""
    if not data or len(data.encode()) > CALLBACK_LIMIT:
        lines.append(i18n("watchq-command", command=f"/watch {spec}"))
        return "\n".join(lines), None
    lines.append(i18n("watchq-press"))
    builder = InlineKeyboardBuilder()
    builder.button(text=i18n("watchq-button", label=short_label(watch)), callback_data=data)
    return "\n".join(lines), builder.as_markup()


async def on_question(message: Message, spec: str, translators: dict[str, Translator]) -> None:
    # Answered in the question's language, as the other free-text answers are.
    language = language_of((message.text or "")[:MAX_TEXT])
    i18n = _translator(translators, language)
    text, keyboard = question_reply(i18n, spec, language)
    await message.answer(text, reply_markup=keyboard)


async def on_press(
    callback: CallbackQuery,
    callback_data: WatchQuestionCallback,
    translators: dict[str, Translator],
    store: SubscribeStore,
) -> None:
    await callback.answer()
    assert callback.message is not None
    i18n = _translator(translators, callback_data.lang)
    # subscribe() parses the words again: a forged button gets the /watch error, not a crash.
    text = await subscribe(store, i18n, callback.message.chat.id, callback_data.spec)
    await show(callback, text, None)
