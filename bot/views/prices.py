"""The /prices and /stock table: offers grouped per GPU, training-grade GPUs first
(the order is monitor.offer_ranking's).

Each GPU gets a header with its memory; under it, one two-line card per offer, cheapest per
GPU-hour first: the count, both prices with the billing kind (the one it is billed by in
bold), then the provider and location, stock, vCPU, RAM and NVLink where known, and how
fresh the offer's data is: its age, or, when its provider's latest scrape did not confirm
it (monitor.freshness), «⚠️ данные от 14:05, источник не отвечает» in the user's time zone.
Pages of PAGE_SIZE offers; a GPU cut by a page break gets its header again on the next page.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from datetime import datetime

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import PricesCallback
from bot.views.provider_health import troubled_parts_text
from estimator.i18n import Html, Translator, translator
from estimator.number_text import money
from monitor.freshness import ObservedOffer
from monitor.health import ProviderHealth
from monitor.offer_ranking import card_facts, group_key, has_nvlink, rank_offers
from monitor.offers import Offer, StockState, billing_of
from monitor.price_query import PriceQuery
from monitor.providers import PROVIDERS
from monitor.users import DEFAULT_TIMEZONE, zone
from monitor.watch_describe import filter_parts

PAGE_SIZE = 8
STOCK_ICONS = {
    StockState.IN_STOCK: "✅",
    StockState.PREORDER: "⏳",
    StockState.UNKNOWN: "❔",
    StockState.OUT_OF_STOCK: "❌",
}
CPU_RAM_EXTRA = "cpu_ram_extra"  # Offer.note: vCPU and RAM are billed on top of the GPU


def page_count(total: int) -> int:
    return max(1, math.ceil(total / PAGE_SIZE))


def filter_text(query: PriceQuery, language: str) -> Html:
    """The filter in the user's words: «H100, до 100 ₽/GPU·ч, помесячно»; empty when
    nothing narrows the list. Telegram HTML, the user's words escaped."""
    parts: list[str] = list(filter_parts(query.watch, language)) if query.watch else []
    if query.billing is not None:
        parts.append(translator(language)(f"prices-billing-{query.billing.value}"))
    return Html(", ".join(parts))


def age_text(i18n: Translator, minutes: int) -> str:
    if minutes < 1:
        return i18n("prices-age-now")
    if minutes < 90:
        return i18n("prices-age-minutes", minutes=minutes)
    if minutes < 48 * 60:
        return i18n("prices-age-hours", hours=round(minutes / 60))
    return i18n("prices-age-days", days=round(minutes / 1440))


