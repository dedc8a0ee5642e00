"""monitor.subscriptions: the filter's defaults and invariants, the per-chat limit and a new
subscription's cooldown."""

from __future__ import annotations

import pytest

from monitor.alerts import DEFAULT_COOLDOWN_S
from monitor.subscriptions import (
    MAX_SUBSCRIPTIONS,
    AlertKind,
    SubscriptionLimitError,
    WatchFilter,
    check_room,
    cooldown_for,
    with_max_price,
)


def test_default_kinds():
    assert WatchFilter(gpu="T4").kinds == {AlertKind.IN_STOCK}
    capped = WatchFilter(gpu="T4", max_rub_per_gpu_hour=50)
    assert capped.kinds == {AlertKind.IN_STOCK, AlertKind.BELOW_TARGET}


def test_with_max_price_keeps_kinds_in_step():
    plain = WatchFilter(gpu="T4")
    capped = with_max_price(plain, 60)
    assert capped.kinds == {AlertKind.IN_STOCK, AlertKind.BELOW_TARGET}
    assert with_max_price(capped, None).kinds == {AlertKind.IN_STOCK}
    drops = WatchFilter(gpu="T4", kinds=frozenset({AlertKind.PRICE_DROP}))
    assert with_max_price(drops, 60).kinds == {AlertKind.PRICE_DROP}  # the user's own choice


def test_filter_is_hashable_and_fit_need_read_only():
    need = {"H200": 1}
    watch = WatchFilter(fit_query="70b", fit_need=need)
    need["T4"] = 1
    assert dict(watch.fit_need or {}) == {"H200": 1}
    assert hash(watch) == hash(WatchFilter(fit_query="70b", fit_need={"H200": 1}))
    with pytest.raises(TypeError):
        watch.fit_need["T4"] = 2  # type: ignore[index]


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
