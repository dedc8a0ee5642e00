"""One chat's due outbox rows -> Telegram messages: what changed, per watch, with buttons.

Layout: one section per watch, headed by the watch's short label, holding the changes it
matched; under the message, a mute and an unsubscribe button per watch that carry the same
label. Rows that quiet hours or a snooze held back make the message "the quiet hours' digest".

Everything from a provider goes through the Translator, which escapes string arguments; the
message is split only between change blocks (each block is complete HTML), so no split can
land inside a tag or an entity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.delivery.alert_buttons import AlertAction, AlertCallback
from bot.views.prices import price_text
from estimator.i18n import Html, Translator
from estimator.number_text import money
from monitor.events import Event, EventKind
from monitor.offers import HOURS_PER_MONTH, Billing, Offer, StockState, billing_of
from monitor.outbox import OutboxRow
from monitor.providers import PROVIDERS
from monitor.subscriptions import WatchFilter
from monitor.watch_describe import LABEL_LIMIT, short_label

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
class _Unit:
    """One change under one watch: the piece a message is built from, and split between.

    A change that two watches matched is shown under each: every block must say which watch
    it is for, and the buttons under the message act on the watch they name.
    """

    subscription_id: int
    label: str
    event: Event
    row_ids: tuple[int, ...]
    held: bool  # quiet hours or a snooze kept it back
    watch: WatchFilter | None = None  # None: the subscription is gone


def render_alerts(
    rows: Sequence[OutboxRow],
    i18n: Translator,
    *,
    limit: int = MESSAGE_LIMIT,
    cache: dict[str, str] | None = None,
    share: Callable[[WatchFilter], str | None] | None = None,
) -> list[AlertMessage]:
    """The chat's rows as few messages as fit: usually one, split between changes only.

    `cache` maps event keys to rendered blocks for this translator: in a fan-out thousands of
    chats get the same change, and formatting it once per chat would dominate the sender.
    """
    units = _units(rows)
    blocks = [_cached_block(i18n, unit.event, cache) for unit in units]
    messages: list[AlertMessage] = []
    start = 0
    while start < len(units):
        end = _fit(i18n, units, blocks, start, limit)
        chunk = units[start:end]
        text = _text(i18n, chunk, blocks[start:end])
        row_ids = tuple(row_id for unit in chunk for row_id in unit.row_ids)
        messages.append(AlertMessage(text, _keyboard(i18n, chunk, share), row_ids))
        start = end
    return messages


def _units(rows: Sequence[OutboxRow]) -> list[_Unit]:
    """The rows grouped by watch (in the order the watches first come up), then by change."""
    by_watch: dict[int, dict[str, list[OutboxRow]]] = {}
    for row in rows:
        by_watch.setdefault(row.subscription_id, {}).setdefault(row.event.key, []).append(row)
    units = []
    for subscription_id, changes in by_watch.items():
        first = next(iter(changes.values()))[0]
        label = watch_label(first)
        for same in changes.values():
            units.append(
                _Unit(
                    subscription_id,
                    label,
                    same[0].event,
                    tuple(row.id for row in same),
                    any(row.held for row in same),
                    first.watch,
                )
            )
    return units


def watch_label(row: OutboxRow) -> str:
    """The watch's short label; a row whose subscription is gone is named by its GPU."""
    if row.watch is not None:
        return short_label(row.watch)
    return _field(row.event.offer.gpu)[:LABEL_LIMIT]


def _fit(
    i18n: Translator, units: Sequence[_Unit], blocks: Sequence[str], start: int, limit: int
) -> int:
    """The end of the longest run of units from `start` that fits (at least one unit).

    Length is measured on the raw HTML in UTF-16 units: tags and escapes only shrink when
    Telegram parses them, so raw <= limit guarantees parsed <= limit.
    """
    end = start + 1
    while (
        end < len(units)
        and _utf16(_text(i18n, units[start : end + 1], blocks[start : end + 1])) <= limit
    ):
        end += 1
    return end


def _text(i18n: Translator, units: Sequence[_Unit], blocks: Sequence[str]) -> str:
    """Title, then one section per watch headed by its label (a lone watch's label is in the
    title). Held-back changes make it the quiet hours' digest."""
    sections: list[tuple[str, list[str]]] = []
    for index, (unit, block) in enumerate(zip(units, blocks, strict=True)):
        # _units keeps each watch's changes together, so a new watch starts a new section.
        if index == 0 or unit.subscription_id != units[index - 1].subscription_id:
            sections.append((unit.label, []))
        sections[-1][1].append(block)
    digest = any(unit.held for unit in units)
    title = _title(i18n, units, watches=len(sections))
    if len(sections) == 1 and not digest:
        return "\n\n".join([title, *sections[0][1]])
    parts = [title]
    for label, section in sections:
        parts.append(i18n("alert-watch-header", label=label) + "\n" + "\n\n".join(section))
    return "\n\n".join(parts)


def _title(i18n: Translator, units: Sequence[_Unit], *, watches: int) -> str:
    count = len(units)
    if any(unit.held for unit in units):
        return i18n("alert-title-quiet", count=count)
    if watches == 1:
        return i18n("alert-title-watch", label=units[0].label, count=count)
    return i18n("alert-title-digest", count=count)


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
        provider=_field(PROVIDERS.name(offer.provider)),
        location=_field(offer.location),
    )
    if event.kind in (EventKind.PRICE_DROP, EventKind.PRICE_RISE):
        return "\n".join([head, _price_change(i18n, event), _stock(i18n, offer)])
    # Both prices and the billing kind, as /prices shows them.
    return "\n".join([head, _stock_change(i18n, event), price_text(i18n, offer)])


