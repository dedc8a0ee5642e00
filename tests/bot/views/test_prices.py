"""An offer's card in the chat: a price the provider published in another currency says so."""

from __future__ import annotations

import dataclasses

from bot.views.prices import offer_card
from estimator.i18n import translator
from monitor.offers import Price
from tests.factories import make_offer


def test_a_price_converted_from_euros_names_the_currency_and_the_rate() -> None:
    euros = Price.per_month(2990 * 100.0, "EUR/month @ 100.0 ₽/EUR", converted=True)
    offer = dataclasses.replace(make_offer("a100", 0, provider="hostkey"), price=euros)
    assert "пересчитано из EUR по 100 ₽" in offer_card(translator("ru"), offer)
    assert "converted from EUR at 100 ₽" in offer_card(translator("en"), offer)


def test_a_price_in_roubles_says_nothing_of_conversion() -> None:
    card = offer_card(translator("ru"), make_offer("a100", 200.0, provider="selectel"))
    assert "пересчитано" not in card
    assert Price.per_hour(200.0, "RUB/hour").conversion is None
