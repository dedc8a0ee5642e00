"""The monitor's offers as the estimator's price quotes (the estimator knows no providers)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.views.prices import PROVIDER_NAMES
from estimator.cost import PriceQuote
from estimator.gpus import resolve_for_sizing
from monitor.offers import Offer, StockState

# Stock that can be rented now. "unknown" means priced but not published: immers.cloud and
# Selectel's cloud list no stock, and leaving them out would hide most hourly offers.
RENTABLE = frozenset({StockState.IN_STOCK, StockState.UNKNOWN})


def sizing_gpu(offer: Offer) -> str | None:
    """The catalog card to size an offer against. An offer whose form factor is not published
    ("A100 80GB": PCIe or SXM) is sized as the slower variant; memory is the same."""
    return offer.gpu if offer.gpu_known else resolve_for_sizing(offer.gpu_raw)


def quotes_from(offers: Iterable[Offer]) -> list[PriceQuote]:
    return [
        PriceQuote(
            gpu_id=gpu_id,
            gpus=offer.gpu_count,
            provider=PROVIDER_NAMES.get(offer.provider, offer.provider),
            rub_per_hour=offer.price.rub_per_hour if offer.price.hourly else None,
            # An hourly offer's month is just 720 of its hours, not a monthly plan: only
            # offers billed by the month count as monthly rent (hourly-vs-monthly answers).
            rub_per_month=None if offer.price.hourly else offer.price.rub_per_month,
            label=offer.sku,
            url=offer.url,
            in_stock=offer.stock in RENTABLE,
        )
        for offer in offers
        if (gpu_id := sizing_gpu(offer)) is not None
    ]
