"""One router per feature, built fresh by `create_routers()` (a router has only one parent)."""

from __future__ import annotations

from aiogram import Router

from bot.delivery import handlers as alerts
from bot.routers import (
    admin,
    ask,
    errors,
    fallback,
    fit,
    help,
    history,
    prices,
    settings,
    start,
    watch,
    watch_question,
)


def create_routers() -> list[Router]:
    """Routers in the order they must see updates: the catch-all fallback comes last."""
    return [
        errors.create_router(),
        start.create_router(),
        help.create_router(),
        settings.create_router(),
        fit.create_router(),
        prices.create_router(),
        watch.create_router(),
        history.create_router(),
        alerts.create_router(),
        admin.create_router(),
        # «Сообщи, когда…»: a watch asked for in words, before the general questions.
        watch_question.create_router(),
        # Free text no other router took: general questions, answered or pointed to a command.
        ask.create_router(),
        fallback.create_router(),
    ]
