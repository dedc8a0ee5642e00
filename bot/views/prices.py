"""The /prices list: offers cheapest per GPU-hour first, provider freshness, page buttons."""

from __future__ import annotations

import html
import math
from datetime import datetime

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.callbacks import PricesCallback
from bot.i18n import Html, Translator
from bot.views.provider_health import troubled_parts_text
from estimator.render import rubles
from monitor.health import ProviderHealth
from monitor.offers import Offer, StockState

PAGE_SIZE = 8
PROVIDER_NAMES = {"selectel": "Selectel", "hostkey": "HOSTKEY", "immers": "immers.cloud"}
STOCK_ICONS = {
    StockState.IN_STOCK: "✅",
    StockState.PREORDER: "⏳",
    StockState.UNKNOWN: "❔",
    StockState.OUT_OF_STOCK: "❌",
}


def sort_offers(offers: list[Offer]) -> list[Offer]:
    return sorted(offers, key=lambda offer: (offer.rub_per_gpu_hour, offer.provider, offer.sku))


def page_count(total: int) -> int:
    return max(1, math.ceil(total / PAGE_SIZE))


def offer_line(i18n: Translator, offer: Offer) -> str:
    stock = i18n(f"stock-{offer.stock.value}", count=offer.stock_count or 0)
    per_gpu = (
        i18n("prices-per-gpu", price=rubles(offer.rub_per_gpu_hour)) if offer.gpu_count > 1 else ""
    )
    return i18n(
        "prices-line",
        icon=STOCK_ICONS[offer.stock],
        gpu=offer.gpu,
        count=offer.gpu_count,
        hour=rubles(offer.price.rub_per_hour),
        month=rubles(offer.price.rub_per_month),
        per_gpu=Html(per_gpu),
        stock=stock,
        provider=PROVIDER_NAMES.get(offer.provider, offer.provider),
        location=offer.location,
        # Inside an attribute: quotes must be escaped too, or a '"' in a URL cuts the link.
        url=Html(html.escape(offer.url, quote=True)),
    )


def health_line(i18n: Translator, health: ProviderHealth, now: datetime) -> str:
    name = PROVIDER_NAMES.get(health.provider, health.provider)
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
    if health.partly_failing:  # name the part that did not update (issue 9)
        parts = Html(troubled_parts_text(i18n, health))  # escaped piece by piece already
        return i18n("prices-provider-partial", provider=name, minutes=minutes, parts=parts)
    return i18n("prices-provider-fresh", provider=name, minutes=minutes)


def prices_text(
    i18n: Translator,
    offers: list[Offer],
    health: list[ProviderHealth],
    page: int,
    now: datetime,
    label: str,
    in_stock_only: bool = False,
) -> str:
    ordered = sort_offers(offers)
    pages = page_count(len(ordered))
    page = min(max(0, page), pages - 1)
    chunk = ordered[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    if in_stock_only:
        title = i18n("stock-title") + (f" · {label}" if label else "")
    else:
        title = i18n("prices-title-gpu", gpu=label) if label else i18n("prices-title")
    lines = [title, ""]
    lines += [health_line(i18n, item, now) for item in health] or [i18n("prices-no-health")]
    lines.append("")
    if not ordered:
        lines.append(i18n("prices-empty"))
    else:
        lines += [offer_line(i18n, offer) for offer in chunk]
        lines += ["", i18n("prices-footer", shown=len(chunk), total=len(ordered))]
    return "\n".join(lines)


def prices_keyboard(
    total: int, page: int, gpu: str, in_stock_only: bool = False
) -> InlineKeyboardMarkup | None:
    pages = page_count(total)
    if pages <= 1:
        return None
    page = min(max(0, page), pages - 1)
    builder = InlineKeyboardBuilder()
    builder.button(
        text="◀️",
        callback_data=PricesCallback(page=(page - 1) % pages, gpu=gpu, stock=int(in_stock_only)),
    )
    builder.button(
        text=f"{page + 1}/{pages}",
        callback_data=PricesCallback(page=page, gpu=gpu, stock=int(in_stock_only)),
    )
    builder.button(
        text="▶️",
        callback_data=PricesCallback(page=(page + 1) % pages, gpu=gpu, stock=int(in_stock_only)),
    )
    builder.adjust(3)
    return builder.as_markup()
