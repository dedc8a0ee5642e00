"""What a /history chart shows, worked out once: the series (named, styled, cut into spans of
one price and one stock state) and the lows. The chart (bot.charts) draws exactly this, and
the caption quotes its lows, so the caption cannot name a price the chart does not show.

No matplotlib here: this runs in the bot's process; only the workers draw. No aiogram either:
the workers unpickle these types, and importing aiogram would cost each of them seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from monitor.history import HistoryPoint
from monitor.offers import rentable
from monitor.providers import PROVIDERS

# Tableau 10, matplotlib's default colour cycle ("tab10", matplotlib.org colormap reference):
# ten hues chosen to stay apart from each other on white.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
# Past ten series the colours come round again, each time with the next dash pattern, so no
# two series share both colour and line style.
LINE_STYLES = ("solid", "dashed", "dashdot")
# The most series one chart keeps apart (every colour with every style); past it the
# cheapest are drawn and the caption says how many were left out.
MAX_SERIES = len(PALETTE) * len(LINE_STYLES)


@dataclass(frozen=True)
class Span:
    """One price in ₽ per GPU-hour and one stock state, from `start` until `end`."""

    start: datetime
    end: datetime
    price: float
    rentable: bool


@dataclass(frozen=True)
class Series:
    """One offer's line."""

    provider: str
    label: str
    colour: str
    line_style: str
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class Low:
    """The cheapest span of a chart, and whose it is."""

    price: float
    provider: str  # display name
    label: str


@dataclass(frozen=True)
class ChartTexts:
    """The chart's words, in the user's language."""

    title: str
    price_axis: str
    time_axis: str
    in_stock: str
    out_of_stock: str
    low: str  # the low line's label; empty when nothing was rentable


@dataclass(frozen=True)
class ChartSpec:
    """Everything bot.charts needs to draw, picklable for the worker processes."""

    series: tuple[Series, ...]
    since: datetime
    until: datetime
    timezone: str
    texts: ChartTexts
    low: Low | None  # cheapest while rentable: the low line and the caption's minimum
    offers: int  # offers with a price in the window; more than drawn past MAX_SERIES


def offer_label(point: HistoryPoint) -> str:
    """Provider, configuration and place in words: "Selectel · 1× RTX 4090 · ru-7a"."""
    return f"{PROVIDERS.name(point.provider)} · {point.gpu_count}× {point.gpu} · {point.location}"


def build_series(
    points: Iterable[HistoryPoint], since: datetime, until: datetime
) -> tuple[tuple[Series, ...], int]:
    """The offers' series, cheapest first and at most MAX_SERIES of them, each with its own
    colour and line style; and how many offers there were in all."""
    by_offer: dict[tuple[str, str, str], list[HistoryPoint]] = {}
    for point in sorted(points, key=lambda p: p.at):
        by_offer.setdefault((point.provider, point.sku, point.location), []).append(point)
    cut = {key: _spans(series, since, until) for key, series in by_offer.items()}
    drawn = [(key, spans) for key, spans in cut.items() if spans]
    drawn.sort(key=lambda item: (_series_low(item[1]), item[0]))
    kept = drawn[:MAX_SERIES]
    labels = _labels([(key, by_offer[key][-1]) for key, _ in kept])
    series = tuple(
        Series(
            provider=PROVIDERS.name(key[0]),
            label=labels[key],
            colour=PALETTE[index % len(PALETTE)],
            line_style=LINE_STYLES[index // len(PALETTE)],
            spans=spans,
        )
        for index, (key, spans) in enumerate(kept)
    )
    return series, len(drawn)


def lowest(series: Sequence[Series], *, rentable_only: bool) -> Low | None:
    """The cheapest span drawn (only rentable ones with `rentable_only`); ties go to the
    series drawn first."""
    best: Low | None = None
    for line in series:
        for span in line.spans:
            if rentable_only and not span.rentable:
                continue
            if best is None or span.price < best.price:
                best = Low(span.price, line.provider, line.label)
    return best


def _spans(series: Sequence[HistoryPoint], since: datetime, until: datetime) -> tuple[Span, ...]:
    """Each point holds until the next one (history keeps change points only), clipped to the
    window; a point replaced before the window opens is not drawn."""
    spans = []
    for point, following in zip(series, [*series[1:], None], strict=True):
        start = max(point.at, since)
        end = min(following.at if following is not None else until, until)
        if end > start:
            spans.append(Span(start, end, point.price_per_gpu_hour, rentable(point.stock)))
    return tuple(spans)


def _series_low(spans: Sequence[Span]) -> tuple[bool, float]:
    """Series that were rentable sort before those that never were, then by price."""
    rentable = [span.price for span in spans if span.rentable]
    if rentable:
        return (False, min(rentable))
    return (True, min(span.price for span in spans))


def _labels(
    offers: Sequence[tuple[tuple[str, str, str], HistoryPoint]],
) -> dict[tuple[str, str, str], str]:
    """Offers that read the same in words (two configurations of one GPU in one place) are
    told apart by their SKU."""
    plain = {key: offer_label(point) for key, point in offers}
    counts: dict[str, int] = {}
    for label in plain.values():
        counts[label] = counts.get(label, 0) + 1
    return {
        key: label if counts[label] == 1 else f"{label} · {key[1]}" for key, label in plain.items()
    }
