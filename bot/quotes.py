"""The monitor's offers as the estimator's price quotes (the estimator knows no providers)."""

from __future__ import annotations

from collections.abc import Iterable

from estimator.cost import PriceQuote
from monitor.freshness import ObservedOffer
from monitor.locations import country_of
from monitor.offers import Billing, StockState, billing_of
from monitor.providers import PROVIDERS


def quotes_from(observed: Iterable[ObservedOffer]) -> list[PriceQuote]:
    """Every offer a plan may use, rentable while its data counts (monitor.freshness: a stale
    offer past GPURADAR_STALE_AFTER_S is no plan); a stale one carries its data's time."""
    quotes = []
    for item in observed:
        offer = item.offer
        # The card stored with the offer (monitor.cards): one whose form factor is not
        # published ("A100 80GB": PCIe or SXM) is sized as the slower board.
        gpu_id = offer.card.sizing_id
        # A preemptible server can be stopped mid-run: never a plan for a training job.
        if gpu_id is None or billing_of(offer.price) is Billing.PREEMPTIBLE:
            continue
        quotes.append(
            PriceQuote(
                gpu_id=gpu_id,
                gpus=offer.gpu_count,
                provider=PROVIDERS.name(offer.provider),
                # An hourly offer's month is just 720 of its hours, not a monthly plan: only
                # offers billed by the month count as monthly rent (hourly-vs-monthly answers).
                rub_per_hour=offer.price.rub_per_hour if offer.price.hourly else None,
                rub_per_month=None if offer.price.hourly else offer.price.rub_per_month,
                label=offer.sku,
                url=offer.url,
                in_stock=item.rentable,
                stock_published=offer.stock is not StockState.UNKNOWN,
                location=offer.location,
                country=country_of(offer.provider, offer.location),
                ram_gb=offer.ram_gb,
                form_published=offer.card.form_published,
                stale_since=item.observed_at if item.stale is not None else None,
            )
        )
    return quotes
