import sqlite3
from pathlib import Path

import pytest

from storage.database import Database
from storage.migrations import Migration, MigrationError, bundled_migrations, migrate


@pytest.fixture
async def database(tmp_path: Path):
    db = await Database.open(tmp_path / "m.sqlite3")
    yield db
    await db.close()


async def table_names(db: Database) -> set[str]:
    async with db.access() as connection:
        cursor = await connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in await cursor.fetchall()}


async def test_pragmas_are_set(database: Database):
    assert await database.pragma("journal_mode") == "wal"
    assert await database.pragma("foreign_keys") == 1
    assert await database.pragma("busy_timeout") == 5000


async def test_bundled_migrations_apply_and_are_idempotent(database: Database):
    version = await migrate(database)
    assert version == len(bundled_migrations()) >= 1
    assert await database.pragma("user_version") == version
    assert "users" in await table_names(database)
    assert await migrate(database) == version


async def test_broken_migration_rolls_back_whole(database: Database):
    good = Migration(1, "0001_a.sql", "CREATE TABLE a (x INTEGER);")
    broken = Migration(
        2, "0002_b.sql", "ALTER TABLE a ADD COLUMN y INTEGER;\nCREATE TABLE b (oops syntax;"
    )
    await migrate(database, [good])
    with pytest.raises(MigrationError, match=r"0002_b\.sql"):
        await migrate(database, [good, broken])
    assert await database.pragma("user_version") == 1
    async with database.access() as connection:
        cursor = await connection.execute("PRAGMA table_info(a)")
        columns = [row[1] for row in await cursor.fetchall()]
        assert not connection.in_transaction
    assert columns == ["x"]
    assert "b" not in await table_names(database)


async def test_gap_in_numbering_is_rejected(database: Database):
    with pytest.raises(MigrationError, match="expected 0002"):
        await migrate(database, [Migration(1, "0001_a.sql", ""), Migration(3, "0003_c.sql", "")])


async def test_database_newer_than_code_is_rejected(database: Database):
    async with database.access() as connection:
        await connection.execute("PRAGMA user_version = 99")
    with pytest.raises(MigrationError, match="newer"):
        await migrate(database)


async def test_transaction_rolls_back_on_error(database: Database):
    await migrate(database)

    async def insert_then_fail() -> None:
        async with database.transaction() as connection:
            await connection.execute(
                "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
                " VALUES (1, 'ru', 'UTC', 'x', 'x')"
            )
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await insert_then_fail()
    async with database.access() as connection:
        cursor = await connection.execute("SELECT count(*) FROM users")
        row = await cursor.fetchone()
        assert row is not None
        assert row[0] == 0


async def test_schema_rejects_invalid_rows(database: Database):
    await migrate(database)

    async def insert_bad_language() -> None:
        async with database.transaction() as connection:
            await connection.execute(
                "INSERT INTO users (chat_id, language, timezone, quiet_start, created_at,"
                " last_seen_at) VALUES (1, 'de', 'UTC', NULL, 'x', 'x')"
            )

    with pytest.raises(sqlite3.IntegrityError):
        await insert_bad_language()
