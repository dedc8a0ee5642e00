"""What /prices and /stock are asked for: the /watch filter words, plus a billing kind.

The grammar and the filter it reads into; the bot words it back (bot.views.prices).

    /prices 80gb                    at least 80 GB per GPU
    /prices h100 hourly             H100 rented by the hour («почасово»)
    /prices max=300                 at most 300 ₽ per GPU-hour
    /prices provider=selectel       one provider («провайдер=селектел», or just «selectel»)
    /prices a100 80gb помесячно     words combine

The GPU, memory, price, count, provider and location words are /watch's own grammar
(monitor.watch_words), so a filter that works in /prices works in /watch and the other way
round. A page button carries `canonical()`: a short ASCII spelling that parses back to the
same query, well inside Telegram's 64 bytes of callback data.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.parse import QueryError
from monitor.match_rules import offer_meets
from monitor.offers import Billing, Offer, billing_of
from monitor.subscriptions import WatchFilter
from monitor.watch_words import canonical, parse_watch

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

    def canonical(self) -> str:
        """ASCII words that parse back to this query (the page buttons carry them)."""
        words = [canonical(self.watch)] if self.watch is not None else []
        if self.billing is not None:
            words.append(self.billing.value)
        return " ".join(word for word in words if word)


def parse_price_query(text: str) -> PriceQuery:
    """Read the words after /prices or /stock; raises estimator.parse.QueryError."""
    billing: Billing | None = None
    rest: list[str] = []
    for word in text.split():
        kind = _BILLING_WORDS.get(word.lower())
        if kind is None:
            rest.append(word)
        elif billing not in (None, kind):
            raise QueryError("bad_value", "two billing kinds", value=word, key="billing")
        else:
            billing = kind
    if not rest:
        return PriceQuery(None, billing)
    try:
        watch = parse_watch(" ".join(rest), narrow=False)
    except QueryError as error:
        if error.code == "empty":  # only filler words ("in stock"): no filter at all
            return PriceQuery(None, billing)
        raise
    return PriceQuery(watch, billing)
