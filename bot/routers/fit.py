"""/fit: sizing answers from a command, from a three-step button wizard, or from free text."""

from __future__ import annotations

from typing import Any

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, Filter
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.callbacks import FitWatchCallback, FitWizardCallback
from bot.i18n import Translator
from bot.quotes import quotes_from
from bot.replies import show
from bot.routers.watch import subscribe
from estimator.answer import build_answer
from estimator.ask import understand
from estimator.gpus import load_gpus
from estimator.parse import ParsedQuery, QueryError, parse_question
from estimator.render import render
from monitor.users import User
from storage import Store

# Wizard choices: (button label, value put into the command).
SIZES = (("1–3B", "3b"), ("7–8B", "8b"), ("13–14B", "13b"), ("32–34B", "32b"), ("70B", "70b"))
METHODS = (("QLoRA", "qlora"), ("LoRA", "lora"), ("Full", "full"))
CONTEXTS = ("2048", "4096", "8192", "16384", "32768")
# Arguments longer than this are not a sizing query anyone typed by hand.
MAX_ARGS = 300


class SizingQuestion(Filter):
    """Matches free text that reads as a sizing question and hands the parse to the handler."""

    async def __call__(self, message: Message) -> bool | dict[str, Any]:
        if not message.text or message.text.startswith("/") or len(message.text) > MAX_ARGS:
            return False
        parsed = parse_question(message.text)
        return False if parsed is None else {"parsed": parsed}


def create_router() -> Router:
    router = Router(name="fit")
    router.message.register(on_fit, Command("fit"))
    router.message.register(on_question, F.text, SizingQuestion())
    router.callback_query.register(on_wizard, FitWizardCallback.filter())
    router.callback_query.register(on_fit_watch, FitWatchCallback.filter())
    return router


async def answer_text(parsed: ParsedQuery, language: str, store: Store) -> str:
    quotes = quotes_from(await store.current_offers())
    return render(build_answer(parsed, load_gpus(), quotes), language)


def watch_keyboard(parsed: ParsedQuery, i18n: Translator) -> InlineKeyboardMarkup | None:
    query = parsed.query
    data = FitWatchCallback(
        model=parsed.model.id, method=query.method.value, ctx=query.ctx, bs=query.micro_batch
    )
    try:
        data.pack()
    except ValueError:
        return None  # over 64 bytes with an unusually long model id; /watch can be typed
    builder = InlineKeyboardBuilder()
    builder.button(text=i18n("fit-watch-button"), callback_data=data)
    return builder.as_markup()


async def on_fit_watch(
    callback: CallbackQuery, callback_data: FitWatchCallback, i18n: Translator, store: Store
) -> None:
    await callback.answer()
    assert callback.message is not None
    data = callback_data
    text = f"{data.model} {data.method} ctx={data.ctx} bs={data.bs}"
    reply = await subscribe(store, i18n, callback.message.chat.id, text)
    if callback.bot is not None:
        await callback.bot.send_message(callback.message.chat.id, reply)


async def on_fit(
    message: Message, command: CommandObject, i18n: Translator, user: User, store: Store
) -> None:
    if not command.args:
        await message.answer(i18n("fit-wizard-size"), reply_markup=size_keyboard())
        return
    if len(command.args) > MAX_ARGS:
        await message.answer(i18n("fit-too-long", limit=MAX_ARGS))
        return
    try:
        parsed = understand(command.args)
    except QueryError as error:
        await message.answer(error_text(i18n, error))
        return
    if parsed is None:
        await message.answer(i18n("fit-not-understood"))
        return
    await message.answer(
        await answer_text(parsed, user.language, store), reply_markup=watch_keyboard(parsed, i18n)
    )


async def on_question(
    message: Message, parsed: ParsedQuery, user: User, store: Store, i18n: Translator
) -> None:
    await message.answer(
        await answer_text(parsed, user.language, store), reply_markup=watch_keyboard(parsed, i18n)
    )


def error_text(i18n: Translator, error: QueryError) -> str:
    key = f"fit-error-{error.code}"
    if not i18n.has(key):
        key = "fit-not-understood"
    return i18n(
        key,
        key=error.key or "",
        value=(error.value or "")[:40],
        allowed=", ".join(error.allowed),
    )


async def on_wizard(
    callback: CallbackQuery,
    callback_data: FitWizardCallback,
    i18n: Translator,
    user: User,
    store: Store,
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
    await show(
        callback, await answer_text(parsed, user.language, store), watch_keyboard(parsed, i18n)
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
