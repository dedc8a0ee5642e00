"""/fit: sizing answers from a command, from a three-step button wizard, or from free text.

The first answer is short (for a phone): verdict, peak and the best three live options, with
a «Подробнее» button for the table, the levers, the warnings, hourly-vs-monthly and the
checkpoint size. `/fit compare 13b` puts full, LoRA and QLoRA side by side. Answers come in
the language of the question: a free question's own, a command's from the user's setting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, Filter
from aiogram.types import CallbackQuery, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import (
    FitDetailsCallback,
    FitWatchCallback,
    FitWizardCallback,
    LegacyFitWatchCallback,
)
from bot.conversation import Conversations
from bot.ports import BotStore
from bot.replies import show
from bot.usecases.sizing import build, live_quotes
from bot.usecases.watches import subscribe_to, watch_error_text
from bot.views.sizing_errors import error_text, unknown_gpu_text
from bot.views.sizing_reply import (
    BY_REFERENCE,
    answer_keyboard,
    ctx_keyboard,
    method_keyboard,
    packs,
    refers_to,
    reply_with_answer,
    share_link,
    size_keyboard,
    watched_run,
    wizard_sizing,
)
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.followup import stated_with_method
from estimator.gpus import load_gpus, unknown_card_in_text
from estimator.i18n import Translator
from estimator.parse import ParsedQuery, QueryError, parse_question
from estimator.parsing.build import finish
from estimator.parsing.language import reply_language
from estimator.parsing.patterns import language_of
from estimator.query import Method
from estimator.sizing_text import render_compare, render_details, render_short
from estimator.solve import solve, solved_query
from estimator.solve_text import example_label, example_method, needs_model_text, unnamed_reverse
from estimator.stated_codec import StatedCodecError, is_typed, sizing, stated_text
from estimator.unknown_model import UnknownModel, unknown_model_in_text, unknown_model_text
from monitor.users import User
from monitor.watch_question import watch_words_in_question
from monitor.watch_words import watch_for_run

# Arguments longer than this are not a sizing query anyone typed by hand. A story with its
# facts (model, method, dataset, lengths, budget) runs to ~700 characters; the parser reads
# up to 2000, so 1000 leaves room without letting documents in.
MAX_ARGS = 1000
COMPARE_WORDS = frozenset({"compare", "сравни", "сравнить", "сравнение", "vs"})


class FreeText(Filter):
    """Free text (not a command, not over MAX_ARGS) that `read` makes something of; the
    result goes to the handler as `key`. One each, in order: a sizing question, one about a
    model the catalog lacks («deepseek v2 lite qlora на 4090 пойдёт?»), a reverse question
    that names no model («какой batch поставить на a100?»): without the last two they would
    read as questions about a card's prices."""

    def __init__(self, read: Callable[[str], object | None], key: str) -> None:
        self._read = read
        self._key = key

    async def __call__(self, message: Message) -> bool | dict[str, Any]:
        text = message.text or ""
        if not text or text.startswith("/") or len(text) > MAX_ARGS:
            return False
        if watch_words_in_question(text) is not None:
            # «alert me when 8x H100 is under 600 rub per GPU-hour for a 70b fine-tune» is a
            # watch with a cap per GPU-hour (bot/routers/watch_question.py), not a budget.
            return False
        found = self._read(text)
        return False if found is None else {self._key: found}


def create_router() -> Router:
    router = Router(name="fit")
    router.message.register(on_fit, Command("fit"))
    router.message.register(on_question, F.text, FreeText(parse_question, "parsed"))
    router.message.register(on_unknown_model, F.text, FreeText(unknown_model_in_text, "unknown"))
    router.message.register(on_unnamed_reverse, F.text, FreeText(unnamed_reverse, "unnamed"))
    router.callback_query.register(on_wizard, FitWizardCallback.filter())
    router.callback_query.register(on_fit_watch, FitWatchCallback.filter())
    router.callback_query.register(on_fit_watch, LegacyFitWatchCallback.filter())
    router.callback_query.register(on_details, FitDetailsCallback.filter())
    return router


async def on_fit_watch(
    callback: CallbackQuery,
    callback_data: FitWatchCallback | LegacyFitWatchCallback,
    i18n: Translator,
    store: BotStore,
    conversations: Conversations,
) -> None:
    await callback.answer()
    assert callback.message is not None
    data = callback_data
    rank = data.rank if isinstance(data, FitWatchCallback) else 0
    run = f"{data.method} ctx={data.ctx} bs={data.bs}" + (f" rank={rank}" if rank else "")
    chat = callback.message.chat.id
    if data.model.startswith(BY_REFERENCE):
        reply = await _watch_remembered(data.model, run, i18n, store, conversations, chat)
    else:
        reply = await _watch_run(data.model, run, data, rank, i18n, store, chat)
    if callback.bot is not None:
        await callback.bot.send_message(callback.message.chat.id, reply)


