"""Migration 0022_offer_cards: rows stored before offers kept their card get the card a
scrape would give them, in the transaction that adds the columns, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime

from monitor.cards import Card, card_of
from storage.database import SqliteDatabase
from storage.migrations import bundled_migrations, migrate
from storage.postgres import PgDatabase
from storage.sql import moment_value

CARDS_VERSION = 22
T0 = datetime(2025, 1, 1, tzinfo=UTC)
_CARD = "card_id, card_family, card_sizing, card_vram_gb"


async def test_rows_from_before_get_their_cards(empty_database: SqliteDatabase | PgDatabase):
    db = empty_database
    await migrate(db, bundled_migrations()[: CARDS_VERSION - 1])
    at = moment_value(db.dialect, T0)
    async with db.transaction() as connection:
        for sku, gpu, vram in (
            ("a", "A100 40GB", 40.0),
            ("h", "H100 SXM", 80.0),
            ("x", "MI300", None),
        ):
            await connection.execute(
                "INSERT INTO offers (provider, sku, location, gpu, gpu_raw, gpu_known, gpu_count,"
                " vram_gb, price_hour, price_month, price_source, price_period, converted, vat,"
                " stock, url, fetched_at) VALUES (?, ?, 'ru-1', ?, ?, 0, 1, ?, 1, 720, 'RUB/hour',"
                " 'hour', 0, 'unknown', 'unknown', 'https://x.test', ?)",
                ("selectel", sku, gpu, gpu, vram, at),
            )
            await connection.execute(
                "INSERT INTO offer_history (provider, sku, location, gpu, gpu_count, at,"
                " price_hour, stock) VALUES ('selectel', ?, 'ru-1', ?, 1, ?, 1, 'unknown')",
                (sku, gpu, at),
            )
    await migrate(db)
    async with db.access() as connection:
        offers = await connection.fetchall(f"SELECT gpu, {_CARD} FROM offers ORDER BY sku")  # noqa: S608
        points = await connection.fetchall(f"SELECT gpu, {_CARD} FROM offer_history ORDER BY sku")  # noqa: S608
    for rows in (offers, points):
        found = {row[0]: Card(row[1], row[2], row[3], row[4]) for row in rows}
        assert found == {gpu: card_of(gpu, None) for gpu in ("A100 40GB", "H100 SXM", "MI300")}
    assert found["A100 40GB"] == Card(None, "A100", "A100 40GB PCIe", 40.0)
