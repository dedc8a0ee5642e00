"""monitor.subscriptions, monitor.match_rules and monitor.match_index: the filters, the
matching rules, and an index that agrees with a naive scan."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.match_index import MatchIndex
from monitor.match_rules import matches, naive_match, offer_gpu
from monitor.offers import Offer, Price, StockState
from monitor.subscriptions import (
    DEFAULT_COOLDOWN_S,
    MAX_SUBSCRIPTIONS,
    AlertKind,
    Subscription,
    SubscriptionLimitError,
    WatchFilter,
    check_room,
    cooldown_for,
    with_max_price,
)
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
IN, OUT, PRE, UNK = (
    StockState.IN_STOCK,
    StockState.OUT_OF_STOCK,
    StockState.PREORDER,
    StockState.UNKNOWN,
)
ALL_KINDS = frozenset(AlertKind)


def offer(
    gpu: str = "RTX 4090",
    *,
    rub: float = 100.0,
    count: int = 1,
    vram: float | None = None,
    stock: StockState = IN,
    provider: str = "selectel",
    location: str = "MSK-1",
    monthly: bool = False,
    known: bool = True,
    sku: str = "s1",
) -> Offer:
    """An offer priced `rub` per GPU-hour in total for all its cards."""
    base = make_offer(
        sku, rub * count, stock, provider=provider, gpu=gpu, gpu_count=count, location=location
    )
    base = replace(base, gpu_known=known, vram_gb=vram)
    if monthly:
        base = replace(base, price=Price.per_month(rub * count * 720, "RUB/month"))
    return base


def appeared(o: Offer) -> Event:
    return Event(EventKind.APPEARED, o, T0, old_stock=OUT)


def drop(o: Offer, old: float, new: float) -> Event:
    """Prices per GPU-hour; the event carries the offer's whole price, as monitor.diff does."""
    cards = o.gpu_count
    return Event(
        EventKind.PRICE_DROP, o, T0, old_price_hour=old * cards, new_price_hour=new * cards
    )


def sub(sub_id: int = 1, chat_id: int = 10, **fields: object) -> Subscription:
    return Subscription(sub_id, chat_id, WatchFilter(**fields))  # type: ignore[arg-type]


def grouped(alerts: list[Alert]) -> list[tuple[Event, list[tuple[int, int]]]]:
    """Alerts per event, in event order; within an event the index has no order of its own."""
    return [
        (event, sorted((a.subscription_id, a.chat_id) for a in group))
        for event, group in itertools.groupby(alerts, key=lambda a: a.event)
    ]


def hits(s: Subscription, event: Event, now: datetime = T0) -> bool:
    return matches(s, event, now)


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
    assert offer_gpu("A100 80GB", None).sizing_id == "A100 80GB PCIe"
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


def test_default_kinds():
    assert WatchFilter(gpu="T4").kinds == {AlertKind.IN_STOCK}
    capped = WatchFilter(gpu="T4", max_rub_per_gpu_hour=50)
    assert capped.kinds == {AlertKind.IN_STOCK, AlertKind.BELOW_TARGET}


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


def test_with_max_price_keeps_kinds_in_step():
    plain = WatchFilter(gpu="T4")
    capped = with_max_price(plain, 60)
    assert capped.kinds == {AlertKind.IN_STOCK, AlertKind.BELOW_TARGET}
    assert with_max_price(capped, None).kinds == {AlertKind.IN_STOCK}
    drops = WatchFilter(gpu="T4", kinds=frozenset({AlertKind.PRICE_DROP}))
    assert with_max_price(drops, 60).kinds == {AlertKind.PRICE_DROP}  # the user's own choice


# --------------------------------------------------------------------------- state


def test_paused_and_muted_never_match():
    event = appeared(offer("T4"))
    assert not hits(replace(sub(gpu="T4"), paused=True), event)
    muted = replace(sub(gpu="T4"), muted_until=T0 + timedelta(hours=1))
    assert not hits(muted, event, T0)
    assert hits(muted, event, T0 + timedelta(hours=1))


def test_filter_is_hashable_and_fit_need_read_only():
    need = {"H200": 1}
    watch = WatchFilter(fit_query="70b", fit_need=need)
    need["T4"] = 1
    assert dict(watch.fit_need or {}) == {"H200": 1}
    assert hash(watch) == hash(WatchFilter(fit_query="70b", fit_need={"H200": 1}))
    with pytest.raises(TypeError):
        watch.fit_need["T4"] = 2  # type: ignore[index]


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


