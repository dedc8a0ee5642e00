"""One chat's due outbox rows -> Telegram messages: a digest of what changed, with buttons.

Everything from a provider goes through the Translator, which escapes string arguments; the
message is split only between offer blocks (each block is complete HTML), so no split can
land inside a tag or an entity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.delivery.callbacks import AlertAction, AlertCallback
from bot.i18n import Html, Translator
from bot.views.prices import PROVIDER_NAMES
from estimator.render import rubles
from monitor.events import Event, EventKind
from monitor.offers import Offer, StockState
from storage.outbox import OutboxRow

MESSAGE_LIMIT = 4096  # Telegram's cap on a text message, after entity parsing
MAX_SUBSCRIPTION_BUTTONS = 3  # rows of "mute / unsubscribe"; more would bury the message
_FIELD_LIMIT = 80  # a provider's name for a GPU or a location: long ones are garbage

KIND_ICONS = {
    EventKind.APPEARED: "✅",
    EventKind.SOLD_OUT: "❌",
    EventKind.PRICE_DROP: "📉",
    EventKind.PRICE_RISE: "📈",
    EventKind.NEW_OFFER: "🆕",
    EventKind.REMOVED: "🚫",
}


@dataclass(frozen=True)
class AlertMessage:
    text: str
    markup: InlineKeyboardMarkup | None
    row_ids: tuple[int, ...]  # the outbox rows this message delivers
    shortened: bool = False  # a summary_message: nothing shorter to fall back on


@dataclass(frozen=True)
class _Item:
    """One change shown once, even when several of the chat's subscriptions matched it."""

    event: Event
    row_ids: tuple[int, ...]
    subscription_ids: tuple[int, ...]


def render_alerts(
    rows: Sequence[OutboxRow],
    i18n: Translator,
    *,
    limit: int = MESSAGE_LIMIT,
    cache: dict[str, str] | None = None,
) -> list[AlertMessage]:
    """The chat's rows as few messages as fit: usually one, split between offer blocks only.

    `cache` maps event keys to rendered blocks for this translator: in a fan-out thousands of
    chats get the same change, and formatting it once per chat would dominate the sender.
    """
    items = _items(rows)
    blocks = [_cached_block(i18n, item.event, cache) for item in items]
    messages: list[AlertMessage] = []
    start = 0
    while start < len(items):
        end = _fit(i18n, blocks, start, limit)
        chunk = items[start:end]
        text = _text(i18n, blocks[start:end])
        row_ids = tuple(row_id for item in chunk for row_id in item.row_ids)
        messages.append(AlertMessage(text, _keyboard(i18n, chunk), row_ids))
        start = end
    return messages


def _items(rows: Sequence[OutboxRow]) -> list[_Item]:
    grouped: dict[str, tuple[Event, list[int], list[int]]] = {}
    for row in rows:
        _, row_ids, subs = grouped.setdefault(row.event.key, (row.event, [], []))
        row_ids.append(row.id)
        if row.subscription_id not in subs:
            subs.append(row.subscription_id)
    return [_Item(event, tuple(ids), tuple(subs)) for event, ids, subs in grouped.values()]


def _fit(i18n: Translator, blocks: Sequence[str], start: int, limit: int) -> int:
    """The end of the longest run of blocks from `start` that fits (at least one block).

    Length is measured on the raw HTML in UTF-16 units: tags and escapes only shrink when
    Telegram parses them, so raw <= limit guarantees parsed <= limit.
    """
    end = start + 1
    while end < len(blocks) and _utf16(_text(i18n, blocks[start : end + 1])) <= limit:
        end += 1
    return end


def _text(i18n: Translator, blocks: Sequence[str]) -> str:
    title = (
        i18n("alert-title") if len(blocks) == 1 else i18n("alert-title-digest", count=len(blocks))
    )
    return "\n\n".join([title, *blocks])


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# --- one offer -----------------------------------------------------------------------------


def _cached_block(i18n: Translator, event: Event, cache: dict[str, str] | None) -> str:
    if cache is None:
        return _block(i18n, event)
    block = cache.get(event.key)
    if block is None:
        block = cache[event.key] = _block(i18n, event)
    return block


def _block(i18n: Translator, event: Event) -> str:
    offer = event.offer
    head = i18n(
        "alert-offer",
        icon=KIND_ICONS[event.kind],
        gpu=_field(offer.gpu),
        count=offer.gpu_count,
        provider=_field(provider_name(offer.provider)),
        location=_field(offer.location),
    )
    prices = i18n(
        "alert-prices", hour=money(offer.price.rub_per_hour), month=money(offer.price.rub_per_month)
    )
    if event.kind in (EventKind.PRICE_DROP, EventKind.PRICE_RISE):
        return "\n".join([head, _price_change(i18n, event), _stock(i18n, offer)])
    return "\n".join([head, _stock_change(i18n, event), prices])


def _price_change(i18n: Translator, event: Event) -> str:
    offer = event.offer
    new = event.new_price_hour if event.new_price_hour is not None else offer.price.rub_per_hour
    old = event.old_price_hour
    percent = ""
    if old:  # neither None nor zero
        percent = f" ({_signed_percent((new - old) / old * 100)})"
    return i18n(
        "alert-change-price",
        was=money(old) if old is not None else "?",
        now=money(new),
        percent=percent,
        month=money(offer.price.rub_per_month),
    )


