"""An offer as a plain record: what `python -m scrapers --json` prints and fixtures expect."""

from __future__ import annotations

from typing import Any

from monitor.offers import Offer


def offer_record(offer: Offer) -> dict[str, Any]:
    """The documented keys, prices rounded to kopecks."""
    return {
        "provider": offer.provider,
        "sku": offer.sku,
        "gpu": offer.gpu,
        "gpu_raw": offer.gpu_raw,
        "gpu_count": offer.gpu_count,
        "vram_gb": offer.vram_gb,
        "price_hour_rub": round(offer.price.rub_per_hour, 2),
        "price_month_rub": round(offer.price.rub_per_month, 2),
        "stock": offer.stock.value,
        "stock_count": offer.stock_count,
        "location": offer.location,
        "url": offer.url,
    }
