"""The market, for every transport: a page of the offers a /prices or /stock filter accepts
(the chat's pages and /start's menu), and the answers to general questions in free text —
which card is faster, where it is cheaper, what is in stock now, hourly or monthly rent —
from the live offers and the guides' knowledge; anything else gets the commands that would
answer it, with the GPU or model already filled in."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Literal

from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)

from bot.conversation import Conversations
from bot.miniapp.links import with_button
from bot.ports import BotStore
from bot.usecases.sizing import live_quotes
from bot.views.prices import clock_time, filter_text, prices_keyboard, prices_text
from estimator.answer import FitAnswer, build_answer
from estimator.cost import HOURS_PER_MONTH, PriceQuote
from estimator.fit_words import command_for
from estimator.gpus import family_members, find_in_text, get, load_gpus
from estimator.i18n import Html, Translator
from estimator.largest import largest_models, read_largest
from estimator.models import find_model_in_text, get_model
from estimator.number_text import money, plain
from estimator.parse import ParsedQuery
from estimator.parsing.market import Constraints as StatedConstraints
from estimator.parsing.market import asks_month_price, read_constraints
from estimator.parsing.text import read_method
from estimator.plan_text import break_even_line, gib, plan_line
from estimator.planner import (
    Constraints,
    break_evens,
    cheapest_offers,
    distinct,
    monthly_equivalent,
    rub_per_gpu_hour,
    rub_per_gpu_month,
    within,
)
from estimator.query import FitQuery, Method, Stack
from estimator.sizing_text import constraints_text
from estimator.specs import GpuSpec
from estimator.stacks import profile
from estimator.timing import tokens_per_second
from monitor.cards import CardFilter, card_filter
from monitor.price_query import PriceQuery
from monitor.users import DEFAULT_TIMEZONE

# A GPU name or family plus a few filters; longer arguments are refused, not silently cut.
MAX_FILTER = 80


async def render_page(
    store: BotStore,
    i18n: Translator,
    page: int,
    query: PriceQuery,
    in_stock_only: bool = False,
    table: InlineKeyboardButton | None = None,
    timezone: str = DEFAULT_TIMEZONE,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A page of offers; `table` (the Mini App's «📊 Таблица») goes below the page buttons.
    Stale offers are marked with their data's time on the reader's clock (`timezone`)."""
    offers = [item for item in await store.observed_offers() if query.accepts(item.offer)]
    if in_stock_only:  # in stock while its data counts (monitor.freshness)
        offers = [item for item in offers if item.in_stock]
    health = await store.provider_health()
    canonical = query.canonical()
    if in_stock_only:
        title = i18n("stock-title") + (f" · {query.label}" if query.label else "")
    elif query.label:
        title = i18n("prices-title-gpu", gpu=query.label)
    else:
        title = i18n("prices-title")
    # The buttons carry the canonical words; the user reads the filter in their language.
    text = prices_text(
        i18n,
        offers,
        health,
        page,
        datetime.now(UTC),
        title=title,
        filters=filter_text(query, i18n.language),
        timezone=timezone,
    )
    return text, with_button(prices_keyboard(len(offers), page, canonical, in_stock_only), table)


SHOWN = 3


RUN_SHOWN = 5  # plans listed for a question about the last sized run


_FASTER = re.compile(r"быстр|шустр|faster|quicker|speed|скорост|\bvs\.?\b|versus|против", re.I)


_CHEAPER = re.compile(
    r"дешев|дешёв|cheap|стоит|стоимост|цен[аыу]|почём|почем|price|cost|тариф|how much", re.I
)


_STOCK = re.compile(
    r"есть ли|есть сейчас|в наличии|наличи|available|in stock|свободн|появил|доступн", re.I
)


_HOURLY = re.compile(r"почасов|помесячн|hourly|monthly|по часам|на месяц|per month|per hour", re.I)


# Hourly billing named: «почасовая или помесячная?» compares the two, it asks no month price.
_BY_HOUR = re.compile(r"почасов|hourly|по часам|per hour", re.I)
_BY_MONTH = re.compile(r"помесячн|monthly|на месяц|по месяцам|per month|by the month", re.I)


_SIZE = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*[bб](?!\w)", re.I)


# The run a "which is faster" answer times: a LoRA of an 8B model in bf16, one card.
REFERENCE_RUN = FitQuery(model="Llama-3.1-8B", method=Method.LORA, ctx=2048, micro_batch=4)


