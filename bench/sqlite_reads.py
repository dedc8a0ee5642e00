"""Quick reads and the write probe while one long SQLite read runs: with reads on their own
read-only connections (as served) against the baseline of every read and write on the one
writing connection behind its lock (`readers=0`, as before).

The long read is a stand-in for an uncached history read: one SELECT that counts
`--rows` generated rows on the reading side. Meanwhile a user lookup (`/help`'s read) and
`probe_write` (what /readyz checks) run back to back; prints the worst wait of each, and how
long the long read took. Target: neither waits for the long read.

    .venv/bin/python -m bench.sqlite_reads [--rows 3000000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from storage.database import READ_CONNECTIONS, SqliteDatabase
from storage.sql import scalar

LONG_READ = (
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)"
    " SELECT count(*) FROM n"
)


async def worst_wait(db: SqliteDatabase, long_read: asyncio.Task[object]) -> tuple[float, float]:
    """The slowest quick read and the slowest write probe while `long_read` runs."""
    read_s = probe_s = 0.0
    while not long_read.done():
        started = time.perf_counter()
        async with db.access() as connection:
            await scalar(connection, "SELECT count(*) FROM users WHERE chat_id = 1")
        read_s = max(read_s, time.perf_counter() - started)
        started = time.perf_counter()
        await db.probe_write()
        probe_s = max(probe_s, time.perf_counter() - started)
    return read_s, probe_s


async def case(folder: Path, readers: int, rows: int) -> None:
    db = await SqliteDatabase.open(folder / f"reads{readers}.sqlite3", readers=readers)
    try:
        await db.run_script("CREATE TABLE users (chat_id INTEGER PRIMARY KEY);")

        async def long() -> object:
            async with db.access() as connection:
                return await scalar(connection, LONG_READ, (rows,))

        started = time.perf_counter()
        long_read = asyncio.create_task(long())
        await asyncio.sleep(0)  # let it take its connection first
        read_s, probe_s = await worst_wait(db, long_read)
        await long_read
        took = time.perf_counter() - started
        print(
            f"readers={readers}: long read {took * 1000:.0f} ms; worst quick read"
            f" {read_s * 1000:.1f} ms, worst write probe {probe_s * 1000:.1f} ms"
        )
    finally:
        await db.close()


async def main(rows: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        await case(Path(folder), 0, rows)  # the baseline: one connection, one lock
        await case(Path(folder), READ_CONNECTIONS, rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    asyncio.run(main(parser.parse_args().rows))