# --------------------------------------------------------------------------- index


def test_index_add_remove_and_replace():
    index = MatchIndex([sub(1, gpu="T4"), sub(2, family="H100")])
    events = [appeared(offer("T4")), appeared(offer("H100 NVL"))]
    assert [(a.subscription_id, a.event) for a in index.match(events, T0)] == [
        (1, events[0]),
        (2, events[1]),
    ]
    index.remove(1)
    index.add(sub(2, family="H200"))  # edited: moves bucket
    assert index.match(events, T0) == []
    assert len(index) == 1
    index.remove(99)  # unknown ids are fine


def test_index_files_paused_nowhere_until_resumed():
    paused = replace(sub(1, gpu="T4"), paused=True)
    index = MatchIndex([paused])
    event = appeared(offer("T4"))
    assert index.match([event], T0) == []
    assert index.get(1) == paused
    index.add(replace(paused, paused=False))
    assert len(index.match([event], T0)) == 1


def test_index_memory_floors_come_and_go():
    index = MatchIndex([sub(1, min_vram_gb=80), sub(2, min_vram_gb=48), sub(3, min_vram_gb=80)])
    h100, l40s = appeared(offer("H100 SXM")), appeared(offer("L40S"))
    assert sorted(a.subscription_id for a in index.match([h100], T0)) == [1, 2, 3]
    assert [a.subscription_id for a in index.match([l40s], T0)] == [2]
    index.remove(1)
    index.remove(2)
    assert [a.subscription_id for a in index.match([h100], T0)] == [3]
    index.remove(3)
    assert index.match([h100], T0) == []


def test_index_respects_mutes():
    muted = replace(sub(1, gpu="T4"), muted_until=T0 + timedelta(hours=1))
    index = MatchIndex([muted])
    event = appeared(offer("T4"))
    assert index.match([event], T0) == []
    assert len(index.match([event], T0 + timedelta(hours=2))) == 1


def test_index_meets_each_subscription_once_per_event():
    s = sub(1, providers=frozenset({"selectel", "immers"}), fit_query="q", fit_need={"T4": 1})
    alerts = MatchIndex([s]).match([appeared(offer("T4", provider="immers"))], T0)
    assert len(alerts) == 1


def test_index_price_cut_keeps_the_cap_itself():
    subs = [
        sub(i, gpu="T4", max_rub_per_gpu_hour=float(cap)) for i, cap in enumerate([50, 80, 120])
    ]
    alerts = MatchIndex(subs).match([appeared(offer("T4", rub=80))], T0)
    assert [a.subscription_id for a in alerts] == [1, 2]


GPU_NAMES = [
    "H100 PCIe",
    "H100 SXM",
    "H100 NVL",
    "A100 80GB PCIe",
    "A100 40GB SXM",
    "RTX 4090",
    "T4",
    "A100 80GB",  # raw: family A100, sized as the PCIe board
    "H100",  # raw: family only
    "Radeon MI300X",  # unknown to the catalog
]
FIT_IDS = ["H100 SXM", "A100 80GB PCIe", "A100 40GB SXM", "RTX 4090", "T4"]
PROVIDERS = ["selectel", "hostkey", "immers"]

events_st = st.builds(
    lambda kind, gpu, count, rub, old, stock, provider, location, vram: Event(
        kind,
        offer(
            gpu,
            rub=rub,
            count=count,
            vram=vram,
            stock=stock,
            provider=provider,
            location=location,
            known=gpu not in ("A100 80GB", "H100", "Radeon MI300X"),
        ),
        T0,
        old_price_hour=old * count,
        new_price_hour=rub * count,
    ),
    st.sampled_from(list(EventKind)),
    st.sampled_from(GPU_NAMES),
    st.integers(1, 8),
    st.sampled_from([50.0, 80.0, 100.0, 150.0, 300.0]),
    st.sampled_from([60.0, 100.0, 200.0, 400.0]),
    st.sampled_from(list(StockState)),
    st.sampled_from(PROVIDERS),
    st.sampled_from(["MSK-1", "SPB-2"]),
    st.sampled_from([None, None, 24.0, 79.6, 94.0]),  # the offer's own memory figure
)


