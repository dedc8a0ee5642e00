"""One card per offer, whoever asks: for every offer the fake providers serve (their
fixtures, tests/fixtures/<provider>/, read by the real scrapers), the card stored with it is
the card a scrape gives it, and for every card a user can name, matching (/prices, /watch),
quotes (sizing and the market answers), the price history (/history, the chart) and the open
data (/api/v1/offers, /api/v1/history, which the Mini App reads) pick the same offers."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from bot.fields import read_card_filter
from bot.quotes import quotes_from
from estimator import gpus
from monitor.match_rules import offer_meets
from monitor.offers import Billing, Offer, billing_of
from monitor.providers import PROVIDERS
from monitor.scrape import ScrapeResult
from monitor.subscriptions import WatchFilter
from storage import Store
from tests.bot.ops.serving import open_data_server
from tests.factories import store_snapshot
from tests.fakes.providers import scrape_fixtures

Key = tuple[str, str, str]


@pytest.fixture(scope="module")
def scraped() -> list[ScrapeResult]:
    """Every provider's offers as the scrapers read the fixtures."""
    import asyncio

    found = asyncio.run(scrape_fixtures())
    assert {result.provider for result in found if result.offers} == set(PROVIDERS.ids)
    return found


@pytest.fixture
async def store(tmp_path: Path, scraped: list[ScrapeResult]) -> AsyncIterator[Store]:
    store = await Store.open(tmp_path / "cards.sqlite3")
    for result in scraped:
        await store_snapshot(store, result)
    yield store
    await store.close()


@pytest.fixture
async def api(store: Store) -> AsyncIterator[TestServer]:
    now = datetime.now().astimezone()
    # A clock a minute on per request: the rate limit is not what this test asks about.
    minutes = functools.partial(next, itertools.count(0.0, 60.0))
    started = now - timedelta(days=1)
    async with open_data_server(store, started=started, now=now, clock=minutes) as server:
        yield server


def every_offer(scraped: list[ScrapeResult]) -> list[Offer]:
    return [offer for result in scraped for offer in result.offers]


def card_words(offers: list[Offer]) -> list[str]:
    """Every way to name the fixture offers' cards: each family, each family with each memory
    size its offers have, each catalogue card."""
    words: set[str] = set()
    for offer in offers:
        card = offer.card
        if card.family is not None:
            words.add(card.family.lower())
            if card.vram_gb is not None:
                words.add(f"{card.family.lower()} {card.vram_gb:g}gb")
        if card.id is not None:
            words.add(card.id.lower())
    return sorted(words)


async def get_json(server: TestServer, path: str, **params: str) -> Any:
    async with (
        aiohttp.ClientSession() as session,
        session.get(str(server.make_url(path)), params=params) as response,
    ):
        assert response.status == 200, await response.text()
        return json.loads(await response.read())


def test_every_fixture_offer_carries_the_card_of_its_name(scraped: list[ScrapeResult]):
    offers = every_offer(scraped)
    assert len(offers) > 50
    for offer in offers:
        card = offer.card
        assert card.form_published == offer.gpu_known, offer.key
        if card.id is not None:
            assert (card.id, card.sizing_id) == (offer.gpu, offer.gpu)
            assert card.family == gpus.get(card.id).family
        if card.sizing_id is not None:
            assert gpus.get(card.sizing_id).family == card.family, offer.key


async def test_storage_gives_back_the_card_decided_at_scrape_time(
    scraped: list[ScrapeResult], store: Store
):
    stored = {item.offer.key: item.offer.card for item in await store.observed_offers()}
    assert stored == {offer.key: offer.card for offer in every_offer(scraped)}


async def test_quotes_size_each_offer_as_its_card(scraped: list[ScrapeResult], store: Store):
    observed = await store.observed_offers()
    quoted = {(q.provider, q.label, q.location): q.gpu_id for q in quotes_from(observed)}
    for item in observed:
        offer = item.offer
        key = (PROVIDERS.name(offer.provider), offer.sku, offer.location)
        if billing_of(offer.price) is Billing.PREEMPTIBLE:
            assert key not in quoted  # never a plan for a training run
        else:
            assert quoted.get(key) == offer.card.sizing_id, key


async def test_matching_history_and_the_open_data_pick_the_same_offers(
    scraped: list[ScrapeResult], store: Store, api: TestServer
):
    offers = every_offer(scraped)
    since = datetime.now().astimezone() - timedelta(days=30)
    words = card_words(offers)
    assert {"a100", "a100 40gb", "a100 80gb", "h100", "rtx 4090"} <= set(words)
    for word in words:
        cards = read_card_filter(word)
        watch = WatchFilter(gpu=cards.gpu, family=cards.family, min_vram_gb=cards.min_vram_gb)
        matched = {o.key for o in offers if offer_meets(watch, o)}
        assert matched == {o.key for o in offers if cards.accepts(o.card)}, word
        history = {(p.provider, p.sku, p.location) for p in await store.price_series(cards, since)}
        assert history == matched, word
        listed = await get_json(api, "/api/v1/offers", gpu=word)
        assert {(o["provider"], o["sku"], o["location"]) for o in listed["offers"]} == matched
        charted = await get_json(api, "/api/v1/history", gpu=word, days="30")
        points = {(p["provider"], p["sku"], p["location"]) for p in charted["points"]}
        assert points == matched, word
