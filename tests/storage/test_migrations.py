"""storage.migrations: one ordered list of numbered files serving SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path

import pytest

from monitor.events import Event, EventKind
from storage import Store
from storage.database import SqliteDatabase
from storage.leader import SUBSCRIPTION_CHANGES_LOCK_KEY
from storage.migrations import (
    Migration,
    MigrationError,
    bundled_migrations,
    migrate,
    read_migrations,
)
from storage.outbox_codec import event_to_json, outbox_moment
from storage.postgres import PgDatabase
from storage.sql import scalar
from tests.factories import make_offer
from tests.postgres import require_postgres, temporary_database

AnyDatabase = SqliteDatabase | PgDatabase

# The SQLite files as every existing database applied them (user_version 1-9). Splitting the
# schema per dialect renamed them; their text must never change, or databases migrated before
# and after the change would differ.
APPLIED_SQLITE = {
    "0001_users.sqlite.sql": "6488c733efa62ed709a80e38006d0bdf8a634ee4f6894f271259dbf78aaf8aaf",
    "0002_offers.sqlite.sql": "0d30dcd171fa16aa36c10c55c71760d5c4556599969a45db6f6681dc28375828",
    "0003_history.sqlite.sql": "20e86a4d38b392d27e7e97cb6a67b37b2e0f2cf0d36c5c2a20acba24fe5f9c33",
    "0004_subscriptions.sqlite.sql": (
        "30242c916de7b2fa9cfab5c8db386367e59b510a398c9d6b308eac898ecdd417"
    ),
    "0005_outbox.sqlite.sql": "cbaceca17b94372d9a922f4eaaca102111dace86bb9df2de408d08d9908ac54c",
    "0006_subscription_revision.sqlite.sql": (
        "c09ae4fa2ce59a93b6d1ebf3b12e6ae8a2e431dea85141f9a7225d8a43f920c4"
    ),
    "0007_scrape_parts.sqlite.sql": (
        "e4f03ad70bded91d9b48d14b4f989a3090993e3c71d71f739d86647b94afba31"
    ),
    "0008_delivery.sqlite.sql": "83a42f2c9c76524f42254e951638ac3a78341051b25c69d8a8fe830acac1bfec",
    "0009_outbox_held.sqlite.sql": (
        "6552e0f67cd60c4fbe26595173ff312506644cd1c69581408a51c4ddd608be90"
    ),
}


@pytest.fixture
def database(empty_database: AnyDatabase) -> AnyDatabase:
    return empty_database


async def table_names(db: AnyDatabase) -> set[str]:
    query = (
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        if db.dialect == "postgresql"
        else "SELECT name FROM sqlite_master WHERE type = 'table'"
    )
    async with db.access() as connection:
        return {row[0] for row in await connection.fetchall(query)}


async def columns(db: AnyDatabase, table: str) -> list[str]:
    async with db.access() as connection:
        if db.dialect == "postgresql":
            rows = await connection.fetchall(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?"
                " ORDER BY ordinal_position",
                (table,),
            )
            return [row[0] for row in rows]
        return [row[1] for row in await connection.fetchall(f"PRAGMA table_info({table})")]


async def version(db: AnyDatabase) -> int:
    if isinstance(db, PgDatabase):
        async with db.access() as connection:
            found = await scalar(connection, "SELECT max(version) FROM schema_migrations")
        return 0 if found is None else int(found)
    return int(str(await db.pragma("user_version")))


# -- the bundled list ---------------------------------------------------------------------


def test_every_version_has_sql_for_both_backends():
    migrations = bundled_migrations()
    assert [migration.version for migration in migrations] == list(range(1, len(migrations) + 1))
    for migration in migrations:
        assert set(migration.scripts) == {"sqlite", "postgresql"}, migration.name


def test_applied_sqlite_migrations_are_unchanged():
    folder = resources.files("storage").joinpath("schema")
    found = {
        name: hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest()
        for name in APPLIED_SQLITE
    }
    assert found == APPLIED_SQLITE


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_a_shared_file_serves_both_and_dialect_files_pair_up(tmp_path: Path):
    folder = write(
        tmp_path / "schema",
        {
            "0001_a.sql": "CREATE TABLE a (x integer);",
            "0002_b.sqlite.sql": "-- sqlite",
            "0002_b.postgresql.sql": "-- postgresql",
            "README.md": "not a migration",
        },
    )
    first, second = read_migrations(folder)
    assert first == Migration.shared(1, "0001_a", "CREATE TABLE a (x integer);")
    assert (second.name, second.script("sqlite"), second.script("postgresql")) == (
        "0002_b",
        "-- sqlite",
        "-- postgresql",
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"0001_a.sqlite.sql": ""}, r"no 0001_a\.postgresql\.sql"),
        ({"0001_a.sql": "", "0001_a.postgresql.sql": ""}, "both shared and per dialect"),
        ({"0001_a.sql": "", "0001_b.sql": ""}, "two names"),
        ({"0001_a.sql": "", "0003_c.sql": ""}, "expected 0002"),
    ],
)
def test_incomplete_or_ambiguous_lists_are_refused(
    tmp_path: Path, files: dict[str, str], message: str
):
    with pytest.raises(MigrationError, match=message):
        read_migrations(write(tmp_path / "schema", files))


# -- applying -----------------------------------------------------------------------------


async def test_bundled_migrations_apply_and_are_idempotent(database: AnyDatabase):
    latest = await migrate(database)
    assert latest == len(bundled_migrations())
    assert await version(database) == latest
    assert {"users", "subscriptions", "outbox", "outbox_events"} <= await table_names(database)
    assert await migrate(database) == latest


async def test_both_backends_end_with_the_same_columns(database: AnyDatabase):
    await migrate(database)
    # The column lists the SQLite schema has always had (what the queries are written for).
    assert await columns(database, "outbox") == [
        "id",
        "chat_id",
        "subscription_id",
        "dedupe_key",
        "kind",
        "provider",
        "sku",
        "location",
        "payload",
        "created_at",
        "due_at",
        "status",
        "attempts",
        "last_error",
        "sent_at",
        "claimed_until",
        "event_id",
        "held",
        "cooling_until",
        "claim_token",
    ]
    assert "refresh_revisions" in await table_names(database)
    assert "subscription_revision" not in await table_names(database)


async def test_gap_in_numbering_is_rejected(database: AnyDatabase):
    with pytest.raises(MigrationError, match="expected 0002"):
        await migrate(
            database, [Migration.shared(1, "0001_a", ""), Migration.shared(3, "0003_c", "")]
        )


async def test_database_newer_than_code_is_rejected(database: AnyDatabase):
    await migrate(database, [Migration.shared(1, "0001_a", "CREATE TABLE a (x integer);")])
    with pytest.raises(MigrationError, match="newer"):
        await migrate(database, [])


@pytest.mark.sqlite_only
async def test_sqlite_pragmas_are_set(database: AnyDatabase):
    assert isinstance(database, SqliteDatabase)
    assert await database.pragma("journal_mode") == "wal"
    assert await database.pragma("foreign_keys") == 1
    assert await database.pragma("busy_timeout") == 5000


async def test_a_broken_migration_leaves_the_version_before_it(database: AnyDatabase):
    good = Migration.shared(1, "0001_a", "CREATE TABLE a (x integer);")
    broken = Migration.shared(
        2, "0002_b", "ALTER TABLE a ADD COLUMN y integer;\nCREATE TABLE b (oops syntax;"
    )
    await migrate(database, [good])
    with pytest.raises(MigrationError, match="0002_b"):
        await migrate(database, [good, broken])
    assert await version(database) == 1
    assert await columns(database, "a") == ["x"]
    assert "b" not in await table_names(database)
    # The connection is usable afterwards: the failed run left no transaction open.
    assert await migrate(database, [good]) == 1


@pytest.mark.postgresql_only
async def test_postgresql_runs_every_pending_file_in_one_transaction(database: AnyDatabase):
    first = Migration.shared(1, "0001_a", "CREATE TABLE a (x integer);")
    second = Migration.shared(2, "0002_b", "CREATE TABLE b (x integer);")
    broken = Migration.shared(3, "0003_c", "CREATE TABLE c (oops syntax;")
    with pytest.raises(MigrationError, match="0003_c"):
        await migrate(database, [first, second, broken])
    # Nothing of the run stays, not even its bookkeeping table.
    assert await table_names(database) == set()


@pytest.mark.postgresql_only
async def test_replicas_migrating_one_empty_database_at_once_make_one_schema(backend: str):
    require_postgres()
    async with temporary_database() as url:
        replicas = [await PgDatabase.open(url, max_size=2) for _ in range(5)]
        try:
            versions = await asyncio.gather(*(migrate(replica) for replica in replicas))
            assert versions == [len(bundled_migrations())] * 5
            async with replicas[0].access() as connection:
                rows = await connection.fetchall(
                    "SELECT version, name FROM schema_migrations ORDER BY version"
                )
            assert [(row[0], row[1]) for row in rows] == [
                (migration.version, migration.name) for migration in bundled_migrations()
            ]
        finally:
            for replica in replicas:
                await replica.close()


def test_the_subscription_triggers_take_the_lock_key_storage_names():
    (delivery,) = [m for m in bundled_migrations() if m.name == "0008_delivery"]
    taken = delivery.script("postgresql").count(
        f"pg_advisory_xact_lock({SUBSCRIPTION_CHANGES_LOCK_KEY})"
    )
    assert taken == 2  # the subscriptions trigger and the users' blocked trigger


async def test_rows_queued_before_outbox_events_are_claimed_in_the_fair_order(
    database: AnyDatabase,
):
    """0021 gives each pending row that carried its own payload an event of its own: the
    claim walks the pending rows event by event."""
    everything = bundled_migrations()
    await migrate(database, everything[:20])
    at = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    change = Event(EventKind.APPEARED, make_offer("h100", 320.0), at)
    moment = outbox_moment(database.dialect, at)
    async with database.transaction() as connection:
        await connection.execute(
            "INSERT INTO outbox (chat_id, subscription_id, dedupe_key, kind, provider, sku,"
            " location, payload, created_at, due_at) VALUES (1, 10, 'old', 'appeared', ?, ?, ?,"
            " ?, ?, ?)",
            (*change.offer.key, event_to_json(change), moment, moment),
        )
    await migrate(database, everything)
    store = Store(database)
    (row,) = await store.claim(
        at, limit=10, per_chat=20, lease=timedelta(minutes=5), chat_gap=timedelta(seconds=1)
    )
    assert (row.chat_id, row.event) == (1, change)