def _stock_change(i18n: Translator, event: Event) -> str:
    offer = event.offer
    now = Html(_stock(i18n, offer))
    if event.kind is EventKind.NEW_OFFER:
        return i18n("alert-change-new-offer", now=now)
    if event.kind is EventKind.REMOVED:
        return i18n("alert-change-removed", was=now)
    if event.old_stock is not None:
        was = _stock_label(i18n, event.old_stock, None)
    elif event.kind is EventKind.SOLD_OUT:
        was = _stock_label(i18n, StockState.IN_STOCK, None)
    else:
        was = i18n("alert-stock-absent")
    return i18n("alert-change-stock", was=Html(was), now=now)


def _stock(i18n: Translator, offer: Offer) -> str:
    return _stock_label(i18n, offer.stock, offer.stock_count)


def _stock_label(i18n: Translator, stock: StockState, count: int | None) -> str:
    # The stock-* texts of /prices, so a state reads the same everywhere.
    return i18n(f"stock-{stock.value}", count=count or 0)


def _field(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= _FIELD_LIMIT else value[: _FIELD_LIMIT - 1] + "…"


def provider_name(provider: str) -> str:
    return PROVIDER_NAMES.get(provider, provider)


def money(value: float) -> str:
    """320 -> "320", 45.5 -> "45,50", 230400 -> "230 400": no ",00" noise on round prices."""
    if value >= 1000 or float(value).is_integer():
        return f"{round(value):,}".replace(",", "\u202f")
    return rubles(value)


def _signed_percent(value: float) -> str:
    # Half away from zero: -12.5 % reads as "−13%", not Python's banker's "−12%".
    rounded = int(abs(value) + 0.5) * (1 if value >= 0 else -1)
    if rounded == 0:
        return f"{value:+.1f}%".replace("-", "−").replace(".", ",")
    return f"{rounded:+d}%".replace("-", "−")


# --- buttons -------------------------------------------------------------------------------


def _keyboard(i18n: Translator, items: Sequence[_Item]) -> InlineKeyboardMarkup:
    # Built by hand: InlineKeyboardBuilder deep-copies every button on export, which was the
    # largest single cost of a 10 000-chat fan-out.
    rows: list[list[InlineKeyboardButton]] = []
    first = items[0].event.offer
    if first.url.startswith(("https://", "http://")):  # Telegram rejects other URL buttons
        # Button texts are plain text, not HTML: Html() only stops the Translator escaping.
        name = Html(provider_name(first.provider))
        rows.append(
            [InlineKeyboardButton(text=i18n("alert-button-open", provider=name), url=first.url)]
        )
    subscriptions = _subscriptions(items)
    named = len(subscriptions) > 1
    for subscription_id, gpu in subscriptions[:MAX_SUBSCRIPTION_BUTTONS]:
        mute, unsubscribe = (
            (
                i18n("alert-button-mute-gpu", gpu=Html(gpu)),
                i18n("alert-button-unsubscribe-gpu", gpu=Html(gpu)),
            )
            if named
            else (i18n("alert-button-mute"), i18n("alert-button-unsubscribe"))
        )
        rows.append(
            [
                _callback_button(mute, AlertAction.MUTE, subscription_id),
                _callback_button(unsubscribe, AlertAction.UNSUBSCRIBE, subscription_id),
            ]
        )
    rows.append([_callback_button(i18n("alert-button-snooze"), AlertAction.SNOOZE, 0)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _callback_button(text: str, action: AlertAction, sub: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text=text, callback_data=AlertCallback(action=action, sub=sub).pack()
    )


def _subscriptions(items: Sequence[_Item]) -> list[tuple[int, str]]:
    """Each subscription in the message once, named by the GPU of its first change."""
    seen: dict[int, str] = {}
    for item in items:
        for subscription_id in item.subscription_ids:
            seen.setdefault(subscription_id, _field(item.event.offer.gpu)[:24])
    return list(seen.items())


# --- the length guard ----------------------------------------------------------------------


def fit_message(
    message: AlertMessage,
    rows: Sequence[OutboxRow],
    i18n: Translator,
    *,
    limit: int = MESSAGE_LIMIT,
) -> AlertMessage:
    """The message if Telegram will take its length, else its summary_message.

    render_alerts splits a digest between offer blocks; this catches what splitting cannot
    (one block over the limit), so no alert is ever dropped for its length.
    """
    if _utf16(message.text) <= limit:
        return message
    return summary_message(message, rows, i18n, limit=limit)


def summary_message(
    message: AlertMessage,
    rows: Sequence[OutboxRow],
    i18n: Translator,
    *,
    limit: int = MESSAGE_LIMIT // 2,
) -> AlertMessage:
    """The same alerts, shortened: each offer's first line while they fit, then a line
    saying how many were left out and pointing to /subs. Same rows, same buttons.

    The default limit is half Telegram's: this runs when Telegram refused a message we
    measured as fitting, so its count of the text is not ours.
    """
    included = set(message.row_ids)
    items = _items([row for row in rows if row.id in included])
    heads = [_block(i18n, item.event).split("\n", 1)[0] for item in items]
    title = i18n("alert-title") if len(items) == 1 else i18n("alert-title-digest", count=len(items))
    shown: list[str] = []
    for head in heads:
        footer = i18n("alert-summary-more", hidden=len(heads) - len(shown) - 1)
        if _utf16("\n".join([title, *shown, head, "", footer])) > limit:
            break
        shown.append(head)
    footer = i18n("alert-summary-more", hidden=len(heads) - len(shown))
    text = "\n".join([title, *shown, "", footer])
    return AlertMessage(text, message.markup, message.row_ids, shortened=True)
