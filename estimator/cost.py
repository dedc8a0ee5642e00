"""A live price as the estimator sees it: one rentable configuration, billed one way.

Prices come from the caller (the monitor's offers); the estimator itself knows no providers.
`estimator.planner` turns them into plans, costs and break-evens.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# A month of rent is 720 hours: Selectel and HOSTKEY price dedicated servers per 30 days, and
# the monitor converts between hourly and monthly prices at the same 720 (monitor.offers).
HOURS_PER_MONTH = 720


@dataclass(frozen=True)
class PriceQuote:
    """One rentable configuration: a server of `gpus` cards of `gpu_id` at a provider.

    Exactly one of the prices is set: `rub_per_hour` for pay-as-you-go, `rub_per_month` for a
    server rented by the month. Both are for the whole server, never per card.
    """

    gpu_id: str
    gpus: int
    provider: str
    rub_per_hour: float | None  # None: rented by the month only
    rub_per_month: float | None  # None: no monthly plan
    label: str = ""  # the provider's name for it (tariff, server config)
    url: str = ""
    # Rentable now: in stock, or priced with stock not published, and its data still counts.
    in_stock: bool = True
    stock_published: bool = True  # False: the provider lists no stock for it
    location: str = ""  # the provider's data centre or pool
    country: str = "RU"  # ISO 3166 code of the location ("" when unknown)
    # The server's RAM as the provider publishes it, GB; None when it is not published or is
    # configured and billed apart (Selectel's cloud GPUs). CPU offload is checked against it.
    ram_gb: float | None = None
    # Whether the offer names the card's form (SXM or PCIe, hence NVLink or not); when it does
    # not, the card is sized as its PCIe form (bot/quotes.py) and the interconnect is assumed.
    form_published: bool = True
    # When the quote's data is from, if its source has not confirmed it since (the monitor
    # marks it stale); None: confirmed by the latest read. Answers that show it say so.
    stale_since: datetime | None = None
