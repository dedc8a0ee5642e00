"""Subscribing, for every transport: a watch's words or filter to a new watch (or why not),
and the reply that lists what already matches it. /watch, a sizing's «Следить» button and a
notify-me question subscribe here; a watch's edit and delete are one Store call each
(`Store.edit_watch`, `Store.delete_watch`)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.ports import BotStore
from bot.views.prices import freshness_text, offer_brief
from estimator.i18n import Translator
from estimator.number_text import money
from estimator.parse import QueryError
from monitor.match_rules import offer_matches
from monitor.subscriptions import (
    MAX_SUBSCRIPTIONS,
    AlertKind,
    SubscriptionLimitError,
    WatchFilter,
)
from monitor.users import DEFAULT_TIMEZONE
from monitor.watch_describe import describe
from monitor.watch_words import parse_watch

# How many of the offers that already match a new watch its first answer lists.
SHOWN_MATCHES = 3


async def subscribe(store: BotStore, i18n: Translator, chat_id: int, text: str) -> str:
    """A watch in /watch's words: the reply to it (made, or why the words are no watch)."""
    try:
        watch = parse_watch(text)
    except QueryError as error:
        return watch_error_text(i18n, error)
    return await subscribe_to(store, i18n, chat_id, watch)


def watch_error_text(i18n: Translator, error: QueryError) -> str:
    key = f"watch-error-{error.code}"
    return i18n(key if i18n.has(key) else "watch-error-bad_value", value=error.value or "")


async def subscribe_to(store: BotStore, i18n: Translator, chat_id: int, watch: WatchFilter) -> str:
    """Add `watch` to the chat's subscriptions; the reply that says so (or why not). A watch
    the chat already has (the same filter, pressed or typed twice) is named, not added."""
    for number, existing in enumerate(await store.subscriptions_of(chat_id), start=1):
        if existing.filter == watch:
            summary = describe(watch, i18n.language)
            return i18n("watch-exists", number=number, summary=summary)
    try:
        subscription = await store.add_subscription(chat_id, watch)
    except SubscriptionLimitError:
        return i18n("watch-limit", limit=MAX_SUBSCRIPTIONS)
    user = await store.get_user(chat_id)
    timezone = user.timezone if user is not None else DEFAULT_TIMEZONE
    return await created_text(store, i18n, subscription.filter, timezone)


async def created_text(
    store: BotStore, i18n: Translator, watch: WatchFilter, timezone: str = DEFAULT_TIMEZONE
) -> str:
    """The new watch, what already matches it (the best few), and what will count as new.

    What matches now is shown at once because it will not make an alert: an alert is a
    change, and an offer that is already there has not changed. An offer whose data expired
    (monitor.freshness) does not match now: its return will be news.
    """
    now = datetime.now(UTC)
    offers = sorted(
        (item for item in await store.observed_offers() if offer_matches(watch, item)),
        key=lambda item: (item.offer.rub_per_gpu_hour, item.offer.provider, item.offer.sku),
    )
    lines = [i18n("watch-created", summary=describe(watch, i18n.language)), ""]
    if offers:
        lines.append(i18n("watch-matches-now", count=len(offers)))
        for number, item in enumerate(offers[:SHOWN_MATCHES], start=1):
            freshness = freshness_text(i18n, item, now, timezone)
            lines.append(f"{number}. {offer_brief(i18n, item.offer, freshness)}")
        if len(offers) > SHOWN_MATCHES:
            lines.append(i18n("watch-matches-more", count=len(offers) - SHOWN_MATCHES))
    else:
        lines.append(i18n("watch-matches-none"))
    lines += ["", new_means(i18n, watch), "", i18n("watch-created-footer")]
    return "\n".join(lines)


def new_means(i18n: Translator, watch: WatchFilter) -> str:
    """Exactly which changes will make an alert for this watch (what "new" means)."""
    cap = watch.max_rub_per_gpu_hour
    price = money(cap, i18n.language) if cap is not None else ""
    lines = [i18n("watch-new-title")]
    if AlertKind.IN_STOCK in watch.kinds:
        lines.append(
            i18n("watch-new-in_stock-max", max=price) if cap else i18n("watch-new-in_stock")
        )
    if AlertKind.BELOW_TARGET in watch.kinds and cap is not None:
        lines.append(i18n("watch-new-below_target", max=price))
    if AlertKind.PRICE_DROP in watch.kinds:
        lines.append(i18n("watch-new-price_drop"))
    repeat = "watch-new-repeat-drop" if AlertKind.PRICE_DROP in watch.kinds else "watch-new-repeat"
    lines.append(i18n(repeat))
    return "\n".join(lines)
