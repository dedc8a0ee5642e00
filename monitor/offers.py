"""An offer: one rentable GPU configuration at one provider and location, normalised to ₽."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from monitor.cards import Card, card_of

HOURS_PER_MONTH = 720

# An offer made without its card (a scraper, a test) has it read by Offer.__post_init__.
_TO_READ = Card("", "", "", None)


class StockState(StrEnum):
    IN_STOCK = "in_stock"
    OUT_OF_STOCK = "out_of_stock"
    PREORDER = "preorder"
    UNKNOWN = "unknown"  # priced, but the provider does not publish stock


# Stock that can be rented now. "unknown" means priced but not published: immers.cloud and
# Selectel's cloud list no stock, and leaving them out would hide most hourly offers; every
# answer that counts such an offer says its stock is unpublished.
RENTABLE_STOCK = frozenset({StockState.IN_STOCK, StockState.UNKNOWN})


def rentable(stock: StockState) -> bool:
    """Whether an offer (or a history point) with this stock can be rented now: the one rule
    quotes, matching, the price history and its charts share."""
    return stock in RENTABLE_STOCK


class Vat(StrEnum):
    INCLUDED = "yes"
    EXCLUDED = "no"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Price:
    """A price in ₽ for both periods, with where it came from.

    `source` says what the provider published ("RUB/month", "kopecks/hour", "EUR/month");
    `converted` is true when a currency rate was applied (the rate is in `source`).
    """

    rub_per_hour: float
    rub_per_month: float
    source: str
    converted: bool = False
    # How the provider bills: "hour" (pay per hour or second) or "month" (at least a month).
    period: str = "hour"

    @classmethod
    def per_hour(cls, rub: float, source: str, converted: bool = False) -> Price:
        return cls(rub, rub * HOURS_PER_MONTH, source, converted, "hour")

    @classmethod
    def per_month(cls, rub: float, source: str, converted: bool = False) -> Price:
        return cls(rub / HOURS_PER_MONTH, rub, source, converted, "month")

    @property
    def hourly(self) -> bool:
        return self.period == "hour"

    @property
    def conversion(self) -> tuple[str, float] | None:
        """(currency, ₽ per unit) of a converted price, from its `source` as the scrapers
        write it ("EUR/month @ 100.0 ₽/EUR"); None for a price published in roubles."""
        if not self.converted or " @ " not in self.source:
            return None
        published, rate = self.source.split(" @ ", 1)
        try:
            return published.split("/", 1)[0], float(rate.split(" ", 1)[0])
        except ValueError:
            return None


@dataclass(frozen=True)
class Offer:
    provider: str  # its provider's id (monitor/providers.py): "selectel", "hostkey", "immers"
    sku: str  # the provider's own id for it (config name, preset, flavor)
    location: str  # data centre or pool, as the provider names it
    gpu: str  # canonical GPU id, or the raw name when the catalog does not know it
    gpu_raw: str  # the provider's spelling
    gpu_known: bool
    gpu_count: int
    vram_gb: float | None  # per GPU
    price: Price
    stock: StockState
    url: str  # a page a user can open
    stock_count: int | None = None
    vat: Vat = Vat.UNKNOWN
    vcpu: int | None = None
    ram_gb: float | None = None
    disk_gb: float | None = None
    title: str = ""  # the provider's description of the configuration
    note: str = ""  # a machine code for the UI, e.g. "cpu_ram_extra"
    # The card it is (monitor.cards), read from the catalogue once, when the offer is made
    # from a provider's page, and stored with it: an offer read back from storage carries the
    # card decided when it was scraped. Every reader takes it from here.
    card: Card = _TO_READ

    def __post_init__(self) -> None:
        if self.card is _TO_READ:
            object.__setattr__(self, "card", card_of(self.gpu, self.vram_gb))

    @property
    def key(self) -> tuple[str, str, str]:
        """Offer identity: (provider, sku, location)."""
        return (self.provider, self.sku, self.location)

    @property
    def rub_per_gpu_hour(self) -> float:
        return self.price.rub_per_hour / max(1, self.gpu_count)


class Billing(StrEnum):
    """How an offer is rented, as /prices shows it."""

    HOURLY = "hourly"  # pay per hour (or second), stop any time
    MONTHLY = "monthly"  # a month at least: dedicated servers (Selectel, HOSTKEY)
    PREEMPTIBLE = "preemptible"  # hourly and cheaper, but the provider may stop it any time


def billing_of(price: Price) -> Billing:
    """The billing kind a price's period says. "preemptible" is the period of Selectel's
    interruptible cloud twins (docs/providers.md §Selectel), never mixed with regular prices."""
    if price.period == "month":
        return Billing.MONTHLY
    if price.period == "preemptible":
        return Billing.PREEMPTIBLE
    return Billing.HOURLY
