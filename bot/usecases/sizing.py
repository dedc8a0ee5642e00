"""Sizing answers, for every transport: a run at live prices, timed by the user's own measured
speed when they gave one. /fit and its follow-ups, inline mode, the Mini App's calculator and
the console all answer through `build`."""

from __future__ import annotations

from typing import Protocol

from bot.quotes import quotes_from
from estimator.answer import FitAnswer, build_answer
from estimator.cost import PriceQuote
from estimator.gpus import load_gpus
from estimator.measurement import Measurement
from estimator.parse import ParsedQuery
from monitor.freshness import ObservedOffer
from monitor.speed_measurements import StoredSpeed


class SizingStore(Protocol):
    """What a sizing reads: the live offers and the user's own measured speed."""

    async def observed_offers(self) -> list[ObservedOffer]: ...

    async def speed_of(self, user_id: int, /) -> StoredSpeed | None: ...


async def live_quotes(store: SizingStore) -> list[PriceQuote]:
    """Every offer a plan may use now (bot.quotes), from the store's one read of them."""
    return quotes_from(await store.observed_offers())


async def build(parsed: ParsedQuery, store: SizingStore, user_id: int | None = None) -> FitAnswer:
    """The answer at live prices; with `user_id`, timed by that user's own measured speed."""
    measured = await measured_speed(store, user_id)
    return build_answer(parsed, load_gpus(), await live_quotes(store), measured)


async def measured_speed(store: SizingStore, user_id: int | None) -> Measurement | None:
    """The user's stored measurement, for the answers that follow it."""
    if user_id is None:
        return None
    stored = await store.speed_of(user_id)
    if stored is None:
        return None
    return Measurement(
        stored.gpu, stored.gpus, stored.tokens_per_second, stored.predicted, stored.run
    )
