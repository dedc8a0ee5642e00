"""The outbox's encodings: an event as the JSON payload an alert is rendered from later, and
the outbox's times and reasons as stored."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Any

from monitor.cards import Card
from monitor.events import Event, EventKind
from monitor.offers import Offer, Price, StockState, Vat
from storage.sql import Dialect, moment_value

PAYLOAD_VERSION = 1


def to_text(moment: datetime) -> str:
    """UTC with microseconds always present: fixed width, so text order is time order.

    SQLite's form of the outbox's times (storage.sql.moment_value at microseconds)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def outbox_moment(dialect: Dialect, moment: datetime) -> object:
    # The outbox keeps microseconds: rows made within one second keep their order.
    return moment_value(dialect, moment, "microseconds")


def event_to_json(event: Event) -> str:
    """Everything needed to render the alert later, whatever happens to the offer meanwhile."""
    offer = dataclasses.asdict(event.offer)  # StrEnum values serialise as their strings
    data = {
        "v": PAYLOAD_VERSION,
        "kind": event.kind.value,
        "at": event.at.isoformat(),
        "old_price_hour": event.old_price_hour,
        "new_price_hour": event.new_price_hour,
        "old_stock": None if event.old_stock is None else event.old_stock.value,
        "offer": offer,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def event_from_json(text: str) -> Event:
    data = json.loads(text)
    old_stock = data.get("old_stock")
    return Event(
        kind=EventKind(data["kind"]),
        offer=_offer_from_dict(data["offer"]),
        at=datetime.fromisoformat(data["at"]),
        old_price_hour=data.get("old_price_hour"),
        new_price_hour=data.get("new_price_hour"),
        old_stock=None if old_stock is None else StockState(old_stock),
    )


_OFFER_FIELDS = frozenset(field.name for field in dataclasses.fields(Offer))
_PRICE_FIELDS = frozenset(field.name for field in dataclasses.fields(Price))


def _offer_from_dict(raw: dict[str, Any]) -> Offer:
    # Only the fields Offer has today: a row written by an older or newer version still loads
    # (a field added since then takes its default).
    values = {name: value for name, value in raw.items() if name in _OFFER_FIELDS}
    values["price"] = Price(**{k: v for k, v in raw["price"].items() if k in _PRICE_FIELDS})
    values["stock"] = StockState(raw["stock"])
    values["vat"] = Vat(raw.get("vat", Vat.UNKNOWN.value))
    if "card" in raw:  # a payload from before cards were stored reads its card anew
        values["card"] = Card(**raw["card"])
    return Offer(**values)


def reason_text(text: str | None) -> str | None:
    """An error as last_error keeps it: its first 500 characters."""
    return None if text is None else text[:500]
