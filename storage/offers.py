"""Offer snapshots and provider health."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from monitor.cards import Card
from monitor.freshness import DEFAULT_STALE_AFTER, ObservedOffer, observe
from monitor.health import PartHealth, ProviderHealth
from monitor.offers import Offer, Price, StockState, Vat
from monitor.scrape import ScrapeError
from storage.parts import read_part_health
from storage.sql import (
    Connection,
    Database,
    Row,
    moment_of,
    moment_value,
    optional_moment,
)

# `fetched_at` is the row's observed_at: when a good scrape of its part last saw the offer
# (storage.history.write_tracked), older than the provider's last scrape while its part fails.
_COLUMNS = (
    "provider, sku, location, gpu, gpu_raw, gpu_known, gpu_count, vram_gb, price_hour,"
    " price_month, price_source, price_period, converted, vat, stock, stock_count, vcpu,"
    " ram_gb, disk_gb, url, title, note, fetched_at, card_id, card_family, card_sizing,"
    " card_vram_gb"
)
# How many values a row of _COLUMNS binds (storage.history writes them).
COLUMN_COUNT = _COLUMNS.count(",") + 1


class OfferQueries:
    _db: Database
    # How long a stale offer counts as rentable (monitor.freshness; GPURADAR_STALE_AFTER_S).
    _stale_after: timedelta = DEFAULT_STALE_AFTER

    def expire_stale_after(self, after: timedelta) -> None:
        """Set how long a stale offer still counts as rentable in `observed_offers`."""
        if after < timedelta(0):
            raise ValueError(f"stale_after must not be negative, got {after}")
        self._stale_after = after

    @property
    def stale_after(self) -> timedelta:
        return self._stale_after

    async def record_failure(
        self, provider: str, error: ScrapeError, at: datetime, duration_s: float
    ) -> None:
        """Count a failed run; the provider's offers are left exactly as they were."""
        async with self._db.transaction() as connection:
            await record_failure(connection, provider, error, at, duration_s)

    async def observed_offers(self, now: datetime | None = None) -> list[ObservedOffer]:
        """current_offers(), each with when its part last succeeded, whether the provider's
        latest scrape confirmed it, and whether it still counts as rentable at `now`
        (monitor.freshness: the rule /prices, plans, watches and the open data share)."""
        # Health first: a refresh committing in between can only make a just-recovered
        # part's offers look stale for this one read, never a failing part's look fresh.
        health = {item.provider: item for item in await self.provider_health()}
        rows = await self._listed_rows()
        moment = now or datetime.now(UTC)
        return [
            observe(
                _offer(row),
                moment_of(row["fetched_at"]),
                row["part"],
                health.get(row["provider"]),
                moment,
                self._stale_after,
            )
            for row in rows
        ]

    async def _listed_rows(self) -> list[Row]:
        # Offers missing from the latest snapshot are kept (to diff against) but not shown.
        query = f"SELECT {_COLUMNS}, part FROM offers WHERE missing_runs = 0"  # noqa: S608
        async with self._db.access() as connection:
            return await connection.fetchall(query)

    async def data_version(self) -> str:
        """A value that changes whenever a refresh commits (each bumps its provider's
        revision) or a failed scrape is recorded: what the open data's cached answers are
        checked against, for the price of one small read."""
        async with self._db.access() as connection:
            row = await connection.fetchone(
                "SELECT (SELECT coalesce(sum(revision), 0) FROM refresh_revisions) AS revisions,"
                " (SELECT max(last_attempt_at) FROM provider_health) AS attempted,"
                " (SELECT count(*) FROM provider_health) AS providers"
            )
        assert row is not None  # an aggregate always answers one row
        return f"{row['revisions']}:{row['attempted']}:{row['providers']}"

    async def provider_health(self) -> list[ProviderHealth]:
        async with self._db.access() as connection:
            rows = await connection.fetchall("SELECT * FROM provider_health ORDER BY provider")
            parts = await read_part_health(connection)
        return [_health(row, parts.get(row["provider"], ())) for row in rows]


async def read_provider_health(connection: Connection, provider: str) -> ProviderHealth | None:
    """One provider's health and parts, on a connection the caller holds (a refresh's load)."""
    row = await connection.fetchone("SELECT * FROM provider_health WHERE provider = ?", (provider,))
    if row is None:
        return None
    parts = await read_part_health(connection, provider)
    return _health(row, parts.get(provider, ()))