async def market_reply(
    store: BotStore,
    conversations: Conversations,
    chat_id: int,
    text: str,
    i18n: Translator,
    timezone: str = DEFAULT_TIMEZONE,
) -> str:
    """The answer to a market question at live prices. One that names nothing («а дешевле
    есть?») after a sizing is about that run: only servers that hold it."""
    largest = largest_answer(text, i18n)
    if largest is not None:
        return largest
    quotes = await live_quotes(store)
    wish = read_constraints(text)
    kind = run_question(text, wish)
    remembered = await conversations.last(chat_id) if kind is not None else None
    if kind is not None and remembered is not None:
        answer = build_answer(remembered[0], load_gpus(), quotes)
        return answer_for_run(kind, remembered[0], answer, i18n)
    return answer_question(text, i18n, quotes, wish, timezone=timezone)


def largest_answer(text: str, i18n: Translator) -> str | None:
    """«какую модель можно дообучить на 4090?»: the largest size the card named holds, for the
    method named or for each, in the run the question says (card count, ctx, batch, stack);
    None when the text asks no such thing or names no card."""
    question = read_largest(text, load_gpus())
    if question is None:
        return None
    card, run = question.card, question.run
    cards = (
        i18n("largest-one-card")
        if run.gpus == 1
        else i18n("largest-cards", count=str(run.gpus), shard=run.shard.value)
    )
    lines = [
        i18n(
            "largest-title",
            gpu=card.id
            if question.parsed.card_gb is None
            else i18n("largest-card-of-size", gb=plain(question.parsed.card_gb)),
            usable=gib(card.usable_gib),
            cards=cards,
            ctx=str(run.ctx),
            stack=profile(run.stack).label,
            bs=str(run.micro_batch),
        )
    ]
    found_all = [largest_models(card, each, run) for each in question.methods]
    for each, found in zip(question.methods, found_all, strict=True):
        tight = (
            i18n("largest-tight", size=f"{plain(found.tight_size)}B")
            if found.tight_size is not None
            else ""
        )
        if found.fits is None:
            if found.tight_size is not None:
                size = f"{plain(found.tight_size)}B"
                lines.append(i18n("largest-only-tight", method=each.value, size=size))
            else:
                lines.append(i18n("largest-none", method=each.value))
            continue
        lines.append(
            i18n(
                "largest-fits",
                method=each.value,
                size=f"{plain(found.fits_size or 0)}B",
                model=found.fits.id,
                high=gib(found.fits_high_gib or 0.0),
                tight=tight,
            )
        )
    example = question.command(found_all[0].fits_size or 1, question.methods[0])
    # Unsloth named already: only a shorter context is left to say.
    hint = "largest-hint-own" if run.stack is Stack.UNSLOTH else "largest-hint"
    lines.append(i18n(hint, example=example))
    return "\n".join(lines)


RunQuestion = Literal["cheaper", "month", "hour"]


def run_question(text: str, wish: StatedConstraints) -> RunQuestion | None:
    """A market question that names no card, no model and no wish about the offers («а
    дешевле есть?», «а помесячно?»): after a sizing it is about that run."""
    if wish != NO_WISH or _families(text) or find_model_in_text(text) is not None:
        return None
    if asks_month_price(text) and not _BY_HOUR.search(text):
        return "month"
    if _BY_HOUR.search(text) and not _BY_MONTH.search(text):
        return "hour"  # «а если только почасово?»: the hourly plans alone
    if _HOURLY.search(text):
        return "month"  # «почасовая или помесячная?»: the run's monthly plans and break-even
    return "cheaper" if _CHEAPER.search(text) else None


def answer_for_run(
    kind: RunQuestion, parsed: ParsedQuery, answer: FitAnswer, i18n: Translator
) -> str:
    """The plans that hold the last sized run, cheapest first (the planner never makes a plan
    on a card the run does not fit): for «а дешевле есть?» the cheapest of every billing,
    for «а помесячно?» the monthly ones and the break-even of the best plan's card."""
    language = i18n.language
    run = Html(f"<code>{html.escape(command_for(parsed), quote=False)}</code>")
    peak = gib(answer.memory.peak)
    plans = distinct(answer.plans)
    if kind != "cheaper":
        plans = [plan for plan in plans if plan.monthly == (kind == "month")]
    if not plans:
        key = "run-none" if kind == "cheaper" else f"run-{kind}-none"
        return i18n(key, run=run, peak=peak)
    lines = [i18n(f"run-{kind}-title", run=run, peak=peak)]
    lines += [plan_line(n, plan, language) for n, plan in enumerate(plans[:RUN_SHOWN], start=1)]
    if kind == "month" and answer.break_even is not None:
        lines.append(break_even_line(answer.break_even, language))
    lines.append(i18n("run-cheaper-note"))
    return "\n".join(lines)