async def _watch_run(
    model: str,
    run: str,
    data: FitWatchCallback | LegacyFitWatchCallback,
    rank: int,
    i18n: Translator,
    store: BotStore,
    chat: int,
) -> str:
    """A watch for the run the button carries, typed; its words only say it back."""
    try:
        parsed = watched_run(model, data.method, data.ctx, data.bs, rank)
        watch = watch_for_run(parsed, f"{model} {run}")
    except QueryError as error:
        return watch_error_text(i18n, error)
    return await subscribe_to(store, i18n, chat, watch)


async def _watch_remembered(
    reference: str,
    run: str,
    i18n: Translator,
    store: BotStore,
    conversations: Conversations,
    chat: int,
) -> str:
    """A watch for the chat's remembered sizing of a config's model, at the run the button
    carries (the solved value of a reverse answer)."""
    parsed = await _referred(reference, conversations, chat)
    if parsed is None:
        return i18n("fitb-stale")
    sized = solved_query(parsed, solve(parsed, load_gpus()))
    try:
        watch = watch_for_run(sized, f"{parsed.model.id} {run}")
    except QueryError as error:
        return watch_error_text(i18n, error)
    return await subscribe_to(store, i18n, chat, watch)


async def on_details(
    callback: CallbackQuery,
    callback_data: FitDetailsCallback,
    translators: dict[str, Translator],
    i18n: Translator,
    store: BotStore,
    conversations: Conversations,
) -> None:
    """Rebuild the answer from the button's run (or the chat's remembered sizing it refers
    to) at today's prices, in the question's language, and switch the message between the
    short and the detailed view."""
    await callback.answer()
    language = callback_data.lang if callback_data.lang in ("ru", "en") else i18n.language
    local = translators.get(language, i18n)
    parsed = await _button_sizing(callback, callback_data.run, conversations)
    if parsed is None:  # a forged or outdated button
        await show(callback, local("fitb-stale"), None)
        return
    if not callback_data.run.startswith(BY_REFERENCE):
        # The run on screen is the one a follow-up («а с lora?») changes, also when a button
        # sized it (the example of a model-less question, another method, an older answer).
        chat = callback.message.chat.id if callback.message else callback.from_user.id
        await conversations.remember(chat, parsed, language)
    answer = await build(parsed, store, callback.from_user.id)
    full = bool(callback_data.full)
    text = render_details(answer, language) if full else render_short(answer, language)
    share = await share_link(callback.bot, parsed, local)
    keyboard = answer_keyboard(parsed, local, language, full=full, share=share, answer=answer)
    await show(callback, text, keyboard)


async def _referred(reference: str, conversations: Conversations, chat: int) -> ParsedQuery | None:
    """The chat's remembered sizing a button's `reference` (BY_REFERENCE and its digest)
    stands for; None once a later sizing replaced it (an outdated button) or it expired."""
    remembered = await conversations.last(chat)
    if remembered is None or not refers_to(remembered[0], reference[len(BY_REFERENCE) :]):
        return None
    return remembered[0]


async def _button_sizing(
    callback: CallbackQuery, run: str, conversations: Conversations
) -> ParsedQuery | None:
    """The run a «Подробнее» button stands for; None for a forged or outdated one."""
    if run.startswith(BY_REFERENCE):
        chat = callback.message.chat.id if callback.message else callback.from_user.id
        return await _referred(run, conversations, chat)
    try:
        return sizing(run) if is_typed(run) else _legacy_button_sizing(run)
    except (QueryError, StatedCodecError):
        return None


def _legacy_button_sizing(command: str) -> ParsedQuery | None:
    """A button sent before the typed texts: its /fit command, read by the grammar."""
    return understand(command)


