"""«Сообщи, когда 8×H100 будет дешевле 600 ₽», "notify me when H100 is under 300 rub": the
watch the question states, named in the reply, with one button that creates exactly it.

The cap is per GPU-hour, as /watch max= is matched (monitor.match_rules compares each
offer's price per GPU-hour, a server's price divided by its cards); the reply says so and,
for a stated count, what that makes for the whole server.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aiogram import F, Router
from aiogram.types import CallbackQuery, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import RunWatchCallback, WatchQuestionCallback
from bot.conversation import Conversations
from bot.ports import BotStore
from bot.replies import show
from bot.usecases.watches import subscribe, subscribe_to, watch_error_text
from bot.views.sizing_reply import refers_to, sizing_digest
from bot.views.watches import question_reply
from estimator.followup import shown_command, stated_command
from estimator.i18n import Translator
from estimator.number_text import money
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.patterns import language_of
from monitor.watch_codec import WatchCodecError, decode, is_typed
from monitor.watch_question import run_budget_in_question, watch_words_in_question
from monitor.watch_words import parse_watch, watch_for_run_cost

MAX_TEXT = 300


def create_router() -> Router:
    router = Router(name="watch_question")
    router.message.register(on_run_question, F.text, ~F.text.startswith("/"), _run_question)
    router.message.register(on_question, F.text, ~F.text.startswith("/"), _notify_question)
    router.callback_query.register(on_press, WatchQuestionCallback.filter())
    router.callback_query.register(on_run_press, RunWatchCallback.filter())
    return router


def _run_question(message: Message) -> bool | dict[str, Any]:
    """A filter: «сообщи, когда мой запуск будет стоить меньше 5 000 ₽» -> its budget."""
    budget = run_budget_in_question((message.text or "")[:MAX_TEXT])
    return {"budget": budget} if budget is not None else False


def costed(parsed: ParsedQuery) -> bool:
    """Whether the run has a length, so a cost to watch (its dataset)."""
    return bool(parsed.query.dataset_examples or parsed.query.dataset_tokens)


async def on_run_question(
    message: Message,
    budget: float,
    translators: dict[str, Translator],
    conversations: Conversations,
) -> None:
    """The run is the chat's last sizing: the reply names it and the budget, and one button
    creates exactly that watch; without a sized run with a dataset, it says what to send."""
    language = language_of((message.text or "")[:MAX_TEXT])
    i18n = _translator(translators, language)
    remembered = await conversations.last(message.chat.id)
    if remembered is None or not costed(remembered[0]):
        await message.answer(i18n("watchq-run-needs-sizing"))
        return
    parsed = remembered[0]
    data = RunWatchCallback(lang=language, ref=sizing_digest(parsed), budget=round(budget))
    builder = InlineKeyboardBuilder()
    builder.button(
        text=i18n("watchq-run-button", budget=money(budget, i18n.language)), callback_data=data
    )
    run = shown_command(stated_command(replace(parsed, budget_rub=None)))
    text = i18n("watchq-run-offer", run=run, budget=money(budget, i18n.language))
    await message.answer(text, reply_markup=builder.as_markup())


async def on_run_press(
    callback: CallbackQuery,
    callback_data: RunWatchCallback,
    translators: dict[str, Translator],
    store: BotStore,
    conversations: Conversations,
) -> None:
    await callback.answer()
    assert callback.message is not None
    i18n = _translator(translators, callback_data.lang)
    chat = callback.message.chat.id
    remembered = await conversations.last(chat)
    if remembered is None or not refers_to(remembered[0], callback_data.ref):
        await show(callback, i18n("watchq-run-stale"), None)
        return
    try:
        watch = watch_for_run_cost(remembered[0], callback_data.budget)
    except QueryError as error:  # no dataset, or no card holds it: the answer said so
        await show(callback, watch_error_text(i18n, error), None)
        return
    await show(callback, await subscribe_to(store, i18n, chat, watch), None)


def _notify_question(message: Message) -> bool | dict[str, Any]:
    """A filter: the /watch words of a notify-me question, handed to the handler as `spec`."""
    spec = watch_words_in_question((message.text or "")[:MAX_TEXT])
    return {"spec": spec} if spec is not None else False


def _translator(translators: dict[str, Translator], language: str) -> Translator:
    return translators.get(language) or next(iter(translators.values()))


async def on_question(message: Message, spec: str, translators: dict[str, Translator]) -> None:
    # Answered in the question's language, as the other free-text answers are.
    language = language_of((message.text or "")[:MAX_TEXT])
    i18n = _translator(translators, language)
    # The filter found words that parse_watch reads: the question's, at the user's edge.
    text, keyboard = question_reply(i18n, parse_watch(spec), language)
    await message.answer(text, reply_markup=keyboard)


async def on_press(
    callback: CallbackQuery,
    callback_data: WatchQuestionCallback,
    translators: dict[str, Translator],
    store: BotStore,
) -> None:
    await callback.answer()
    assert callback.message is not None
    i18n = _translator(translators, callback_data.lang)
    chat, spec = callback.message.chat.id, callback_data.spec
    if not is_typed(spec):
        await show(callback, await _legacy_press(store, i18n, chat, spec), None)
        return
    try:
        watch = decode(spec)
    except WatchCodecError:  # a forged button
        await show(callback, i18n("button-stale"), None)
        return
    await show(callback, await subscribe_to(store, i18n, chat, watch), None)


async def _legacy_press(store: BotStore, i18n: Translator, chat: int, words: str) -> str:
    """A button carrying /watch words (a watch on a run, or one sent before the typed texts):
    subscribe() parses them; forged words get the /watch error, not a crash."""
    return await subscribe(store, i18n, chat, words)