# A market question says nothing about the offers until read_constraints finds it
# («с 48 гигами», «только РФ», «60 ч в месяц»).
NO_WISH = StatedConstraints()


def answer_question(
    text: str,
    i18n: Translator,
    quotes: Sequence[PriceQuote],
    wish: StatedConstraints = NO_WISH,
    *,
    timezone: str = DEFAULT_TIMEZONE,
) -> str:
    """`timezone`: the reader's, for the time a stale offer's data is from."""
    families = _families(text)
    if _OTHER_CURRENCY.search(text) and not families:
        return i18n("market-rub-only")  # «сколько это в долларах?»: said, not the command help
    first = families[0] if families else None
    stated = _stated_vram(text)
    if stated is not None and wish.min_vram_gib is None:
        # «где дешевле a100 80?»: the memory the card's name states narrows its family
        wish = replace(wish, min_vram_gib=stated)
    if len(families) >= 2 and (_FASTER.search(text) or " или " in text or " or " in text):
        return _faster(families[0], families[1], i18n, quotes)
    # «какие карты есть в России до 200 ₽ в час?», "under 300 rub per hour": what the offers
    # may cost or where they are is a question about the cheapest that qualify.
    capped = (
        wish.max_rub_per_hour is not None
        or wish.max_rub_per_gpu_hour is not None
        or wish.max_rub_per_month is not None
        or wish.russia_only
    )
    month = asks_month_price(text) and not _BY_HOUR.search(text)
    if month and first and _STOCK.search(text):
        return _in_stock(first, i18n, quotes, wish, month=True, timezone=timezone)
    if month and (first or _CHEAPER.search(text) or wish.min_vram_gib is not None or capped):
        return _cheapest(first, i18n, quotes, wish, month=True, timezone=timezone)
    if _HOURLY.search(text) and not capped:
        return _hourly_or_monthly(first, i18n, quotes, wish)
    if first and _STOCK.search(text):
        return _in_stock(first, i18n, quotes, wish, timezone=timezone)
    if (
        _CHEAPER.search(text)
        or wish.min_vram_gib is not None
        or capped
        or (families and _STOCK.search(text) is None and "?" in text)
    ):
        return _cheapest(first, i18n, quotes, wish, timezone=timezone)
    return _suggest(text, families, i18n)


# A price asked in another currency than the one the providers bill in.
_OTHER_CURRENCY = re.compile(
    r"доллар|бакс|евро|\busd\b|\beur\b|dollars?\b|euros?\b|\$|€", re.IGNORECASE
)


def _families(text: str) -> list[str]:
    """GPU families named in the text, in order ("H100", "A100", "RTX 4090")."""
    found: list[str] = []
    for label, _start, _end in find_in_text(text):
        family = get(label).family if _is_id(label) else label
        if family not in found:
            found.append(family)
    return found


def _stated_vram(text: str) -> float | None:
    """The memory the first card named states with its family («a100 80», "h100 94gb")."""
    for _label, start, end in find_in_text(text):
        named = card_filter(text[start:end])
        return None if named is None else named.min_vram_gb
    return None


def _is_id(label: str) -> bool:
    try:
        get(label)
    except KeyError:
        return False
    return True


def _members(family: str) -> list[GpuSpec]:
    """A family as people rent it: a variant board (an NVL, a 48 GB RTX 4090) only when asked
    for by name."""
    members = list(family_members(family))
    return [g for g in members if not g.variant] or members


def _speeds(family: str) -> list[float]:
    """Training tokens/s of the reference run on each member of the family."""
    model = get_model(REFERENCE_RUN.model)
    members = [g for g in _members(family) if g.tflops > 0]
    return sorted({round(tokens_per_second(REFERENCE_RUN, model, g)) for g in members})