async def on_fit(
    message: Message,
    command: CommandObject,
    i18n: Translator,
    translators: dict[str, Translator],
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    if not command.args:
        await message.answer(i18n("fit-wizard-size"), reply_markup=size_keyboard())
        return
    if len(command.args) > MAX_ARGS:
        await message.answer(i18n("fit-too-long", limit=MAX_ARGS))
        return
    words = command.args.split(maxsplit=1)
    if words[0].lower() in COMPARE_WORDS:
        await on_compare(message, words[1] if len(words) > 1 else "", i18n, user, store)
        return
    # A bare command answers in the user's language; one with words, in theirs.
    language = _command_language(command.args, user.language)
    local = translators.get(language, i18n)
    failure: QueryError | None = None
    try:
        parsed = understand(command.args)
    except QueryError as error:
        parsed, failure = None, error
    if parsed is None:
        # A model the catalog lacks, where no model was read (rather than another mistake).
        unknown = unknown_model_in_text(command.args, sizing=True)
        if unknown is not None and (failure is None or failure.code == "no_model"):
            await message.answer(unknown_model_text(unknown, command.args, language))
        elif failure is not None:
            await message.answer(error_text(local, failure, command.args))
        else:
            await message.answer(local("fit-not-understood"))
        return
    await conversations.remember(message.chat.id, parsed, language)
    await reply_with_answer(message, parsed, language, local, store, ask=True)


def _command_language(args: str, setting: str) -> str:
    if language_of(args) == "ru":
        return "ru"
    return setting


async def on_compare(
    message: Message, args: str, i18n: Translator, user: User, store: BotStore
) -> None:
    """/fit compare 13b: full, LoRA and QLoRA of the same run in one table."""
    base = args.strip() or "8b"
    try:
        parsed = understand(base)
    except QueryError as error:
        await message.answer(error_text(i18n, error, base))
        return
    if parsed is None:
        await message.answer(i18n("fitb-compare-usage"))
        return
    quotes = await live_quotes(store)
    answers = []
    for method in (Method.FULL, Method.LORA, Method.QLORA):
        variant = finish(stated_with_method(parsed, method))
        answers.append(build_answer(variant, load_gpus(), quotes))
    await message.answer(render_compare(answers, user.language))


async def on_question(
    message: Message,
    parsed: ParsedQuery,
    translators: dict[str, Translator],
    i18n: Translator,
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    # A free question is answered in its own language, whatever the user's setting.
    text = message.text or ""
    language = reply_language(text, user.language)
    local = translators.get(language, i18n)
    unknown = unknown_card_in_text(text)
    if unknown is not None and parsed.target_gpu is None and parsed.target_family is None:
        # A card the catalog lacks is said to be unknown, never sized as another or ignored.
        await message.answer(unknown_gpu_text(local, unknown))
        return
    await conversations.remember(message.chat.id, parsed, language)
    await reply_with_answer(message, parsed, language, local, store, ask=True)


async def on_unknown_model(message: Message, unknown: UnknownModel, user: User) -> None:
    """Which model it is not, in the question's language: its config.json, or /fit by the
    size written in its name (`estimator.unknown_model`)."""
    text = message.text or ""
    language = reply_language(text, user.language)
    await message.answer(unknown_model_text(unknown, text, language))


async def on_unnamed_reverse(message: Message, unnamed: ParsedQuery, user: User) -> None:
    """Which model and method, in the question's language, with its run as an example to copy
    (<code>) and a button that sizes it."""
    language = reply_language(message.text or "", user.language)
    builder = InlineKeyboardBuilder()
    example = stated_text(unnamed, example_method(unnamed))
    run = FitDetailsCallback(lang=language, full=0, run=example)
    if packs(run):
        builder.button(text=example_label(unnamed, language), callback_data=run)
    await message.answer(needs_model_text(unnamed, language), reply_markup=builder.as_markup())


async def on_wizard(
    callback: CallbackQuery,
    callback_data: FitWizardCallback,
    i18n: Translator,
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    await callback.answer()
    size, method, ctx = callback_data.size, callback_data.method, callback_data.ctx
    if not method:
        await show(callback, i18n("fit-wizard-method", size=size), method_keyboard(size))
        return
    if not ctx:
        await show(callback, i18n("fit-wizard-ctx"), ctx_keyboard(size, method))
        return
    parsed = wizard_sizing(size, method, ctx)
    if parsed is None:  # not one of the wizard's own choices: anyone can send callback data
        await show(callback, i18n("fit-not-understood"), None)
        return
    answer = await build(parsed, store)
    if callback.message is not None:
        await conversations.remember(callback.message.chat.id, parsed, user.language)
    share = await share_link(callback.bot, parsed, i18n)
    await show(
        callback,
        render_short(answer, user.language),
        answer_keyboard(parsed, i18n, user.language, share=share, answer=answer),
    )
