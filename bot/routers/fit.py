"""/fit: sizing answers from a command, from a three-step button wizard, or from free text.

The first answer is short (for a phone): verdict, peak and the best three live options, with
a «Подробнее» button for the table, the levers, the warnings, hourly-vs-monthly and the
checkpoint size. `/fit compare 13b` puts full, LoRA and QLoRA side by side. Answers come in
the language of the question: a free question's own, a command's from the user's setting.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, Filter
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import (
    FitDetailsCallback,
    FitWatchCallback,
    FitWizardCallback,
    LegacyFitWatchCallback,
)
from bot.conversation import Conversations
from bot.deep_links import LinkKind, share_sheet
from bot.ports import BotStore
from bot.replies import show
from bot.routers.watch import subscribe, subscribe_to, watch_error_text
from bot.sizing import build, live_quotes
from estimator.answer import FitAnswer, build_answer
from estimator.fit_words import command_for, command_with_method, understand
from estimator.gpus import closest, load_gpus, unknown_card_in_text
from estimator.i18n import Translator
from estimator.model_config import spec_json
from estimator.parse import ParsedQuery, QueryError, parse_question
from estimator.parsing.language import reply_language
from estimator.parsing.text import language_of, read_method
from estimator.plan_text import gib
from estimator.query import FitQuery, Method
from estimator.readings import readings_to_ask
from estimator.sizing_text import render_compare, render_details, render_short
from estimator.solve import Outcome, solve, solved_query
from estimator.solve_text import example_label, model_example, needs_model_text, unnamed_reverse
from estimator.unknown_model import UnknownModel, unknown_model_in_text, unknown_model_text
from monitor.users import User
from monitor.watch_question import watch_words_in_question
from monitor.watch_words import watch_for_run

# Wizard choices: (button label, value put into the command).
# A range sizes its larger end (the safe side): «13–14B» is Qwen2.5-14B, not Llama-2-13B.
SIZES = (("1–3B", "3b"), ("7–8B", "8b"), ("13–14B", "14b"), ("32–34B", "34b"), ("70B", "70b"))
METHODS = (("QLoRA", "qlora"), ("LoRA", "lora"), ("Full", "full"))
CONTEXTS = ("2048", "4096", "8192", "16384", "32768")
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


# The run a /fit command starts from: what a watch leaves unsaid is at these values.
DEFAULT_RUN = FitQuery(model="-")

# A run whose command does not fit in callback data (64 bytes) is carried by reference: "@"
# and a digest of its command. The press finds it as the chat's remembered sizing (storage,
# shared by replicas); a digest that no longer matches is an outdated button.
BY_REFERENCE = "@"


def sizing_digest(parsed: ParsedQuery) -> str:
    """A model from a config.json is named in the digest by its shapes too: another file
    with the same name is another model."""
    said = command_for(parsed) + (spec_json(parsed.model) if parsed.model_from_config else "")
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def details_button(parsed: ParsedQuery, language: str, *, full: bool) -> FitDetailsCallback:
    toggle = FitDetailsCallback(lang=language, full=0 if full else 1, cmd=command_for(parsed))
    if not parsed.model_from_config and _packs(toggle):  # no command names a config's model
        return toggle
    reference = BY_REFERENCE + sizing_digest(parsed)
    return FitDetailsCallback(lang=language, full=0 if full else 1, cmd=reference)


def answer_keyboard(
    parsed: ParsedQuery,
    i18n: Translator,
    language: str,
    *,
    full: bool = False,
    share: str | None = None,
    answer: FitAnswer | None = None,
) -> InlineKeyboardMarkup:
    """«Подробнее» (or «Кратко» on the details), the other methods when the method was
    assumed (each re-answers with it), «watch for offers that fit», and «↗️ Поделиться»
    when the run fits in a link (`share`, from share_link). A reverse question's watch is for
    the run its `answer` sizes: at the solved value."""
    builder = InlineKeyboardBuilder()
    toggle = details_button(parsed, language, full=full)
    key = "fitb-button-short" if full else "fitb-button-details"
    builder.button(text=i18n(key), callback_data=toggle)
    for method in other_methods(parsed):
        again = FitDetailsCallback(
            lang=language, full=1 if full else 0, cmd=command_with_method(parsed, method)
        )
        if _packs(again):
            builder.button(
                text=i18n("fitb-button-method", method=method.value), callback_data=again
            )
    watch = watch_button(parsed, answer)
    if watch is not None and _packs(watch):
        builder.button(text=i18n("fit-watch-button"), callback_data=watch)
    if share is not None:
        builder.button(text=i18n("share-button"), url=share)
    builder.adjust(1)
    return builder.as_markup()


def watch_button(parsed: ParsedQuery, answer: FitAnswer | None) -> FitWatchCallback | None:
    """The run the answer sizes, to watch offers for: a reverse question's at its solved value
    (or, when none fits the card, at the smallest, which the answer sizes); None when the
    answer only asks which card."""
    solution = answer.solved if answer is not None else solve(parsed, load_gpus())
    if solution is not None and solution.outcome is Outcome.NO_GPU:
        return None
    query = solved_query(parsed, solution).query
    rank = query.lora_rank if query.lora_rank != DEFAULT_RUN.lora_rank else 0
    # A config's model: the chat's remembered sizing, by reference (as «Подробнее» does).
    model = BY_REFERENCE + sizing_digest(parsed) if parsed.model_from_config else parsed.model.id
    return FitWatchCallback(
        model=model,
        method=query.method.value,
        ctx=query.ctx,
        bs=query.micro_batch,
        rank=rank,
    )


def other_methods(parsed: ParsedQuery) -> list[Method]:
    """The methods to offer when the user named none: all but the assumed one, never one they
    ruled out («без qlora»)."""
    if parsed.assumed("method") is None or parsed.model_from_config:
        return []  # a config's model: «а на lora?» changes the method instead
    ruled_out = {n.split(":", 1)[1] for n in parsed.notes if n.startswith("negated:")}
    return [
        m
        for m in (Method.QLORA, Method.LORA, Method.FULL)
        if m is not parsed.query.method and m.value not in ruled_out
    ]


def watch_keyboard(parsed: ParsedQuery, i18n: Translator) -> InlineKeyboardMarkup | None:
    """The keyboard of a first answer (kept under this name for the fuzz tests)."""
    return answer_keyboard(parsed, i18n, i18n.language)


def _packs(data: CallbackData) -> bool:
    try:
        data.pack()
    except ValueError:
        return False  # over 64 bytes (or a ":" in it): the button is left out
    return True


async def share_link(bot: Bot | None, parsed: ParsedQuery, i18n: Translator) -> str | None:
    """Telegram's share sheet with a /start link that opens this sizing (bot.deep_links), or
    None when its command is too long for a link."""
    if bot is None or parsed.model_from_config:  # a link cannot carry the user's file
        return None
    me = await bot.me()
    if not me.username:
        return None
    return share_sheet(
        me.username,
        LinkKind.SIZING,
        command_for(parsed),
        i18n("share-sizing-text"),
        today=datetime.now(UTC).date(),
    )


async def reply_with_answer(
    message: Message,
    parsed: ParsedQuery,
    language: str,
    i18n: Translator,
    store: BotStore,
    *,
    ask: bool = False,
) -> None:
    """The short answer; with `ask`, first the question which reading was meant when two
    give different verdicts («14b»: which model; «a100»: which memory). A follow-up never
    asks again: it answers the reading its sizing already has."""
    question = clarifying_question(parsed, i18n, language) if ask else None
    if question is not None:
        await message.answer(question[0], reply_markup=question[1])
        return
    user_id = message.from_user.id if message.from_user else message.chat.id
    answer = await build(parsed, store, user_id)
    share = await share_link(message.bot, parsed, i18n)
    keyboard = answer_keyboard(parsed, i18n, language, share=share, answer=answer)
    await message.answer(render_short(answer, language), reply_markup=keyboard)


def clarifying_question(
    parsed: ParsedQuery, i18n: Translator, language: str
) -> tuple[str, InlineKeyboardMarkup] | None:
    """One short question with a button per reading (estimator.readings), each sizing its
    reading in place of the question; None when there is nothing worth asking, or a reading
    does not fit in a button."""
    readings = readings_to_ask(parsed)
    if not readings:
        return None
    builder = InlineKeyboardBuilder()
    for reading in readings:
        data = FitDetailsCallback(lang=language, full=0, cmd=command_for(reading.parsed))
        if not _packs(data):
            return None
        if reading.kind == "model":
            label = i18n("clarify-model-button", model=reading.label, peak=gib(reading.peak))
        else:
            fits = "yes" if reading.fits else "no"
            label = i18n("clarify-card-button", gpu=reading.label, fits=fits)
        builder.button(text=label, callback_data=data)
    builder.adjust(1)
    if readings[0].kind == "model":
        size = f"{parsed.asked_size:g}B"
        return i18n("clarify-model", size=size), builder.as_markup()
    return i18n("clarify-card", family=parsed.target_family or ""), builder.as_markup()


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
        reply = await subscribe(store, i18n, chat, f"{data.model} {run}")
    if callback.bot is not None:
        await callback.bot.send_message(callback.message.chat.id, reply)


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
    """Rebuild the answer from the button's command (or the chat's remembered sizing it
    refers to) at today's prices, in the question's language, and switch the message between
    the short and the detailed view."""
    await callback.answer()
    language = callback_data.lang if callback_data.lang in ("ru", "en") else i18n.language
    local = translators.get(language, i18n)
    parsed = await _button_sizing(callback, callback_data.cmd, conversations)
    if parsed is None:  # a forged or outdated button
        await show(callback, local("fitb-stale"), None)
        return
    if not callback_data.cmd.startswith(BY_REFERENCE):
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
    if remembered is None or sizing_digest(remembered[0]) != reference[len(BY_REFERENCE) :]:
        return None
    return remembered[0]


async def _button_sizing(
    callback: CallbackQuery, cmd: str, conversations: Conversations
) -> ParsedQuery | None:
    """The run a «Подробнее» button stands for; None for a forged or outdated one."""
    if cmd.startswith(BY_REFERENCE):
        chat = callback.message.chat.id if callback.message else callback.from_user.id
        return await _referred(cmd, conversations, chat)
    try:
        return understand(cmd)
    except QueryError:
        return None


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
        variant = understand(command_with_method(parsed, method))
        if variant is not None:
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


def unknown_gpu_text(i18n: Translator, name: str) -> str:
    """A card the catalog does not know, as written, with the one card it is a near miss of."""
    near = closest(name)
    if near is not None:
        return i18n("clarify-gpu-suggest", value=name[:40], near=near)
    return i18n("clarify-gpu-unknown", value=name[:40])


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
    run = FitDetailsCallback(lang=language, full=0, cmd=model_example(unnamed))
    if _packs(run):
        builder.button(text=example_label(unnamed, language), callback_data=run)
    await message.answer(needs_model_text(unnamed, language), reply_markup=builder.as_markup())


def error_text(i18n: Translator, error: QueryError, asked: str = "") -> str:
    """The error in the user's language: what was wrong and what is allowed. Its example
    keeps the method the user `asked` for (or names none), never swaps in another."""
    method, ruled_out = read_method(asked)
    example = " ".join(
        ["13b", method.value] if method else ["13b", *(f"no-{m.value}" for m in ruled_out)]
    )
    if error.code == "unknown_gpu" and error.value and closest(error.value) is not None:
        return unknown_gpu_text(i18n, error.value)
    key = f"fitb-error-{error.code}"
    if error.code == "unknown_key" and error.value:
        key = "fitb-error-unknown_key-near"
    if not i18n.has(key):
        key = "fit-not-understood"
    return i18n(
        key,
        key=error.key or "",
        value=(error.value or "")[:40],
        allowed=", ".join(error.allowed)[:300],
        example=example,
    )


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
    try:
        parsed = understand(f"{size} {method} ctx={ctx}")
    except QueryError as error:
        await show(callback, error_text(i18n, error), None)
        return
    if parsed is None:  # pragma: no cover - the wizard only offers readable choices
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


def size_keyboard() -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for label, value in SIZES:
        builder.button(text=label, callback_data=FitWizardCallback(size=value))
    builder.adjust(3, 2)
    return builder.as_markup()


def method_keyboard(size: str) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for label, value in METHODS:
        builder.button(text=label, callback_data=FitWizardCallback(size=size, method=value))
    builder.adjust(3)
    return builder.as_markup()


def ctx_keyboard(size: str, method: str) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for value in CONTEXTS:
        label = f"{int(value) // 1024}k"
        builder.button(
            text=label, callback_data=FitWizardCallback(size=size, method=method, ctx=value)
        )
    builder.adjust(5)
    return builder.as_markup()