def _faster(first: str, second: str, i18n: Translator, quotes: Sequence[PriceQuote]) -> str:
    """Which trains faster (real throughput, not datasheets), and each side's cheapest card-hour
    and price of a million training tokens; a side without an hourly offer is said to have
    none."""
    a, b = _speeds(first), _speeds(second)
    if not a or not b:
        return _suggest(first, [first, second], i18n)
    fast, slow = (first, second) if max(a) >= max(b) else (second, first)
    fast_speeds, slow_speeds = (a, b) if fast == first else (b, a)
    low = min(fast_speeds) / max(slow_speeds)
    high = max(fast_speeds) / min(slow_speeds)
    ratio = f"{low:.1f}" if abs(high - low) < 0.05 else f"{low:.1f}–{high:.1f}"
    lines = [i18n("market-faster", fast=fast, slow=slow, ratio=ratio)]
    costs = []
    for family, speeds in ((fast, fast_speeds), (slow, slow_speeds)):
        offers = cheapest_offers(quotes, _constraints(family, NO_WISH, hourly=True))
        if not offers:
            lines.append(i18n("market-faster-no-offer", gpu=family))
            continue
        best = offers[0]
        per_card = rub_per_gpu_hour(best)
        per_million = per_card / (max(speeds) * 3600) * 1e6
        costs.append((family, per_million))
        server = (
            i18n(
                "market-faster-server",
                count=str(best.gpus),
                rate=money(best.rub_per_hour or 0.0, i18n.language),
            )
            if best.gpus > 1
            else ""
        )
        lines.append(
            i18n(
                "market-faster-price",
                gpu=family,
                rate=money(per_card, i18n.language),
                provider=best.provider,
                server=server,
                million=money(per_million, i18n.language),
            )
        )
    if len(costs) == 2:
        cheaper = min(costs, key=lambda item: item[1])[0]
        lines.append(i18n("market-faster-verdict", gpu=cheaper))
    hint = i18n("market-faster-hint", fast=command_word(fast), slow=command_word(slow))
    lines.append(hint)
    return "\n".join(lines)


def command_word(gpu: str) -> str:
    """A card as one word of a command: `gpu=rtx-4090`, never `gpu=rtx 4090`, whose second
    word a command would read as something else."""
    return "-".join(gpu.lower().split())


def _constraints(
    family: str | None, wish: StatedConstraints, *, hourly: bool = False
) -> Constraints:
    """The offers a market question is about: a family's members as people rent them (the
    NVL board only when named; fp16-only cards only when named), within what the user said."""
    ids = frozenset(g.id for g in _members(family)) if family else None
    return within(wish, gpu_ids=ids, allow_fp16=ids or frozenset(), hourly_only=hourly)


def _quote_line(
    quote: PriceQuote, i18n: Translator, *, month: bool = False, timezone: str = DEFAULT_TIMEZONE
) -> str:
    """A server's own price: its count and its whole rate, never a share of it. For a month
    question the month: a plan's own, an hourly rate × 720 h said to be round the clock, and
    per card first on a server of several (the server's whole month beside it). A stale
    quote ends with when its data is from (monitor.freshness), on the reader's clock."""
    common = {"gpu": quote.gpu_id, "count": str(quote.gpus), "provider": quote.provider}
    where = (
        i18n("market-offer-abroad", country=quote.country)
        if quote.country not in ("", "RU")
        else ""
    )
    unpublished = "" if quote.stock_published else i18n("market-offer-unpublished")
    stale = ""
    if quote.stale_since is not None:
        when = clock_time(quote.stale_since, datetime.now(UTC), timezone)
        stale = " · " + i18n("offer-stale", time=when)
    extra = {"where": where, "stock": Html(unpublished + stale)}
    if month:
        kind = "hour" if quote.rub_per_hour is not None else "month"
        extra["hours"] = str(HOURS_PER_MONTH)
        if quote.gpus > 1:
            return i18n(
                f"market-offer-{kind}-as-month-per-gpu",
                rate=money(rub_per_gpu_month(quote), i18n.language),
                server=money(monthly_equivalent(quote), i18n.language),
                **common,
                **extra,
            )
        return i18n(
            f"market-offer-{kind}-as-month",
            rate=money(monthly_equivalent(quote), i18n.language),
            **common,
            **extra,
        )
    if quote.rub_per_hour is not None:
        return i18n(
            "market-offer-hour", rate=money(quote.rub_per_hour, i18n.language), **common, **extra
        )
    return i18n(
        "market-offer-month",
        rate=money(quote.rub_per_month or 0.0, i18n.language),
        **common,
        **extra,
    )


