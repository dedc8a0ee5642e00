"""What /prices and /stock are asked for: the /watch filter words, plus a billing kind.

    /prices 80gb                    at least 80 GB per GPU
    /prices h100 hourly             H100 rented by the hour («почасово»)
    /prices max=300                 at most 300 ₽ per GPU-hour
    /prices provider=selectel       one provider («провайдер=селектел», or just «selectel»)
    /prices a100 80gb помесячно     words combine

The GPU, memory, price, count, provider and location words are /watch's own grammar
(monitor.watch_parse), so a filter that works in /prices works in /watch and the other way
round. A page button carries `canonical()`: a short ASCII spelling that parses back to the
same query, well inside Telegram's 64 bytes of callback data.
"""

from __future__ import annotations

from dataclasses import dataclass

from monitor.offers import Billing, Offer, billing_of
from monitor.subscriptions import WatchFilter, offer_meets
from monitor.watch_parse import WatchError, filter_parts, parse_watch

_BILLING_WORDS: dict[str, Billing] = {
    alias: billing
    for billing, aliases in {
        Billing.HOURLY: ("hourly", "hour", "почасово", "почасовая", "почасовые", "час"),
        Billing.MONTHLY: ("monthly", "month", "помесячно", "помесячная", "месяц", "мес"),
        Billing.PREEMPTIBLE: (
            "preemptible",
            "spot",
            "interruptible",
            "прерываемые",
            "прерываемая",
            "прерываемый",
        ),
    }.items()
    for alias in aliases
}

_BILLING_TEXTS: dict[str, dict[Billing, str]] = {
    "ru": {
        Billing.HOURLY: "почасово",
        Billing.MONTHLY: "помесячно",
        Billing.PREEMPTIBLE: "прерываемые",
    },
    "en": {
        Billing.HOURLY: "hourly",
        Billing.MONTHLY: "monthly",
        Billing.PREEMPTIBLE: "preemptible",
    },
}


@dataclass(frozen=True)
class PriceQuery:
    watch: WatchFilter | None = None  # None: every GPU
    billing: Billing | None = None  # None: every billing kind

    def accepts(self, offer: Offer) -> bool:
        if self.billing is not None and billing_of(offer.price) is not self.billing:
            return False
        return self.watch is None or offer_meets(self.watch, offer)

    @property
    def label(self) -> str:
        """The GPU part, for the title ("H100", "A100"); empty when no GPU was named."""
        if self.watch is None:
            return ""
        return self.watch.gpu or self.watch.family or ""

    def describe(self, language: str) -> str:
        """The filter in the user's words: «H100, до 100 ₽/GPU·ч, помесячно»; empty when
        nothing narrows the list. Plain text; the caller escapes it."""
        parts = filter_parts(self.watch, language) if self.watch is not None else []
        if self.billing is not None:
            parts.append(_BILLING_TEXTS["ru" if language == "ru" else "en"][self.billing])
        return ", ".join(parts)

    def canonical(self) -> str:
        """ASCII words that parse back to this query (the page buttons carry them)."""
        words: list[str] = []
        watch = self.watch
        if watch is not None:
            if watch.fit_query is not None:
                words.append(watch.fit_query)
            name = watch.gpu or watch.family
            if name:
                words.append(name)
            if watch.min_count is not None:
                words.append(f"count={watch.min_count}")
            if watch.min_vram_gb is not None:
                words.append(f"vram={watch.min_vram_gb:g}")
            if watch.min_total_vram_gb is not None:
                words.append(f"total_vram={watch.min_total_vram_gb:g}")
            if watch.max_rub_per_gpu_hour is not None:
                words.append(f"max={watch.max_rub_per_gpu_hour:g}")
            if watch.providers:
                words.append("provider=" + ",".join(sorted(watch.providers)))
            if watch.location is not None:
                words.append("location=" + watch.location.replace(" ", "_"))
        if self.billing is not None:
            words.append(self.billing.value)
        return " ".join(words)


def parse_price_query(text: str) -> PriceQuery:
    """Read the words after /prices or /stock; raises monitor.watch_parse.WatchError."""
    billing: Billing | None = None
    rest: list[str] = []
    for word in text.split():
        kind = _BILLING_WORDS.get(word.lower())
        if kind is None:
            rest.append(word)
        elif billing not in (None, kind):
            raise WatchError("bad_value", "two billing kinds", value=word, key="billing")
        else:
            billing = kind
    if not rest:
        return PriceQuery(None, billing)
    try:
        watch = parse_watch(" ".join(rest), narrow=False)
    except WatchError as error:
        if error.code == "empty":  # only filler words ("in stock"): no filter at all
            return PriceQuery(None, billing)
        raise
    return PriceQuery(watch, billing)
