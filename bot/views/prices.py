"""The /prices and /stock table: offers grouped per GPU, training-grade GPUs first.

Each GPU gets a header with its memory; under it, one two-line card per offer, cheapest per
GPU-hour first: the count, both prices with the billing kind (the one it is billed by in
bold), then the provider and location, stock, vCPU, RAM and NVLink where known, and how
fresh the provider's data is. Pages of PAGE_SIZE offers; a GPU cut by a page break gets
its header again on the next page.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import PricesCallback
from bot.views.provider_health import troubled_parts_text
from estimator import gpus
from estimator.i18n import Html, Translator, translator
from estimator.plan_text import rubles
from monitor.health import ProviderHealth
from monitor.offers import Offer, StockState, billing_of
from monitor.price_query import PriceQuery
from monitor.providers import PROVIDERS
from monitor.subscriptions import offer_gpu
from monitor.watch_describe import filter_parts

PAGE_SIZE = 8
STOCK_ICONS = {
    StockState.IN_STOCK: "✅",
    StockState.PREORDER: "⏳",
    StockState.UNKNOWN: "❔",
    StockState.OUT_OF_STOCK: "❌",
}
# "Training-grade" tiers, best first. bf16 (Ampere and newer) is what fine-tuning recipes
# default to (fp16 needs loss scaling, Pascal/Turing/Volta have no bf16). 40 GB on one card
# holds a 13B LoRA or a 30B QLoRA at 2k context (this project's estimator); 24 GB holds an
# 8B LoRA. Within a tier: more memory first, then more bf16 TFLOPS, then the cheaper offer.
_LARGE_GB = 40
_MEDIUM_GB = 24
CPU_RAM_EXTRA = "cpu_ram_extra"  # Offer.note: vCPU and RAM are billed on top of the GPU


def money(value: float) -> str:
    """320 -> "320", 45.5 -> "45,50", 230400 -> "230 400": no ",00" noise on round prices."""
    if value >= 1000 or float(value).is_integer():
        return f"{round(value):,}".replace(",", "\u202f")
    return rubles(value)


@dataclass(frozen=True)
class _Gpu:
    """What the catalog says about an offer's card, for ranking and the group header."""

    vram_gb: float | None
    tier: int
    tflops: float
    form: str


def _gpu(offer: Offer) -> _Gpu:
    known = offer_gpu(offer.gpu, offer.vram_gb)
    vram = offer.vram_gb or known.vram_gb
    if known.sizing_id is None:
        return _Gpu(vram, 4, 0.0, "")  # not in the catalog: after every card we know
    spec = gpus.get(known.sizing_id)
    if not spec.bf16:
        tier = 3
    elif (vram or 0) >= _LARGE_GB:
        tier = 0
    elif (vram or 0) >= _MEDIUM_GB:
        tier = 1
    else:
        tier = 2
    return _Gpu(vram, tier, spec.tflops, spec.form)


def group_key(offer: Offer) -> tuple[str, float | None]:
    return (offer.gpu, _gpu(offer).vram_gb)


def rank_offers(offers: Sequence[Offer]) -> list[Offer]:
    """Grouped per GPU (training-grade first), cheapest per GPU-hour first inside a group."""

    def group_rank(offer: Offer) -> tuple[int, float, float, str]:
        card = _gpu(offer)
        return (card.tier, -(card.vram_gb or 0), -card.tflops, offer.gpu)

    return sorted(
        offers,
        key=lambda o: (*group_rank(o), o.vram_gb or 0, o.rub_per_gpu_hour, o.provider, o.sku),
    )


def page_count(total: int) -> int:
    return max(1, math.ceil(total / PAGE_SIZE))


def has_nvlink(offer: Offer) -> bool | None:
    """True where NVLink is known: SXM modules sit on NVLink baseboards (HGX), H100 NVL is
    sold in NVLink-bridged pairs, or the provider names it. None where it is unknown."""
    if offer.gpu_count < 2:
        return None
    named = f"{offer.gpu_raw} {offer.title} {offer.sku}".lower().replace(" ", "")
    if "nvlink" in named or _gpu(offer).form in ("SXM", "NVL"):
        return True
    return None


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


def provider_ages(health: Sequence[ProviderHealth], now: datetime) -> dict[str, int]:
    """Minutes since each provider's last good scrape (what the offers on show date from)."""
    return {
        item.provider: max(0, int((now - item.last_success_at).total_seconds() // 60))
        for item in health
        if item.last_success_at is not None
    }


def price_text(i18n: Translator, offer: Offer) -> str:
    """Both prices with the billing kind; the one the offer is billed by comes first, bold."""
    billing = billing_of(offer.price)
    per_gpu = (
        i18n("prices-per-gpu", price=money(offer.rub_per_gpu_hour)) if offer.gpu_count > 1 else ""
    )
    return i18n(
        f"prices-price-{billing.value}",
        hour=money(offer.price.rub_per_hour),
        month=money(offer.price.rub_per_month),
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
            parts.append(i18n("prices-ram", gb=money(offer.ram_gb)))
    if has_nvlink(offer):
        parts.append("NVLink")
    return parts


def offer_card(i18n: Translator, offer: Offer, age: int | None) -> str:
    """The offer's two lines under its GPU's header."""
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
    if age is not None:
        details.append(age_text(i18n, age))
    return first + "\n" + "    " + " · ".join(details)


def gpu_header(i18n: Translator, offer: Offer) -> str:
    vram = _gpu(offer).vram_gb
    if vram is None:
        return i18n("prices-gpu", gpu=offer.gpu)
    return i18n("prices-gpu-vram", gpu=offer.gpu, vram=money(vram))


def offer_brief(i18n: Translator, offer: Offer, age: int | None) -> str:
    """One line with the GPU named: what /watch shows as already matching."""
    parts = [
        i18n("prices-brief", gpu=offer.gpu, count=offer.gpu_count),
        price_text(i18n, offer),
        stock_text(i18n, offer),
        i18n("prices-card-where", provider=provider_link(offer), location=offer.location),
    ]
    if age is not None:
        parts.append(age_text(i18n, age))
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
    offers: list[Offer],
    health: list[ProviderHealth],
    page: int,
    now: datetime,
    *,
    title: str,
    filters: str = "",
) -> str:
    ordered = rank_offers(offers)
    pages = page_count(len(ordered))
    page = min(max(0, page), pages - 1)
    chunk = ordered[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    ages = provider_ages(health, now)
    lines = [title]
    if filters:
        lines.append(i18n("prices-filter", filters=filters))
    lines.append("")
    if not health:
        lines.append(i18n("prices-no-health"))
    elif not ordered:
        lines.append(i18n("prices-empty-filtered") if filters else i18n("prices-empty"))
    previous: tuple[str, float | None] | None = None
    for offer in chunk:
        key = group_key(offer)
        if key != previous:
            if previous is not None:
                lines.append("")
            lines.append(gpu_header(i18n, offer))
            previous = key
        lines.append(offer_card(i18n, offer, ages.get(offer.provider)))
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
