"""monitor.price_query: the /prices grammar reads /watch's words plus one billing kind."""

from __future__ import annotations

import pytest

from estimator.parse import QueryError
from monitor.offers import Billing
from monitor.price_query import PriceQuery, parse_price_query
from tests.factories import make_offer


def test_a_cap_and_a_billing_word_read_into_the_filter() -> None:
    query = parse_price_query("max=100 помесячно")
    assert query.billing is Billing.MONTHLY
    assert query.watch is not None
    assert query.watch.max_rub_per_gpu_hour == 100
    assert query.canonical() == "max=100 monthly"


def test_the_canonical_words_parse_back_to_the_same_query() -> None:
    query = parse_price_query("h100 80gb provider=selectel hourly")
    assert parse_price_query(query.canonical()) == query


def test_filler_words_alone_are_no_filter() -> None:
    assert parse_price_query("") == PriceQuery()
    assert parse_price_query("spot") == PriceQuery(None, Billing.PREEMPTIBLE)


def test_two_billing_kinds_are_refused() -> None:
    with pytest.raises(QueryError):
        parse_price_query("hourly monthly")


def test_the_label_names_the_gpu_or_family() -> None:
    assert parse_price_query("h100").label == "H100"
    assert parse_price_query("80gb").label == ""


def test_the_query_accepts_only_its_billing_kind() -> None:
    hourly, monthly = make_offer("a", 100), make_offer("b", 100, monthly=True)
    assert parse_price_query("hourly").accepts(hourly)
    assert not parse_price_query("hourly").accepts(monthly)
    assert parse_price_query("monthly").accepts(monthly)