async def record_failure(
    connection: Connection,
    provider: str,
    error: ScrapeError,
    at: datetime,
    duration_s: float,
) -> None:
    """A failed run (the whole scrape, or every part of it), inside the caller's transaction."""
    when = moment_value(connection.dialect, at)
    await connection.execute(
        "INSERT INTO provider_health (provider, last_attempt_at, last_error_at,"
        " last_error_class, last_error, consecutive_failures, last_duration_s)"
        " VALUES (?, ?, ?, ?, ?, 1, ?)"
        " ON CONFLICT (provider) DO UPDATE SET last_attempt_at = excluded.last_attempt_at,"
        " last_error_at = excluded.last_error_at,"
        " last_error_class = excluded.last_error_class, last_error = excluded.last_error,"
        " consecutive_failures = provider_health.consecutive_failures + 1,"
        " last_duration_s = excluded.last_duration_s",
        (provider, when, when, error.kind, error.detail[:500], duration_s),
    )


async def mark_healthy(
    connection: Connection,
    provider: str,
    offers: int,
    duration_s: float,
    at: datetime,
) -> None:
    """A successful run: reset the failure count, inside the caller's transaction."""
    when = moment_value(connection.dialect, at)
    await connection.execute(
        "INSERT INTO provider_health (provider, last_success_at, last_attempt_at,"
        " consecutive_failures, last_duration_s, offer_count)"
        " VALUES (?, ?, ?, 0, ?, ?)"
        " ON CONFLICT (provider) DO UPDATE SET last_success_at = excluded.last_success_at,"
        " last_attempt_at = excluded.last_attempt_at, consecutive_failures = 0,"
        " last_duration_s = excluded.last_duration_s, offer_count = excluded.offer_count",
        (provider, when, when, duration_s, offers),
    )


def _row(offer: Offer, fetched: object) -> tuple[object, ...]:
    return (
        offer.provider,
        offer.sku,
        offer.location,
        offer.gpu,
        offer.gpu_raw,
        int(offer.gpu_known),
        offer.gpu_count,
        offer.vram_gb,
        offer.price.rub_per_hour,
        offer.price.rub_per_month,
        offer.price.source,
        offer.price.period,
        int(offer.price.converted),
        offer.vat.value,
        offer.stock.value,
        offer.stock_count,
        offer.vcpu,
        offer.ram_gb,
        offer.disk_gb,
        offer.url,
        offer.title,
        offer.note,
        fetched,
        *card_values(offer.card),
    )


def _offer(row: Row) -> Offer:
    return Offer(
        provider=row["provider"],
        sku=row["sku"],
        location=row["location"],
        gpu=row["gpu"],
        gpu_raw=row["gpu_raw"],
        gpu_known=bool(row["gpu_known"]),
        gpu_count=row["gpu_count"],
        vram_gb=row["vram_gb"],
        price=Price(
            rub_per_hour=row["price_hour"],
            rub_per_month=row["price_month"],
            source=row["price_source"],
            converted=bool(row["converted"]),
            period=row["price_period"],
        ),
        stock=StockState(row["stock"]),
        url=row["url"],
        stock_count=row["stock_count"],
        vat=Vat(row["vat"]),
        vcpu=row["vcpu"],
        ram_gb=row["ram_gb"],
        disk_gb=row["disk_gb"],
        title=row["title"],
        note=row["note"],
        card=card_from(row),
    )


def card_values(card: Card) -> tuple[object, ...]:
    """A card as the card_* columns of offers and offer_history keep it."""
    return (card.id, card.family, card.sizing_id, card.vram_gb)


def card_from(row: Row) -> Card:
    """The card a row keeps: decided when the offer was scraped (storage.cards fills in the
    rows stored before cards were kept)."""
    return Card(row["card_id"], row["card_family"], row["card_sizing"], row["card_vram_gb"])


def _health(row: Row, parts: tuple[PartHealth, ...]) -> ProviderHealth:
    return ProviderHealth(
        provider=row["provider"],
        last_attempt_at=moment_of(row["last_attempt_at"]),
        last_success_at=optional_moment(row["last_success_at"]),
        last_error_at=optional_moment(row["last_error_at"]),
        last_error_class=row["last_error_class"],
        last_error=row["last_error"],
        consecutive_failures=row["consecutive_failures"],
        last_duration_s=row["last_duration_s"],
        offer_count=row["offer_count"],
        parts=parts,
    )
