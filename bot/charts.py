"""A /history chart as PNG (matplotlib, Agg backend: no display needed).

Draws a bot.history_chart.ChartSpec and nothing else: every price drawn is one of its spans,
and the low line is its low, which the caption quotes too.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import matplotlib

from estimator.number_text import money

matplotlib.use("Agg")  # before pyplot: render to memory on a headless server

import matplotlib.dates as mdates
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bot.history_chart import ChartSpec, ChartTexts, Low, Series, Span
from monitor.users import zone

IN_STOCK_WIDTH = 2.2  # rentable stretches: the line to read prices from
OUT_OF_STOCK_WIDTH = 1.2
OUT_OF_STOCK_ALPHA = 0.5  # faint: listed at this price, but not to be had
LOW_COLOUR = "#000000"  # the low line is black: the palette's colours all name offers
LEGEND_COLUMNS = 2


def axis_date(moment: datetime) -> float:
    """Matplotlib's date axis unit (days since its epoch)."""
    return axis_dates([moment])[0]


def axis_dates(moments: Sequence[datetime]) -> list[float]:
    """`axis_date` of a whole series in one call: a call per point was 88 % of a busy chart's
    drawing time."""
    if not moments:
        return []
    converted = mdates.date2num(list(moments))  # type: ignore[no-untyped-call]
    return [float(value) for value in converted]


def _steps(spans: tuple[Span, ...]) -> tuple[list[float], list[float]]:
    """The whole series as one step line: each price held from its start to its end."""
    xs = axis_dates([moment for span in spans for moment in (span.start, span.end)])
    ys = [price for span in spans for price in (span.price, span.price)]
    return xs, ys


def _rentable_pieces(spans: tuple[Span, ...]) -> tuple[list[float], list[float]]:
    """Only the rentable stretches, NaN between them so matplotlib leaves gaps."""
    rentable = [span for span in spans if span.rentable]
    ends = iter(axis_dates([moment for span in rentable for moment in (span.start, span.end)]))
    xs: list[float] = []
    ys: list[float] = []
    for span in rentable:
        xs += [next(ends), next(ends), math.nan]
        ys += [span.price, span.price, math.nan]
    return xs, ys


def history_figure(spec: ChartSpec) -> Figure:
    """The chart as a matplotlib Figure (tests read what it draws from it)."""
    rows = math.ceil((len(spec.series) + 2) / LEGEND_COLUMNS)
    # A taller figure for a longer legend, so the plot keeps its height.
    figure = Figure(figsize=(9, 4.6 + 0.22 * rows), dpi=110, layout="constrained")
    axes = figure.add_subplot()
    for index, series in enumerate(spec.series):
        _draw_series(axes, index, series)
    if spec.low is not None:
        axes.axhline(
            spec.low.price,
            color=LOW_COLOUR,
            linestyle=(0, (4, 3)),
            linewidth=0.9,
            gid="low",
            label=spec.texts.low,
        )
    axes.set_title(spec.texts.title)
    axes.set_ylabel(spec.texts.price_axis)
    axes.set_xlabel(spec.texts.time_axis)
    axes.set_xlim(axis_date(_left_edge(spec)), axis_date(spec.until))
    axes.margins(y=0.08)  # room above and below the dearest and cheapest line
    # Days over a month, hours over a young history: the concise formatter picks the unit.
    locator = mdates.AutoDateLocator(tz=zone(spec.timezone))  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(
        mdates.ConciseDateFormatter(  # type: ignore[no-untyped-call]
            locator,
            tz=zone(spec.timezone),
            # Numbers only: month names would come out in English whatever the language.
            formats=["%Y", "%d.%m", "%d.%m", "%H:%M", "%H:%M", "%S.%f"],
            zero_formats=["", "%Y", "%d.%m", "%d.%m", "%H:%M", "%H:%M"],
            offset_formats=["", "%Y", "%Y", "%d.%m.%Y", "%d.%m.%Y", "%d.%m.%Y %H:%M"],
        )
    )
    axes.grid(True, alpha=0.3)
    handles, labels = axes.get_legend_handles_labels()
    handles += _stock_keys()
    labels += [spec.texts.in_stock, spec.texts.out_of_stock]
    figure.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=LEGEND_COLUMNS,
        fontsize=8,
        frameon=False,
    )
    return figure


def _left_edge(spec: ChartSpec) -> datetime:
    """The window's start, or the first price drawn when history is younger than the
    window: a day of history squeezed into a 30-day axis would be a sliver at its right."""
    starts = [line.spans[0].start for line in spec.series if line.spans]
    if not starts or min(starts) <= spec.since:
        return spec.since
    first = min(starts)
    return max(spec.since, first - (spec.until - first) * 0.03)


def _draw_series(axes: Axes, index: int, series: Series) -> None:
    xs, ys = _steps(series.spans)
    axes.plot(
        xs,
        ys,
        color=series.colour,
        linestyle=series.line_style,
        linewidth=OUT_OF_STOCK_WIDTH,
        alpha=OUT_OF_STOCK_ALPHA,
        gid=f"all:{index}",
    )
    rentable_x, rentable_y = _rentable_pieces(series.spans)
    axes.plot(
        rentable_x or [math.nan],
        rentable_y or [math.nan],
        color=series.colour,
        linestyle=series.line_style,
        linewidth=IN_STOCK_WIDTH,
        gid=f"rentable:{index}",
        label=series.label,
    )


def _stock_keys() -> list[Line2D]:
    """Legend keys for what thick and faint lines mean."""
    return [
        Line2D([], [], color="#444444", linewidth=IN_STOCK_WIDTH),
        Line2D([], [], color="#444444", linewidth=OUT_OF_STOCK_WIDTH, alpha=OUT_OF_STOCK_ALPHA),
    ]


def history_png(spec: ChartSpec) -> bytes:
    buffer = io.BytesIO()
    history_figure(spec).savefig(buffer, format="png")
    return buffer.getvalue()


def sample_spec() -> ChartSpec:
    """A small chart with every element of a real one: drawing it once in a new worker loads
    the fonts and renderer that the first real chart would otherwise wait for."""
    until = datetime(2026, 1, 31, tzinfo=UTC)
    since = until - timedelta(days=30)
    spans = (
        Span(since, since + timedelta(days=10), 100.0, False),
        Span(since + timedelta(days=10), until, 90.0, True),
    )
    series = Series("Selectel", "Selectel · 1× H100 · ru-1", "#1f77b4", "solid", spans)
    texts = ChartTexts("H100", "₽ / GPU·h", "UTC", "in stock", "out of stock", money(90.0))
    return ChartSpec((series,), since, until, "UTC", texts, Low(90.0, "Selectel", series.label), 1)
