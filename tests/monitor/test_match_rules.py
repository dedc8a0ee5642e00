"""monitor.match_rules: the rule book, one subscription against one event."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from monitor.cards import card_of
from monitor.events import Event, EventKind
from monitor.subscriptions import AlertKind
from tests.monitor.subscription_cases import (
    ALL_KINDS,
    OUT,
    PRE,
    T0,
    UNK,
    appeared,
    drop,
    hits,
    offer,
    sub,
)

# --------------------------------------------------------------------------- GPU identity


def test_family_matches_every_member_and_nothing_else():
    s = sub(family="h100")
    assert s.filter.family == "H100"  # catalog spelling
    for gpu in ("H100 PCIe", "H100 SXM", "H100 NVL"):
        assert hits(s, appeared(offer(gpu)))
    assert not hits(s, appeared(offer("H200")))


def test_exact_gpu_matches_only_that_card():
    s = sub(gpu="H100 SXM")
    assert hits(s, appeared(offer("H100 SXM")))
    assert not hits(s, appeared(offer("H100 PCIe")))


def test_raw_name_offer_has_family_and_sizing_but_no_exact_id():
    raw = offer("A100 80GB", known=False)
    assert card_of("A100 80GB", None).sizing_id == "A100 80GB PCIe"
    assert hits(sub(family="A100"), appeared(raw))
    assert hits(sub(family="A100", min_vram_gb=80), appeared(raw))  # memory from the catalog
    # It may be the SXM or the PCIe board: an exact subscription must not guess.
    assert not hits(sub(gpu="A100 80GB PCIe"), appeared(raw))
    fit = sub(fit_query="q", fit_need={"A100 80GB PCIe": 1, "A100 80GB SXM": 1})
    assert hits(fit, appeared(raw))


def test_unknown_gpu_only_reaches_any_gpu_subscriptions():
    strange = offer("Radeon MI300X", known=False)
    assert hits(sub(max_rub_per_gpu_hour=500), appeared(strange))
    assert not hits(sub(family="H100"), appeared(strange))
    assert not hits(sub(min_vram_gb=24), appeared(strange))  # memory unknown: never a false alert


# --------------------------------------------------------------------------- offer fields


def test_monthly_price_counts_divided_by_720():
    monthly = offer("H100 SXM", rub=250.0, monthly=True)
    assert monthly.price.rub_per_hour == pytest.approx(250.0)
    assert hits(sub(family="H100", max_rub_per_gpu_hour=250), appeared(monthly))
    assert not hits(sub(family="H100", max_rub_per_gpu_hour=249), appeared(monthly))


def test_price_cap_is_per_gpu_hour():
    eight = offer("H100 SXM", rub=240.0, count=8)  # 1920 ₽/h for the server
    assert hits(sub(family="H100", max_rub_per_gpu_hour=250), appeared(eight))
    assert not hits(sub(family="H100", max_rub_per_gpu_hour=200), appeared(eight))


def test_count_vram_and_total_vram():
    two = offer("RTX 4090", count=2)
    assert hits(sub(gpu="RTX 4090", min_count=2), appeared(two))
    assert not hits(sub(gpu="RTX 4090", min_count=4), appeared(two))
    assert hits(sub(min_vram_gb=24), appeared(two))
    assert not hits(sub(min_vram_gb=32), appeared(two))
    assert hits(sub(min_total_vram_gb=48), appeared(two))
    assert not hits(sub(min_total_vram_gb=64), appeared(two))
    # The offer's own figure wins over the catalog's, with room for vendor rounding.
    assert hits(sub(min_vram_gb=80), appeared(offer("H100 PCIe", vram=79.6)))


def test_providers_and_location():
    o = offer("L40S", provider="immers", location="Moscow DC-2")
    assert hits(sub(gpu="L40S", providers=frozenset({"immers", "hostkey"})), appeared(o))
    assert not hits(sub(gpu="L40S", providers=frozenset({"selectel"})), appeared(o))
    assert hits(sub(gpu="L40S", location="moscow"), appeared(o))
    assert not hits(sub(gpu="L40S", location="spb"), appeared(o))


# --------------------------------------------------------------------------- kinds


def test_in_stock_fires_on_appeared_and_new_offer_with_unknown_stock():
    s = sub(gpu="T4")
    assert hits(s, appeared(offer("T4")))
    assert hits(s, Event(EventKind.NEW_OFFER, offer("T4", stock=UNK), T0))
    assert not hits(s, Event(EventKind.NEW_OFFER, offer("T4", stock=PRE), T0))


@pytest.mark.parametrize("kind", [EventKind.SOLD_OUT, EventKind.REMOVED, EventKind.PRICE_RISE])
def test_these_events_never_alert(kind: EventKind):
    s = sub(gpu="T4", kinds=ALL_KINDS, max_rub_per_gpu_hour=1000)
    event = Event(kind, offer("T4", stock=OUT), T0, old_price_hour=90, new_price_hour=100)
    assert not hits(s, event)


def test_price_drop_kind():
    o = offer("T4", rub=80)
    assert hits(sub(gpu="T4", kinds=frozenset({AlertKind.PRICE_DROP})), drop(o, 100, 80))
    assert not hits(sub(gpu="T4"), drop(o, 100, 80))  # default kinds: in stock only
    # A cap applies to drops too: a drop to a price still above it is not interesting.
    capped = sub(gpu="T4", kinds=frozenset({AlertKind.PRICE_DROP}), max_rub_per_gpu_hour=70)
    assert not hits(capped, drop(o, 100, 80))


def test_price_drop_on_an_offer_nobody_can_rent_is_silent():
    sold_out = offer("T4", rub=80, stock=OUT)
    s = sub(gpu="T4", kinds=ALL_KINDS, max_rub_per_gpu_hour=90)
    assert not hits(s, drop(sold_out, 100, 80))
    assert hits(s, drop(offer("T4", rub=80, stock=UNK), 100, 80))


def test_below_target_fires_when_the_price_crosses_the_cap():
    s = sub(gpu="T4", kinds=frozenset({AlertKind.BELOW_TARGET}), max_rub_per_gpu_hour=90)
    assert hits(s, drop(offer("T4", rub=85), 100, 85))  # crossed
    assert hits(s, drop(offer("T4", rub=90), 100, 90))  # exactly at the cap
    assert not hits(s, drop(offer("T4", rub=80), 85, 80))  # was already under it
    assert not hits(s, drop(offer("T4", rub=95), 100, 95))  # still above it
    assert hits(s, appeared(offer("T4", rub=85)))
    assert hits(s, Event(EventKind.NEW_OFFER, offer("T4", rub=85, stock=UNK), T0))
    assert not hits(s, appeared(offer("T4", rub=95)))


def test_below_target_without_a_cap_never_fires():
    s = sub(gpu="T4", kinds=frozenset({AlertKind.BELOW_TARGET}))
    assert not hits(s, appeared(offer("T4")))


# --------------------------------------------------------------------------- state


def test_paused_and_muted_never_match():
    event = appeared(offer("T4"))
    assert not hits(replace(sub(gpu="T4"), paused=True), event)
    muted = replace(sub(gpu="T4"), muted_until=T0 + timedelta(hours=1))
    assert not hits(muted, event, T0)
    assert hits(muted, event, T0 + timedelta(hours=1))


def test_fit_subscription_uses_the_fewest_cards():
    s = sub(fit_query="70b qlora", fit_need={"H100 SXM": 1, "A100 40GB PCIe": 6})
    assert hits(s, appeared(offer("H100 SXM")))
    assert not hits(s, appeared(offer("A100 40GB PCIe", count=4)))
    assert hits(s, appeared(offer("A100 40GB PCIe", count=8)))
    assert not hits(s, appeared(offer("RTX 4090", count=8)))


def test_fit_plus_family_needs_both():
    s = sub(family="A100", fit_query="q", fit_need={"H100 SXM": 1, "A100 40GB PCIe": 6})
    assert not hits(s, appeared(offer("H100 SXM")))
    assert hits(s, appeared(offer("A100 40GB PCIe", count=8)))
