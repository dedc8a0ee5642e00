"""The cards of rows stored before offers kept their card (migration 0022_offer_cards).

Run once, by storage.migrations, in the transaction that adds the card columns: each offer
row gets the card its GPU name and memory say (monitor.cards.card_of, the rule a scrape uses),
and each history row the card its GPU name says (a history row keeps no memory; a name the
catalogue does not pin keeps the memory it states, "A100 40GB").
"""

from __future__ import annotations

from monitor.cards import card_of
from storage.offers import card_values
from storage.sql import Connection

_SET_CARD = "card_id = ?, card_family = ?, card_sizing = ?, card_vram_gb = ?"


async def fill_cards(connection: Connection) -> None:
    offers = await connection.fetchall("SELECT provider, sku, location, gpu, vram_gb FROM offers")
    await connection.executemany(
        f"UPDATE offers SET {_SET_CARD} WHERE provider = ? AND sku = ? AND location = ?",  # noqa: S608
        [
            (*card_values(card_of(row["gpu"], row["vram_gb"])), *[row[k] for k in _KEY])
            for row in offers
        ],
    )
    names = await connection.fetchall("SELECT DISTINCT gpu FROM offer_history")
    await connection.executemany(
        f"UPDATE offer_history SET {_SET_CARD} WHERE gpu = ?",  # noqa: S608 - fixed columns
        [(*card_values(card_of(row["gpu"], None)), row["gpu"]) for row in names],
    )


_KEY = ("provider", "sku", "location")