def _price_change(i18n: Translator, event: Event) -> str:
    """Old → new in the unit the offer is billed by (a month for monthly-only servers)."""
    offer = event.offer
    new = event.new_price_hour if event.new_price_hour is not None else offer.price.rub_per_hour
    old = event.old_price_hour
    percent = ""
    if old:  # neither None nor zero
        percent = f" ({_signed_percent((new - old) / old * 100)})"
    cards = max(1, offer.gpu_count)
    per_gpu = Html(
        i18n("prices-per-gpu", price=money(new / cards, i18n.language)) if cards > 1 else ""
    )
    if billing_of(offer.price) is Billing.MONTHLY:
        return i18n(
            "alert-change-price-monthly",
            was=money(old * HOURS_PER_MONTH, i18n.language) if old is not None else "?",
            now=money(new * HOURS_PER_MONTH, i18n.language),
            percent=percent,
            hour=money(new, i18n.language),
            per_gpu=per_gpu,
        )
    return i18n(
        "alert-change-price",
        was=money(old, i18n.language) if old is not None else "?",
        now=money(new, i18n.language),
        percent=percent,
        month=money(offer.price.rub_per_month, i18n.language),
        per_gpu=per_gpu,
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


def _signed_percent(value: float) -> str:
    # Half away from zero: -12.5 % reads as "−13%", not Python's banker's "−12%".
    rounded = int(abs(value) + 0.5) * (1 if value >= 0 else -1)
    if rounded == 0:
        return f"{value:+.1f}%".replace("-", "−").replace(".", ",")
    return f"{rounded:+d}%".replace("-", "−")


# --- buttons -------------------------------------------------------------------------------


def _keyboard(
    i18n: Translator,
    units: Sequence[_Unit],
    share: Callable[[WatchFilter], str | None] | None = None,
) -> InlineKeyboardMarkup:
    # Built by hand: InlineKeyboardBuilder deep-copies every button on export, which was the
    # largest single cost of a 10 000-chat fan-out.
    rows: list[list[InlineKeyboardButton]] = []
    first = units[0].event.offer
    if first.url.startswith(("https://", "http://")):  # Telegram rejects other URL buttons
        # Button texts are plain text, not HTML: Html() only stops the Translator escaping.
        name = Html(PROVIDERS.name(first.provider))
        rows.append(
            [InlineKeyboardButton(text=i18n("alert-button-open", provider=name), url=first.url)]
        )
    # One row per watch, each button named by the watch it acts on and bound to its id.
    watches = dict.fromkeys((unit.subscription_id, unit.label) for unit in units)
    for subscription_id, label in list(watches)[:MAX_SUBSCRIPTION_BUTTONS]:
        named = Html(label)
        rows.append(
            [
                _callback_button(
                    i18n("alert-button-mute-watch", label=named), AlertAction.MUTE, subscription_id
                ),
                _callback_button(
                    i18n("alert-button-unsubscribe-watch", label=named),
                    AlertAction.UNSUBSCRIBE,
                    subscription_id,
                ),
            ]
        )
    # «Поделиться» the first watch: a link that offers the same watch to whoever opens it.
    shared = share(units[0].watch) if share is not None and units[0].watch is not None else None
    if shared is not None:
        rows.append([InlineKeyboardButton(text=i18n("share-button"), url=shared)])
    rows.append([_callback_button(i18n("alert-button-snooze"), AlertAction.SNOOZE, 0)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _callback_button(text: str, action: AlertAction, sub: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text=text, callback_data=AlertCallback(action=action, sub=sub).pack()
    )


# --- the length guard ----------------------------------------------------------------------


def fit_message(
    message: AlertMessage,
    rows: Sequence[OutboxRow],
    i18n: Translator,
    *,
    limit: int = MESSAGE_LIMIT,
) -> AlertMessage:
    """The message if Telegram will take its length, else its summary_message.

    render_alerts splits a digest between changes; this catches what splitting cannot (one
    change over the limit), so no alert is ever dropped for its length.
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
    """The same alerts, shortened: each change's first line while they fit, then a line
    saying how many were left out and pointing to /subs. Same rows, same buttons.

    The default limit is half Telegram's: this runs when Telegram refused a message we
    measured as fitting, so its count of the text is not ours.
    """
    included = set(message.row_ids)
    units = _units([row for row in rows if row.id in included])
    heads = [_block(i18n, unit.event).split("\n", 1)[0] for unit in units]
    title = _title(i18n, units, watches=len({unit.subscription_id for unit in units}))
    shown: list[str] = []
    for head in heads:
        footer = i18n("alert-summary-more", hidden=len(heads) - len(shown) - 1)
        if _utf16("\n".join([title, *shown, head, "", footer])) > limit:
            break
        shown.append(head)
    footer = i18n("alert-summary-more", hidden=len(heads) - len(shown))
    text = "\n".join([title, *shown, "", footer])
    return AlertMessage(text, message.markup, message.row_ids, shortened=True)
