"""A sizing answer as the chat shows it: the short answer with its buttons («Подробнее», the
other methods, «Следить», «Поделиться»), the question which reading was meant, and the /fit
wizard's keyboards. /fit, its follow-ups, a pasted config, the buttons and /start's deep links
reply through `reply_with_answer`."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from aiogram import Bot
from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import (
    FitDetailsCallback,
    FitWatchCallback,
    FitWizardCallback,
)
from bot.deep_links import LinkKind, share_sheet
from bot.ports import BotStore
from bot.usecases.sizing import build
from estimator.answer import FitAnswer
from estimator.fit_words import command_for
from estimator.gpus import load_gpus
from estimator.i18n import Translator
from estimator.model_config import spec_json
from estimator.models import get_model
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.build import Given, check_int, finish
from estimator.plan_text import gib
from estimator.query import FitQuery, Method
from estimator.readings import readings_to_ask
from estimator.sizing_text import render_short
from estimator.solve import Outcome, solve, solved_query
from estimator.stated_codec import stated_text

# Wizard choices: (button label, value put into the command).
# A range sizes its larger end (the safe side): «13–14B» is Qwen2.5-14B, not Llama-2-13B.
SIZES = (("1–3B", "3b"), ("7–8B", "8b"), ("13–14B", "14b"), ("32–34B", "34b"), ("70B", "70b"))


METHODS = (("QLoRA", "qlora"), ("LoRA", "lora"), ("Full", "full"))


CONTEXTS = ("2048", "4096", "8192", "16384", "32768")


# A run whose stated text does not fit in callback data (64 bytes) is carried by reference:
# "@" and a digest of that text. The press finds it as the chat's remembered sizing
# (storage, shared by replicas); a digest that no longer matches is an outdated button.
BY_REFERENCE = "@"


def sizing_digest(parsed: ParsedQuery) -> str:
    """A model from a config.json is named in the digest by its shapes too: another file
    with the same name is another model."""
    return _digest(stated_text(parsed), parsed)


def refers_to(parsed: ParsedQuery, digest: str) -> bool:
    """Whether a button's digest names `parsed`: today's, or the digest of its /fit command
    that buttons sent before the stated texts carry (legacy, while such a sizing is remembered)."""
    return digest in (sizing_digest(parsed), _digest(command_for(parsed), parsed))


def _digest(said: str, parsed: ParsedQuery) -> str:
    said += spec_json(parsed.model) if parsed.model_from_config else ""
    return hashlib.sha256(said.encode()).hexdigest()[:12]


def details_button(parsed: ParsedQuery, language: str, *, full: bool) -> FitDetailsCallback:
    flip = 0 if full else 1
    toggle = FitDetailsCallback(lang=language, full=flip, run=stated_text(parsed))
    if not parsed.model_from_config and packs(toggle):  # no text names a config's model
        return toggle
    return FitDetailsCallback(lang=language, full=flip, run=BY_REFERENCE + sizing_digest(parsed))


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
            lang=language, full=1 if full else 0, run=stated_text(parsed, method)
        )
        if packs(again):
            builder.button(
                text=i18n("fitb-button-method", method=method.value), callback_data=again
            )
    watch = watch_button(parsed, answer)
    if watch is not None and packs(watch):
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


def watched_run(model_id: str, method: str, ctx: int, bs: int, rank: int) -> ParsedQuery:
    """The run a watch button carries (`watch_button`'s fields), typed; QueryError for a
    model, method or value no answer would have put there (anyone can send callback data)."""
    try:
        model = get_model(model_id)
        chosen = Method(method)
    except (KeyError, ValueError):
        raise QueryError("bad_value", "not a run of ours", value=model_id) from None
    lora_rank = check_int("rank", rank) if rank else None
    given = Given(
        model=model,
        method=chosen,
        ctx=check_int("ctx", ctx),
        micro_batch=check_int("bs", bs),
        lora_rank=lora_rank,
    )
    return finish(given)


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


def packs(data: CallbackData) -> bool:
    try:
        data.pack()
    except ValueError:
        return False  # over 64 bytes (or a ":" in it): the button is left out
    return True


async def share_link(bot: Bot | None, parsed: ParsedQuery, i18n: Translator) -> str | None:
    """Telegram's share sheet with a /start link that opens this sizing (bot.deep_links), or
    None when what was stated is too long for a link."""
    if bot is None or parsed.model_from_config:  # a link cannot carry the user's file
        return None
    me = await bot.me()
    if not me.username:
        return None
    return share_sheet(
        me.username,
        LinkKind.SIZING,
        stated_text(parsed),
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
        data = FitDetailsCallback(lang=language, full=0, run=stated_text(reading.parsed))
        if not packs(data):
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


def wizard_sizing(size: str, method: str, ctx: str) -> ParsedQuery | None:
    """The run the wizard's three choices state, typed: None for anything the wizard does not
    offer."""
    if size not in {value for _, value in SIZES} or ctx not in CONTEXTS:
        return None
    if method not in {value for _, value in METHODS}:
        return None
    return finish(Given(size_b=float(size.removesuffix("b")), method=Method(method), ctx=int(ctx)))


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


# The run a /fit command starts from: what a watch leaves unsaid is at these values.
DEFAULT_RUN = FitQuery(model="-")