def _pool(
    family: str | None, quotes: Sequence[PriceQuote], wish: StatedConstraints
) -> list[PriceQuote] | None:
    """The offers a market answer picks from, cheapest first; None with no prices at all.
    A month is 720 of the same hours: the hourly ranking is the month ranking too."""
    if not quotes:
        return None
    return cheapest_offers(quotes, _constraints(family, wish))


def _cheapest(
    family: str | None,
    i18n: Translator,
    quotes: Sequence[PriceQuote],
    wish: StatedConstraints,
    *,
    month: bool = False,
    timezone: str = DEFAULT_TIMEZONE,
) -> str:
    pool = _pool(family, quotes, wish)
    if pool is None:
        return i18n("market-no-prices")
    if family is None:
        title = (
            i18n("market-cheapest-vram", vram=plain(wish.min_vram_gib))
            if wish.min_vram_gib
            else i18n("market-cheapest-any")
        )
        hint = i18n("market-cheapest-any-hint")
    else:
        named = CardFilter(family=family, min_vram_gb=wish.min_vram_gib).label
        title = i18n("market-cheapest-title", gpu=named)
        hint = i18n("market-cheapest-hint", gpu=family.lower())
    said = constraints_text(replace(wish, min_vram_gib=None), i18n.language)
    if not pool:
        none = i18n("market-none-now", gpu=family or "GPU", query=(family or "h100").lower())
        return none if said is None else f"{none}\n{said}"
    lines = [_quote_line(q, i18n, month=month, timezone=timezone) for q in pool[:SHOWN]]
    return "\n".join([title, *([said] if said else []), *lines, hint])


def _in_stock(
    family: str,
    i18n: Translator,
    quotes: Sequence[PriceQuote],
    wish: StatedConstraints,
    *,
    month: bool = False,
    timezone: str = DEFAULT_TIMEZONE,
) -> str:
    """Offers the provider says are available, apart from those whose stock is not published."""
    pool = _pool(family, quotes, wish)
    if pool is None:
        return i18n("market-no-prices")
    if not pool:
        return i18n("market-none-now", gpu=family, query=family.lower())
    published = [q for q in pool if q.stock_published]
    unpublished = len(pool) - len(published)
    lines = []
    if published:
        named = CardFilter(family=family, min_vram_gb=wish.min_vram_gib).label
        lines.append(i18n("market-stock-title", gpu=named, count=len(published)))
    else:
        lines.append(i18n("market-stock-none-published", gpu=family))
    if unpublished:
        lines.append(i18n("market-stock-unpublished", count=unpublished))
    lines += [
        _quote_line(q, i18n, month=month, timezone=timezone) for q in (published or pool)[:SHOWN]
    ]
    lines.append(i18n("market-stock-hint", gpu=family.lower()))
    return "\n".join(lines)


def _hourly_or_monthly(
    family: str | None, i18n: Translator, quotes: Sequence[PriceQuote], wish: StatedConstraints
) -> str:
    """The guide's rule of thumb, then the break-even at live prices of the same card and
    count by the hour and by the month, for the card asked (or the popular training cards).
    A month is said to pay off only when it does within a month of use."""
    lines = [i18n("market-hourly-monthly")]
    families = [family] if family else ["RTX 4090", "A100", "H100"]
    for name in families:
        points = break_evens(quotes, _constraints(name, wish), wish.hours_per_month)
        for point in points[:2]:
            lines.append(break_even_line(point, i18n.language, family=name))
    if len(lines) == 1 and family:
        lines.append(i18n("market-breakeven-none", gpu=family))
    lines.append(i18n("market-hourly-hint"))
    return "\n".join(lines)


def _suggest(text: str, families: list[str], i18n: Translator) -> str:
    """Never «не понял»: the commands that answer it, with what the text named filled in —
    the user's own method, or none (the answer then says what it assumed), never another."""
    gpu = families[0].lower() if families else "h100"
    found = find_model_in_text(text)
    size = _SIZE.search(text)
    model = found[0].id.lower() if found else (f"{size.group(1)}b" if size else "13b")
    method, ruled_out = read_method(text)
    words = [model]
    if method is not None:
        words.append(method.value)
    else:
        words += [f"no-{m.value}" for m in ruled_out]
    return i18n("market-suggest", gpu=gpu, model=model, fit=" ".join(words))
