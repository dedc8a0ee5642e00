"""Migration 0023_history_tiers: the change points stored before it get their summaries in the
transaction that adds them, on both backends, so a long range reads them at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storage.database import SqliteDatabase
from storage.history_tiers import DAY, FOUR_HOURS
from storage.migrations import bundled_migrations, migrate
from storage.postgres import PgDatabase
from storage.sql import moment_of, moment_value

TIERS_VERSION = 23
T0 = datetime(2025, 1, 1, tzinfo=UTC)


async def test_points_from_before_get_their_summaries(empty_database: SqliteDatabase | PgDatabase):
    db = empty_database
    await migrate(db, bundled_migrations()[: TIERS_VERSION - 1])
    async with db.transaction() as connection:
        # Hourly for two days, the price falling to a low at 05:00 and back up.
        await connection.executemany(
            "INSERT INTO offer_history (provider, sku, location, gpu, gpu_count, at,"
            " price_hour, stock, card_id) VALUES ('selectel', 'a', 'ru-1', 'H100', 1, ?, ?,"
            " 'in_stock', 'H100 SXM')",
            [
                (moment_value(db.dialect, T0 + timedelta(hours=hour)), 100 + abs(hour - 5))
                for hour in range(48)
            ],
        )
    await migrate(db)
    async with db.access() as connection:
        rows = await connection.fetchall(
            "SELECT grain, start, role, at, price_hour FROM offer_history_tiers"
            " WHERE card_id = 'H100 SXM' ORDER BY grain, start, role"
        )
    found = {(row[0], moment_of(row[1]), row[2]): (moment_of(row[3]), row[4]) for row in rows}
    assert len(found) == 3 * (48 // 4) + 3 * 2
    assert found[(DAY, T0, "low")] == (T0 + timedelta(hours=5), 100)
    assert found[(DAY, T0, "high")] == (T0 + timedelta(hours=23), 118)
    assert found[(DAY, T0 + timedelta(days=1), "last")] == (T0 + timedelta(hours=47), 142)
    assert found[(FOUR_HOURS, T0 + timedelta(hours=4), "low")] == (T0 + timedelta(hours=5), 100)
    assert found[(FOUR_HOURS, T0, "high")] == (T0, 105)
