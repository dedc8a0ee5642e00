"""General questions in free text: which card is faster, where it is cheaper, what is in stock
now, hourly or monthly rent. Answered from the live offers and the guides' knowledge; anything
else gets the commands that would answer it, with the GPU or model already filled in. Sizing
questions never reach here (the /fit router takes them first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from aiogram import F, Router
from aiogram.types import Message

from bot.i18n import Translator
from bot.quotes import quotes_from
from estimator.cost import HOURS_PER_MONTH, PriceQuote
from estimator.gpus import family_members, find_in_text, get
from estimator.models import find_model_in_text, get_model
from estimator.parsing.language import reply_language
from estimator.query import FitQuery, Method
from estimator.render import rubles
from estimator.specs import GpuSpec
from estimator.timing import tokens_per_second
from monitor.offers import Offer
from monitor.users import User

MAX_TEXT = 300
SHOWN = 3
_FASTER = re.compile(r"быстр|шустр|faster|quicker|speed|скорост|\bvs\.?\b|versus|против", re.I)
_CHEAPER = re.compile(
    r"дешев|дешёв|cheap|стоит|стоимост|цен[аыу]|почём|почем|price|cost|тариф|how much", re.I
)
_STOCK = re.compile(
    r"есть ли|есть сейчас|в наличии|наличи|available|in stock|свободн|появил|доступн", re.I
)
_HOURLY = re.compile(r"почасов|помесячн|hourly|monthly|по часам|на месяц|per month|per hour", re.I)
_SIZE = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*[bб](?!\w)", re.I)
# The run a "which is faster" answer times: a LoRA of an 8B model in bf16, one card.
REFERENCE_RUN = FitQuery(model="Llama-3.1-8B", method=Method.LORA, ctx=2048, micro_batch=4)


class AskStore(Protocol):
    """What a free-text question reads: the live prices its answer quotes."""

    async def current_offers(self) -> list[Offer]: ...


def create_router() -> Router:
    router = Router(name="ask")
    router.message.register(on_text, F.text, ~F.text.startswith("/"))
    return router


async def on_text(
    message: Message, translators: dict[str, Translator], store: AskStore, user: User
) -> None:
    text = (message.text or "")[:MAX_TEXT]
    language = reply_language(text, user.language)  # «?», «550»: the user's setting
    i18n = translators.get(language) or next(iter(translators.values()))
    quotes = quotes_from(await store.current_offers())
    await message.answer(answer_question(text, i18n, quotes))


def answer_question(text: str, i18n: Translator, quotes: Sequence[PriceQuote]) -> str:
    families = _families(text)
    if len(families) >= 2 and (_FASTER.search(text) or " или " in text or " or " in text):
        return _faster(families[0], families[1], i18n, quotes)
    if _HOURLY.search(text):
        return _hourly_or_monthly(families[0] if families else None, i18n, quotes)
    if families and _STOCK.search(text):
        return _in_stock(families[0], i18n, quotes)
    if _CHEAPER.search(text) or (families and _STOCK.search(text) is None and "?" in text):
        return _cheapest(families[0] if families else None, i18n, quotes)
    return _suggest(text, families, i18n)


def _families(text: str) -> list[str]:
    """GPU families named in the text, in order ("H100", "A100", "RTX 4090")."""
    found: list[str] = []
    for label, _start, _end in find_in_text(text):
        family = get(label).family if _is_id(label) else label
        if family not in found:
            found.append(family)
    return found


def _is_id(label: str) -> bool:
    try:
        get(label)
    except KeyError:
        return False
    return True


def _members(family: str) -> list[GpuSpec]:
    """A family as people rent it: the NVL board only when asked for by name."""
    members = list(family_members(family))
    return [g for g in members if g.form != "NVL"] or members


def _speeds(family: str) -> list[float]:
    """Training tokens/s of the reference run on each member of the family."""
    model = get_model(REFERENCE_RUN.model)
    members = [g for g in _members(family) if g.tflops > 0]
    return sorted({round(tokens_per_second(REFERENCE_RUN, model, g)) for g in members})


def _faster(first: str, second: str, i18n: Translator, quotes: Sequence[PriceQuote]) -> str:
    a, b = _speeds(first), _speeds(second)
    if not a or not b:
        return _suggest(first, [first, second], i18n)
    fast, slow = (first, second) if max(a) >= max(b) else (second, first)
    fast_speeds, slow_speeds = (a, b) if fast == first else (b, a)
    low = min(fast_speeds) / max(slow_speeds)
    high = max(fast_speeds) / min(slow_speeds)
    ratio = f"{low:.1f}" if abs(high - low) < 0.05 else f"{low:.1f}–{high:.1f}"
    lines = [i18n("ask-faster", fast=fast, slow=slow, ratio=ratio)]
    costs = []
    for family, speeds in ((fast, fast_speeds), (slow, slow_speeds)):
        best = _cheapest_hourly(family, quotes)
        if best is not None and best.rub_per_hour is not None:
            per_million = best.rub_per_hour / best.gpus / (max(speeds) * 3600) * 1e6
            costs.append((family, best, per_million))
    for family, best, per_million in costs:
        lines.append(
            i18n(
                "ask-faster-price",
                gpu=family,
                rate=rubles(best.rub_per_hour or 0.0),
                provider=best.provider,
                million=rubles(per_million),
            )
        )
    if len(costs) == 2:
        cheaper = min(costs, key=lambda item: item[2])[0]
        lines.append(i18n("ask-faster-verdict", gpu=cheaper))
    lines.append(i18n("ask-faster-hint", fast=fast.lower(), slow=slow.lower()))
    return "\n".join(lines)


def _family_quotes(family: str, quotes: Sequence[PriceQuote]) -> list[PriceQuote]:
    ids = {g.id for g in _members(family)}
    return [q for q in quotes if q.gpu_id in ids]


def _per_gpu_hour(quote: PriceQuote) -> float:
    if quote.rub_per_hour is not None:
        return quote.rub_per_hour / quote.gpus
    return (quote.rub_per_month or 0.0) / HOURS_PER_MONTH / quote.gpus


def _cheapest_hourly(family: str, quotes: Sequence[PriceQuote]) -> PriceQuote | None:
    hourly = [q for q in _family_quotes(family, quotes) if q.rub_per_hour and q.in_stock]
    return min(hourly, key=_per_gpu_hour, default=None)


def _quote_line(quote: PriceQuote, i18n: Translator) -> str:
    if quote.rub_per_hour is not None:
        return i18n(
            "ask-offer-hour",
            gpu=quote.gpu_id,
            count=str(quote.gpus),
            provider=quote.provider,
            rate=rubles(quote.rub_per_hour),
        )
    return i18n(
        "ask-offer-month",
        gpu=quote.gpu_id,
        count=str(quote.gpus),
        provider=quote.provider,
        rate=rubles(quote.rub_per_month or 0.0),
    )


def _cheapest(family: str | None, i18n: Translator, quotes: Sequence[PriceQuote]) -> str:
    if family is None:
        pool = [q for q in quotes if q.in_stock and get(q.gpu_id).bf16]
        title = i18n("ask-cheapest-any")
        hint = i18n("ask-cheapest-any-hint")
    else:
        pool = [q for q in _family_quotes(family, quotes) if q.in_stock]
        title = i18n("ask-cheapest-title", gpu=family)
        hint = i18n("ask-cheapest-hint", gpu=family.lower())
    if not quotes:
        return i18n("ask-no-prices")
    if not pool:
        return i18n("ask-none-now", gpu=family or "GPU", query=(family or "h100").lower())
    best = sorted(pool, key=_per_gpu_hour)[:SHOWN]
    return "\n".join([title, *(_quote_line(q, i18n) for q in best), hint])


def _in_stock(family: str, i18n: Translator, quotes: Sequence[PriceQuote]) -> str:
    if not quotes:
        return i18n("ask-no-prices")
    offers = [q for q in _family_quotes(family, quotes) if q.in_stock]
    if not offers:
        return i18n("ask-none-now", gpu=family, query=family.lower())
    best = sorted(offers, key=_per_gpu_hour)[:SHOWN]
    lines = [i18n("ask-stock-title", gpu=family, count=len(offers))]
    lines += [_quote_line(q, i18n) for q in best]
    lines.append(i18n("ask-stock-hint", gpu=family.lower()))
    return "\n".join(lines)


def _hourly_or_monthly(family: str | None, i18n: Translator, quotes: Sequence[PriceQuote]) -> str:
    """The guide's rule of thumb, then the break-even at live prices for the card asked (or
    the popular training cards)."""
    lines = [i18n("ask-hourly-monthly")]
    families = [family] if family else ["RTX 4090", "A100", "H100"]
    for name in families:
        hourly = _cheapest_hourly(name, quotes)
        monthly = [
            q for q in _family_quotes(name, quotes) if q.rub_per_month is not None and q.in_stock
        ]
        if hourly is None or not monthly:
            continue
        month = min(monthly, key=lambda q: (q.rub_per_month or 0.0) / q.gpus)
        per_gpu_month = (month.rub_per_month or 0.0) / month.gpus
        hours = per_gpu_month / _per_gpu_hour(hourly)
        lines.append(
            i18n(
                "ask-breakeven",
                gpu=name,
                month=rubles(per_gpu_month),
                month_provider=month.provider,
                rate=rubles(_per_gpu_hour(hourly)),
                hour_provider=hourly.provider,
                hours=f"{hours:.0f}",
                days=f"{hours / 24:.0f}",
            )
        )
    lines.append(i18n("ask-hourly-hint"))
    return "\n".join(lines)


def _suggest(text: str, families: list[str], i18n: Translator) -> str:
    """Never «не понял»: the commands that answer it, with what the text named filled in."""
    gpu = families[0].lower() if families else "h100"
    found = find_model_in_text(text)
    size = _SIZE.search(text)
    model = found[0].id.lower() if found else (f"{size.group(1)}b" if size else "13b")
    return i18n("ask-suggest", gpu=gpu, model=model)
