"""One router per feature, built fresh by `create_routers()` (a router has only one parent)."""

from __future__ import annotations

from aiogram import Router

from bot.delivery import handlers as alerts
from bot.routers import (
    admin,
    errors,
    fallback,
    fit,
    followup,
    glossary,
    help,
    history,
    inline,
    market,
    measurement,
    model_config,
    prices,
    settings,
    start,
    thanks,
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
        # A pasted or sent config.json: before the routers that read free text, none of
        # which could make sense of JSON.
        model_config.create_router(),
        # A measured speed («2,1 с/шаг на 4090 при bs 4») names a card and a batch, which the
        # follow-up and sizing readers would take for a change of the run or a question.
        measurement.create_router(),
        # «Что такое QLoRA?», "what is fsdp?": the term explained. Before the follow-up
        # router, which would read "what is fsdp?" as the last run with FSDP; it takes only
        # a whole message that asks what a term is.
        glossary.create_router(),
        # Before fit: «а для 70b?» reads as a sizing question of its own there, where it is
        # a change of the last answer. It takes only texts that change a remembered sizing
        # and say nothing else; a new question naming a model goes on to fit.
        followup.create_router(),
        fit.create_router(),
        prices.create_router(),
        watch.create_router(),
        history.create_router(),
        inline.create_router(),
        alerts.create_router(),
        admin.create_router(),
        # «Сообщи, когда…»: a watch asked for in words, before the general questions.
        watch_question.create_router(),
        # «Спасибо»: a short reply, before the market router would point to the commands.
        thanks.create_router(),
        # Free text no other router took: general questions, answered or pointed to a command.
        market.create_router(),
        fallback.create_router(),
    ]
