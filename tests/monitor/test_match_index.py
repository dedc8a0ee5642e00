"""monitor.match_index: the index finds exactly what the rule book finds, edited or not."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

import monitor.match_index
from monitor.alerts import DEFAULT_COOLDOWN_S, Alert
from monitor.events import Event, EventKind
from monitor.match_index import MatchIndex
from monitor.match_rules import matches, naive_match
from monitor.offers import StockState
from monitor.subscriptions import AlertKind, Subscription, WatchFilter
from tests.monitor.subscription_cases import T0, appeared, grouped, offer, sub


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


def test_an_alert_carries_its_subscriptions_cooldown():
    own = replace(sub(1, gpu="T4"), cooldown_s=900)
    index = MatchIndex([own, sub(2, gpu="T4")])
    events = [appeared(offer("T4"))]
    found = {a.subscription_id: a.cooldown_s for a in index.match(events, T0)}
    assert found == {1: 900, 2: DEFAULT_COOLDOWN_S}
    assert [a.cooldown_s for a in naive_match([own], events, T0)] == [900]


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


# The pieces of a subscription, made once: a strategy made inside the composite below was
# made and validated again at every draw (Hypothesis caches none made from a list), which
# was most of this file's time; drawn from, they are the same choices.
TARGETS = st.sampled_from(["gpu", "family", "fit", "any"])
SUB_GPUS = st.sampled_from(GPU_NAMES[:7])
FAMILIES = st.sampled_from(["H100", "A100", "RTX 4090"])
FIT_NEEDS = st.dictionaries(st.sampled_from(FIT_IDS), st.integers(1, 4), min_size=1)
CAPS = st.sampled_from([None, 60.0, 80.0, 100.0, 200.0])
MIN_COUNTS = st.sampled_from([None, 1, 2, 8])
MIN_VRAMS = st.sampled_from([None, 24.0, 80.0, 80.1, 94.5])
PROVIDER_SETS = st.sets(st.sampled_from(PROVIDERS), max_size=2)
LOCATIONS = st.sampled_from([None, "msk", "spb"])
KIND_SETS = st.sets(st.sampled_from(list(AlertKind)))
MUTES = st.sampled_from([None, T0 - timedelta(hours=1), T0 + timedelta(hours=1)])


@st.composite
def subs_st(draw: st.DrawFn, sub_id: int) -> Subscription:
    target = draw(TARGETS)
    fields: dict[str, object] = {}
    if target == "gpu":
        fields["gpu"] = draw(SUB_GPUS)
    elif target == "family":
        fields["family"] = draw(FAMILIES)
    if target == "fit" or (target != "any" and draw(st.booleans())):
        fields.update(fit_query="q", fit_need=draw(FIT_NEEDS))
    fields["max_rub_per_gpu_hour"] = draw(CAPS)
    fields["min_count"] = draw(MIN_COUNTS)
    fields["min_vram_gb"] = draw(MIN_VRAMS)
    fields["providers"] = frozenset(draw(PROVIDER_SETS))
    fields["location"] = draw(LOCATIONS)
    fields["kinds"] = frozenset(draw(KIND_SETS))
    muted = draw(MUTES)
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


@settings(max_examples=60, deadline=None)
@given(many_subs(), many_subs(), st.lists(events_st, max_size=12))
def test_shelves_sorted_a_chunk_at_a_time_agree_with_a_naive_scan(
    before: list[Subscription], edits: list[Subscription], events: list[Event]
):
    """Shelves sorted in chunks and then merged (as 100k subscriptions load) are in cap
    order: a match, and edits inserted in place after it, find what a fresh scan finds."""
    with patch.object(monitor.match_index, "SORT_CHUNK", 2):
        index = MatchIndex(before)
    assert grouped(index.match(events, T0)) == grouped(naive_match(before, events, T0))
    current = {s.id: s for s in before}
    for edit in edits:
        index.add(edit)
        current[edit.id] = edit
    assert grouped(index.match(events, T0)) == grouped(naive_match(current.values(), events, T0))
