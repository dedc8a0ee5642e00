"""monitor.health.is_fresh: when a provider's data counts as stale (what /healthz reports)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from monitor.health import STALE_AFTER_INTERVALS, is_fresh

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
INTERVAL_S = 600.0
LIMIT = timedelta(seconds=STALE_AFTER_INTERVALS * INTERVAL_S)
LONG_AGO = NOW - timedelta(days=1)


def test_data_is_fresh_up_to_three_intervals_old_and_stale_after() -> None:
    assert STALE_AFTER_INTERVALS == 3.0
    assert is_fresh(NOW - LIMIT, INTERVAL_S, NOW, started_at=LONG_AGO)
    assert not is_fresh(NOW - LIMIT - timedelta(seconds=1), INTERVAL_S, NOW, started_at=LONG_AGO)


def test_a_provider_never_scraped_well_has_the_same_grace_from_the_start() -> None:
    assert is_fresh(None, INTERVAL_S, NOW, started_at=NOW - LIMIT)
    assert not is_fresh(None, INTERVAL_S, NOW, started_at=NOW - LIMIT - timedelta(seconds=1))


def test_a_success_counts_from_itself_not_from_the_start() -> None:
    assert not is_fresh(NOW - 2 * LIMIT, INTERVAL_S, NOW, started_at=NOW)