@st.composite
def subs_st(draw: st.DrawFn, sub_id: int) -> Subscription:
    target = draw(st.sampled_from(["gpu", "family", "fit", "any"]))
    fields: dict[str, object] = {}
    if target == "gpu":
        fields["gpu"] = draw(st.sampled_from(GPU_NAMES[:7]))
    elif target == "family":
        fields["family"] = draw(st.sampled_from(["H100", "A100", "RTX 4090"]))
    if target == "fit" or (target != "any" and draw(st.booleans())):
        need = draw(st.dictionaries(st.sampled_from(FIT_IDS), st.integers(1, 4), min_size=1))
        fields.update(fit_query="q", fit_need=need)
    fields["max_rub_per_gpu_hour"] = draw(st.sampled_from([None, 60.0, 80.0, 100.0, 200.0]))
    fields["min_count"] = draw(st.sampled_from([None, 1, 2, 8]))
    fields["min_vram_gb"] = draw(st.sampled_from([None, 24.0, 80.0, 80.1, 94.5]))
    fields["providers"] = frozenset(draw(st.sets(st.sampled_from(PROVIDERS), max_size=2)))
    fields["location"] = draw(st.sampled_from([None, "msk", "spb"]))
    fields["kinds"] = frozenset(draw(st.sets(st.sampled_from(list(AlertKind)))))
    muted = draw(st.sampled_from([None, T0 - timedelta(hours=1), T0 + timedelta(hours=1)]))
    return Subscription(
        sub_id,
        chat_id=sub_id % 7,
        filter=WatchFilter(**fields),  # type: ignore[arg-type]
        paused=draw(st.booleans()) and draw(st.booleans()),
        muted_until=muted,
    )


@st.composite
def many_subs(draw: st.DrawFn) -> list[Subscription]:
    count = draw(st.integers(0, 40))
    return [draw(subs_st(sub_id)) for sub_id in range(1, count + 1)]


@settings(max_examples=60, deadline=None)
@given(many_subs(), st.lists(events_st, max_size=12), st.integers(0, 40))
def test_index_returns_exactly_what_a_naive_scan_returns(
    subs: list[Subscription], events: list[Event], removed: int
):
    index = MatchIndex(subs)
    assert grouped(index.match(events, T0)) == grouped(naive_match(subs, events, T0))
    ordered = sorted(subs, key=lambda s: s.id)
    by_rules = [Alert(s.chat_id, s.id, e) for e in events for s in ordered if matches(s, e, T0)]
    assert naive_match(subs, events, T0) == by_rules
    index.remove(removed)
    rest = [s for s in subs if s.id != removed]
    assert grouped(index.match(events, T0)) == grouped(naive_match(rest, events, T0))


@settings(max_examples=60, deadline=None)
@given(many_subs(), many_subs(), st.lists(events_st, max_size=12), st.sets(st.integers(0, 40)))
def test_a_live_index_edited_in_place_agrees_with_a_naive_scan(
    before: list[Subscription],
    edits: list[Subscription],
    events: list[Event],
    removed: set[int],
):
    """Once matched (its shelves sorted), the index takes each change in place; the result
    must be what a fresh scan of the new set finds."""
    index = MatchIndex(before)
    index.match(events, T0)
    current = {s.id: s for s in before}
    for edit in edits:  # the same ids: replaced in place, or new
        index.add(edit)
        current[edit.id] = edit
    for sub_id in removed:
        index.remove(sub_id)
        current.pop(sub_id, None)
    assert grouped(index.match(events, T0)) == grouped(naive_match(current.values(), events, T0))


def test_a_chat_has_room_until_it_keeps_max_subscriptions():
    check_room(1, MAX_SUBSCRIPTIONS - 1)
    with pytest.raises(SubscriptionLimitError):
        check_room(1, MAX_SUBSCRIPTIONS)


def test_the_cooldown_asked_for_beats_the_filters_which_beats_the_default():
    named = WatchFilter(gpu="H100 SXM", cooldown_s=600)
    assert cooldown_for(named, 60) == 60
    assert cooldown_for(named) == 600
    assert cooldown_for(WatchFilter(gpu="H100 SXM")) == DEFAULT_COOLDOWN_S
    assert cooldown_for(named, 0) == 0  # zero is a cooldown, not "none asked"
