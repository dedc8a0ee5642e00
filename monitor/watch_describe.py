"""A WatchFilter in the user's words: «H100 · до 250 ₽/GPU·ч · в наличии» for /watch and /subs,
its filter part alone for /prices, and a short label alike in both languages for buttons.

The words are Fluent texts (estimator/locales/<lang>/watch_filter.ftl, read by the one
Translator); the words that parse back to a filter are monitor.watch_words.canonical.
"""

from __future__ import annotations

import html

from estimator.followup import shown_command
from estimator.i18n import Html, Translator, translator
from monitor.providers import PROVIDERS
from monitor.subscriptions import AlertKind, WatchFilter

# A label fits a button beside "🔕 …: 24 ч" on a phone.
LABEL_LIMIT = 24


def _amount(value: float, language: str) -> str:
    text = f"{value:,.2f}".rstrip("0").rstrip(".").replace(",", "\u202f")
    return text.replace(".", ",") if language == "ru" else text


def _duration(seconds: int, i18n: Translator) -> str:
    for key, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size and seconds % size == 0:
            # A string, not a number: a count is shown as typed, never grouped («86400 с»).
            return i18n(f"watch-filter-{key}", count=str(seconds // size))
    return i18n("watch-filter-seconds", count=str(seconds))


def _kind_words(watch: WatchFilter, i18n: Translator) -> list[str]:
    kinds = set(watch.kinds)
    # With a cap shown, "in stock" already means "in stock at or under the cap".
    if AlertKind.IN_STOCK in kinds and watch.max_rub_per_gpu_hour is not None:
        kinds.discard(AlertKind.BELOW_TARGET)
    return [i18n(f"watch-filter-{kind.value}") for kind in AlertKind if kind in kinds]


def _escaped(text: str) -> str:
    return html.escape(text, quote=False)


def filter_parts(watch: WatchFilter, language: str) -> list[Html]:
    """What the filter narrows offers to, in words («H100», «до 250 ₽/GPU·ч», «Selectel»),
    without the alert kinds: /prices shows these as its filter, /watch adds the kinds.
    Each part is Telegram HTML, the user's own words escaped."""
    i18n = translator(language)
    parts: list[str] = []
    if watch.gpu or watch.family:
        parts.append(_escaped(watch.gpu or watch.family or ""))
    if watch.fit_query is not None:
        parts.append(i18n("watch-filter-fit", query=shown_command(watch.fit_query)))
    if watch.min_count is not None:
        parts.append(i18n("watch-filter-count", count=str(watch.min_count)))
    if watch.min_vram_gb is not None:
        parts.append(i18n("watch-filter-vram", gb=_amount(watch.min_vram_gb, language)))
    if watch.min_total_vram_gb is not None:
        parts.append(i18n("watch-filter-total", gb=_amount(watch.min_total_vram_gb, language)))
    if watch.max_rub_per_gpu_hour is not None:
        price = _amount(watch.max_rub_per_gpu_hour, language)
        parts.append(i18n("watch-filter-max", price=price))
    if watch.providers:
        names = ", ".join(PROVIDERS.name(p) for p in sorted(watch.providers))
        parts.append(_escaped(names))
    if watch.location is not None:
        parts.append(i18n("watch-filter-location", location=watch.location))
    return [Html(part) for part in parts if part]


def describe(watch: WatchFilter, language: str) -> Html:
    """One line: «H100 · до 250 ₽/GPU·ч · в наличии», as Telegram HTML (escaped here)."""
    i18n = translator(language)
    parts: list[str] = list(filter_parts(watch, language))
    if not (watch.gpu or watch.family or watch.fit_query is not None):
        parts.insert(0, i18n("watch-filter-any"))
    parts.append(", ".join(_kind_words(watch, i18n)))
    if watch.cooldown_s is not None:
        duration = Html(_duration(watch.cooldown_s, i18n))
        parts.append(i18n("watch-filter-cooldown", duration=duration))
    return Html(" · ".join(part for part in parts if part))


def short_label(watch: WatchFilter, limit: int = LABEL_LIMIT) -> str:
    """The watch in a few characters, alike in both languages: «H100 ≤650₽», «8×A100 ≥80GB»,
    «70b qlora ctx=8192». Alerts head each watch's block with it and its buttons carry it, so
    two watches that match one offer can be told apart. Plain text; the caller escapes it."""
    name = watch.fit_query or watch.gpu or watch.family or "GPU"
    if watch.min_count is not None and watch.min_count > 1:
        name = f"{watch.min_count}×{name}"
    parts = [name]
    if watch.min_vram_gb is not None:
        parts.append(f"≥{_amount(watch.min_vram_gb, 'en')}GB")
    if watch.min_total_vram_gb is not None:
        parts.append(f"Σ≥{_amount(watch.min_total_vram_gb, 'en')}GB")
    if watch.max_rub_per_gpu_hour is not None:
        parts.append(f"≤{_amount(watch.max_rub_per_gpu_hour, 'en')}₽")
    parts.extend(PROVIDERS.name(p) for p in sorted(watch.providers))
    if watch.location is not None:
        parts.append(watch.location)
    label = " ".join(" ".join(parts).split())
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"
