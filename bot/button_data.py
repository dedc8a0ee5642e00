"""Callback data factories. Prefixes are one letter: callback_data is capped at 64 bytes."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class MenuItem(StrEnum):
    PRICES = "prices"
    FIT = "fit"
    SUBSCRIPTIONS = "subs"
    SETTINGS = "settings"
    HELP = "help"
    HOME = "home"


class MenuCallback(CallbackData, prefix="m"):
    item: MenuItem


class SettingsAction(StrEnum):
    SHOW = "show"
    LANGUAGE = "lang"
    TIMEZONE_MENU = "tzm"
    TIMEZONE = "tz"
    QUIET_MENU = "qm"
    QUIET = "q"
    UNSNOOZE = "us"  # lift "💤 until morning"


class SettingsCallback(CallbackData, prefix="s"):
    action: SettingsAction
    # Free-form on purpose (a zone name, a quiet-hours preset): handlers validate it, because
    # anyone can send any callback_data to the bot.
    value: str = ""


class FitWizardCallback(CallbackData, prefix="f"):
    """The /fit wizard's state travels in the button itself: size, then method, then ctx."""

    size: str
    method: str = ""
    ctx: str = ""


class PricesCallback(CallbackData, prefix="p"):
    """A page of /prices; `gpu` is the canonical id or family the list is filtered by."""

    page: int
    gpu: str = ""
    stock: int = 0  # 1: /stock (in stock only)


class WatchWizardCallback(CallbackData, prefix="w"):
    """The /watch button flow: a GPU family, then a price ceiling ("0" = none)."""

    family: str
    max: str = ""


class SubsCallback(CallbackData, prefix="u"):
    """A /subs button: pause, resume, edit (price picker), price, delete."""

    action: str
    sub: int
    value: str = ""


class FitWatchCallback(CallbackData, prefix="v"):
    """ "Watch for offers that fit this run", from a /fit answer: the run travels in the button
    (model id, method, ctx, micro-batch, LoRA rank) so no server-side state is needed. A
    reverse answer's button carries the solved value (ctx=max solved to 6144: ctx 6144)."""

    model: str
    method: str
    ctx: int
    bs: int
    rank: int = 0  # 0: the default rank (estimator.query.FitQuery.lora_rank)


class LegacyFitWatchCallback(CallbackData, prefix="v"):
    """A watch button sent before FitWatchCallback carried the rank: still pressed in chats."""

    model: str
    method: str
    ctx: int
    bs: int


class FitDetailsCallback(CallbackData, prefix="d"):
    """«Подробнее» / «Кратко» on a /fit answer (and the other-method, reading and example
    buttons). The run travels as what the user stated (estimator.stated_codec), so the view
    is rebuilt by `finish` at today's prices; one too long for 64 bytes as a reference to the
    chat's remembered sizing (bot.views.sizing_reply.BY_REFERENCE). A button sent before
    carries a /fit command, still read through the grammar."""

    lang: str  # "ru" | "en": the language of the question it answers
    full: int  # 1: the details view, 0: the short answer
    run: str


class WatchQuestionCallback(CallbackData, prefix="q"):
    """«Следить» under a notify-me question's answer (or a shared watch link): the watch
    travels typed (monitor.watch_codec). One no text carries (a watch on a run), and a button
    sent before the typed texts, carry /watch words, parsed again when pressed."""

    lang: str  # "ru" | "en": the language of the question
    spec: str


class RunWatchCallback(CallbackData, prefix="j"):
    """«Следить за ценой запуска» under a run-cost question: the run is the chat's remembered
    sizing, named by a digest of what was stated (bot.views.sizing_reply.sizing_digest), so
    that a later sizing makes the button outdated rather than silently watching another run."""

    lang: str  # "ru" | "en"
    ref: str  # the digest of the remembered sizing
    budget: int  # ₽, the most the whole run may cost
