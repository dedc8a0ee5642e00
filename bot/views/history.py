"""A /history chart in the reader's words: its texts, its caption (the lows the chart draws).
Kept apart from bot.history_chart, which the chart workers import: they need no translator."""

from __future__ import annotations

from datetime import datetime

from bot.history_chart import ChartSpec, ChartTexts, build_series, lowest
from estimator.i18n import Translator
from estimator.number_text import money
from monitor.history import HistoryPoint


def chart_spec(
    i18n: Translator,
    label: str,
    points: list[HistoryPoint],
    since: datetime,
    until: datetime,
    timezone: str,
) -> ChartSpec:
    series, offers = build_series(points, since, until)
    low = lowest(series, rentable_only=True)
    texts = ChartTexts(
        title=i18n("history-chart-title", gpu=label),
        price_axis=i18n("history-axis-price"),
        time_axis=i18n("history-axis-time", zone=timezone),
        in_stock=i18n("history-key-in-stock"),
        out_of_stock=i18n("history-key-out-of-stock"),
        low=""
        if low is None
        else i18n("history-key-low", low=money(low.price, i18n.language), provider=low.provider),
    )
    return ChartSpec(series, since, until, timezone, texts, low, offers)


def caption(i18n: Translator, label: str, spec: ChartSpec) -> str:
    """The lows the chart draws: the cheapest while rentable, and a cheaper price drawn
    while it was not to be had, so no line on the chart sits under the caption's minimum
    unexplained."""
    parts = []
    if spec.low is None:
        parts.append(i18n("history-caption-nolow", gpu=label))
    else:
        parts.append(
            i18n(
                "history-caption",
                gpu=label,
                low=money(spec.low.price, i18n.language),
                provider=spec.low.provider,
            )
        )
    drawn_low = lowest(spec.series, rentable_only=False)
    if drawn_low is not None and (spec.low is None or drawn_low.price < spec.low.price):
        parts.append(
            i18n(
                "history-caption-unrentable-low",
                low=money(drawn_low.price, i18n.language),
                provider=drawn_low.provider,
            )
        )
    if spec.offers > len(spec.series):
        parts.append(i18n("history-caption-cut", shown=len(spec.series), total=spec.offers))
    return " ".join(parts)