def age_minutes(item: ObservedOffer, now: datetime) -> int:
    """Minutes since the offer's part last answered (what its data dates from)."""
    return max(0, int((now - item.observed_at).total_seconds() // 60))


def clock_time(moment: datetime, now: datetime, timezone: str) -> str:
    """14:05 on the reader's clock; 12.05 14:05 when it was another day there."""
    local, today = moment.astimezone(zone(timezone)), now.astimezone(zone(timezone))
    return local.strftime("%H:%M" if local.date() == today.date() else "%d.%m %H:%M")


def stale_text(i18n: Translator, item: ObservedOffer, now: datetime, timezone: str) -> str:
    """«⚠️ данные от 14:05, источник не отвечает» (and that it no longer counts as available,
    once expired); empty for an offer its provider's latest scrape confirmed."""
    if item.stale is None:
        return ""
    key = "offer-stale-expired" if item.expired else "offer-stale"
    return i18n(key, time=clock_time(item.observed_at, now, timezone))


def freshness_text(
    i18n: Translator, item: ObservedOffer, now: datetime, timezone: str = DEFAULT_TIMEZONE
) -> str:
    """How fresh an offer's data is: the stale mark, or its age."""
    return stale_text(i18n, item, now, timezone) or age_text(i18n, age_minutes(item, now))


def ranked(items: Sequence[ObservedOffer]) -> list[ObservedOffer]:
    """monitor.offer_ranking's order (the one /prices shows) of observed offers."""
    by_key = {item.offer.key: item for item in items}
    return [by_key[offer.key] for offer in rank_offers([item.offer for item in items])]


def price_text(i18n: Translator, offer: Offer) -> str:
    """Both prices with the billing kind; the one the offer is billed by comes first, bold."""
    billing = billing_of(offer.price)
    per_gpu = (
        i18n("prices-per-gpu", price=money(offer.rub_per_gpu_hour, i18n.language))
        if offer.gpu_count > 1
        else ""
    )
    return i18n(
        f"prices-price-{billing.value}",
        hour=money(offer.price.rub_per_hour, i18n.language),
        month=money(offer.price.rub_per_month, i18n.language),
        per_gpu=Html(per_gpu),
    )


def stock_text(i18n: Translator, offer: Offer) -> str:
    return i18n(f"stock-{offer.stock.value}", count=offer.stock_count or 0)


def provider_link(offer: Offer) -> Html:
    name = html.escape(PROVIDERS.name(offer.provider), quote=False)
    if not offer.url.startswith(("https://", "http://")):
        return Html(name)
    # Inside an attribute: quotes must be escaped too, or a '"' in a URL cuts the link.
    return Html(f'<a href="{html.escape(offer.url, quote=True)}">{name}</a>')


def specs_text(i18n: Translator, offer: Offer) -> list[str]:
    """vCPU, RAM and NVLink where known."""
    parts = []
    if offer.note == CPU_RAM_EXTRA:
        parts.append(i18n("prices-cpu-ram-extra"))
    else:
        if offer.vcpu:
            parts.append(i18n("prices-vcpu", count=offer.vcpu))
        if offer.ram_gb:
            parts.append(i18n("prices-ram", gb=money(offer.ram_gb, i18n.language)))
    if has_nvlink(offer):
        parts.append("NVLink")
    return parts


def offer_card(i18n: Translator, offer: Offer, freshness: str = "") -> str:
    """The offer's two lines under its GPU's header; `freshness` (`freshness_text`) ends
    the second."""
    first = i18n(
        "prices-card-price",
        icon=STOCK_ICONS[offer.stock],
        count=offer.gpu_count,
        price=Html(price_text(i18n, offer)),
    )
    details = [
        i18n("prices-card-where", provider=provider_link(offer), location=offer.location),
        stock_text(i18n, offer),
        *specs_text(i18n, offer),
    ]
    conversion = offer.price.conversion
    if conversion is not None:
        currency, rate = conversion
        details.append(i18n("prices-converted", currency=currency, rate=money(rate, i18n.language)))
    if freshness:
        details.append(freshness)
    return first + "\n" + "    " + " · ".join(details)


def gpu_header(i18n: Translator, offer: Offer) -> str:
    vram = card_facts(offer).vram_gb
    if vram is None:
        return i18n("prices-gpu", gpu=offer.gpu)
    return i18n("prices-gpu-vram", gpu=offer.gpu, vram=money(vram, i18n.language))


def offer_brief(i18n: Translator, offer: Offer, freshness: str = "") -> str:
    """One line with the GPU named: what /watch shows as already matching."""
    parts = [
        i18n("prices-brief", gpu=offer.gpu, count=offer.gpu_count),
        price_text(i18n, offer),
        stock_text(i18n, offer),
        i18n("prices-card-where", provider=provider_link(offer), location=offer.location),
    ]
    if freshness:
        parts.append(freshness)
    return " · ".join(parts)


def health_line(i18n: Translator, health: ProviderHealth, now: datetime) -> str:
    name = PROVIDERS.name(health.provider)
    if health.last_success_at is None:
        return i18n("prices-provider-never", provider=name, error=health.last_error_class or "")
    minutes = max(0, int((now - health.last_success_at).total_seconds() // 60))
    if health.failing:
        return i18n(
            "prices-provider-failing",
            provider=name,
            minutes=minutes,
            error=health.last_error_class or "",
        )
    if health.partly_failing:  # name the part that did not update, not just the provider
        parts = Html(troubled_parts_text(i18n, health))  # escaped piece by piece already
        return i18n("prices-provider-partial", provider=name, minutes=minutes, parts=parts)
    return i18n("prices-provider-fresh", provider=name, minutes=minutes)


def prices_text(
    i18n: Translator,
    offers: list[ObservedOffer],
    health: list[ProviderHealth],
    page: int,
    now: datetime,
    *,
    title: str,
    filters: str = "",
    timezone: str = DEFAULT_TIMEZONE,
) -> str:
    ordered = ranked(offers)
    pages = page_count(len(ordered))
    page = min(max(0, page), pages - 1)
    chunk = ordered[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    lines = [title]
    if filters:
        lines.append(i18n("prices-filter", filters=filters))
    lines.append("")
    if not health:
        lines.append(i18n("prices-no-health"))
    elif not ordered:
        lines.append(i18n("prices-empty-filtered") if filters else i18n("prices-empty"))
    previous: tuple[str, float | None] | None = None
    for item in chunk:
        key = group_key(item.offer)
        if key != previous:
            if previous is not None:
                lines.append("")
            lines.append(gpu_header(i18n, item.offer))
            previous = key
        lines.append(offer_card(i18n, item.offer, freshness_text(i18n, item, now, timezone)))
    if pages > 1:
        footer = i18n(
            "prices-footer", page=page + 1, pages=pages, shown=len(chunk), total=len(ordered)
        )
        lines += ["", footer]
    elif ordered:
        lines += ["", i18n("prices-footer-all", total=len(ordered))]
    if health:
        lines += ["", *(health_line(i18n, item, now) for item in health)]
    if not filters:
        lines.append(i18n("prices-filter-hint"))
    return "\n".join(lines)


def prices_keyboard(
    total: int, page: int, query: str, in_stock_only: bool = False
) -> InlineKeyboardMarkup | None:
    """◀️ page/pages ▶️ (wrapping); None for one page, or when the query is too long for a
    button's 64 bytes of data (the first page still shows, and the footer says how many)."""
    pages = page_count(total)
    if pages <= 1:
        return None
    page = min(max(0, page), pages - 1)
    stock = int(in_stock_only)
    targets = ((page - 1) % pages, page, (page + 1) % pages)
    try:
        data = [PricesCallback(page=p, gpu=query, stock=stock).pack() for p in targets]
    except ValueError:
        return None
    builder = InlineKeyboardBuilder()
    for text, packed in zip(("◀️", f"{page + 1}/{pages}", "▶️"), data, strict=True):
        builder.button(text=text, callback_data=packed)
    builder.adjust(3)
    return builder.as_markup()
