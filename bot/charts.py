"""Price and stock history as a PNG chart (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

import matplotlib

matplotlib.use("Agg")  # before pyplot: render to memory on a headless server

import matplotlib.dates as mdates
from matplotlib.figure import Figure

from storage.history import HistoryPoint

IN_STOCK_STATES = frozenset({"in_stock", "unknown"})


def _num(moment: datetime) -> float:
    """Matplotlib's date axis unit (days since its epoch)."""
    return float(mdates.date2num(moment))  # type: ignore[no-untyped-call]


def history_png(
    points: Sequence[HistoryPoint], title: str, since: datetime, until: datetime
) -> bytes:
    """One step line per offer (₽ per GPU-hour); filled markers where it was rentable,
    hollow where it was not; the 30-day low marked and labelled."""
    figure = Figure(figsize=(8, 4.5), dpi=110)
    axes = figure.add_subplot()
    by_offer: dict[tuple[str, str, str], list[HistoryPoint]] = {}
    for point in points:
        by_offer.setdefault((point.provider, point.sku, point.location), []).append(point)
    for (provider, sku, _location), series in sorted(by_offer.items()):
        times = [_num(max(p.at, since)) for p in series] + [_num(until)]
        prices = [p.price_per_gpu_hour for p in series] + [series[-1].price_per_gpu_hour]
        line = axes.step(times, prices, where="post", linewidth=1.2, label=f"{provider} {sku}")
        color = line[0].get_color()
        for p in series:
            filled = str(p.stock) in IN_STOCK_STATES
            axes.plot(
                _num(max(p.at, since)),
                p.price_per_gpu_hour,
                "o",
                color=color,
                markerfacecolor=color if filled else "white",
                markersize=4,
            )
    rentable = [p for p in points if str(p.stock) in IN_STOCK_STATES]
    if rentable:
        low = min(rentable, key=lambda p: p.price_per_gpu_hour)
        axes.axhline(low.price_per_gpu_hour, color="green", linestyle="--", linewidth=0.8)
        axes.annotate(
            f"min 30d: {low.price_per_gpu_hour:.0f} ₽ ({low.provider})",
            # The low may date from before the window (history keeps change points only).
            (_num(max(low.at, since)), low.price_per_gpu_hour),
            textcoords="offset points",
            xytext=(5, -12),
            color="green",
            fontsize=8,
        )
    axes.set_title(title)
    axes.set_ylabel("₽ / GPU·h")
    axes.set_xlim(_num(since), _num(until))
    axes.xaxis.set_major_formatter(mdates.DateFormatter("%d.%m"))  # type: ignore[no-untyped-call]
    axes.grid(True, alpha=0.3)
    if by_offer:
        axes.legend(fontsize=7, loc="upper left")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
