"""One router per feature, built fresh by `create_routers()` (a router has only one parent)."""

from __future__ import annotations

from aiogram import Router

from bot.routers import errors, fallback, fit, help, prices, settings, soon, start


def create_routers() -> list[Router]:
    """Routers in the order they must see updates: the catch-all fallback comes last."""
    return [
        errors.create_router(),
        start.create_router(),
        help.create_router(),
        settings.create_router(),
        fit.create_router(),
        prices.create_router(),
        soon.create_router(),
        fallback.create_router(),
    ]
