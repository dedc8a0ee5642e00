"""bench/replicas.py end to end on its SQLite path: a real bot process sends every seeded
alert once through the rate-limited fake Telegram, and the row says so."""

from __future__ import annotations

import pytest

from bench.replicas import row, run

# Real processes, waited on for seconds: scheduled first (tests/conftest.py).
pytestmark = pytest.mark.processes


async def test_one_replica_on_sqlite_sends_each_seeded_alert_once():
    result = await run("sqlite", 1, 40, rtt_s=0.0)
    assert (result.delivered, result.duplicates, result.lost, result.bound) == (40, 0, 0, 0)
    assert result.killed == "-"
    assert result.problems == ()
    assert row(result).startswith("1 replica (sqlite)")
