"""What the /history chart draws, read from its matplotlib figure (not its pixels)."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
from hypothesis import given, settings
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bot.charts import axis_date, axis_dates, history_figure, history_png
from bot.history_chart import MAX_SERIES
from bot.views.history import caption, chart_spec
from estimator.i18n import translators
from estimator.number_text import money
from monitor.history import HistoryPoint
from monitor.offers import StockState
from tests.bot.test_history_chart import SINCE, UNTIL, point, points_strategy

TRANSLATORS = translators()


def figure_of(points: list[HistoryPoint], language: str = "ru") -> tuple[Figure, str]:
    i18n = TRANSLATORS[language]  # type: ignore[index]
    spec = chart_spec(i18n, "RTX 4090", points, SINCE, UNTIL, "Europe/Moscow")
    return history_figure(spec), caption(i18n, "RTX 4090", spec)


def lines(figure: Figure, kind: str) -> list[Line2D]:
    (axes,) = figure.axes
    return [line for line in axes.get_lines() if str(line.get_gid()).startswith(kind + ":")]


def ys(line: Line2D) -> list[float]:
    """The line's y values, gaps (NaN) left out."""
    values = np.asarray(line.get_ydata(), dtype=float)
    return [float(y) for y in values if not math.isnan(y)]


def plotted_min(drawn: list[Line2D]) -> float:
    return min(y for line in drawn for y in ys(line))


def legend_texts(figure: Figure) -> list[str]:
    (legend,) = figure.legends
    return [text.get_text() for text in legend.get_texts()]


def test_axes_title_and_legend_are_in_the_users_language():
    points = [point(price=70), point("hostkey", "stock:1", location="NL", price=60)]
    ru, _ = figure_of(points, "ru")
    en, _ = figure_of(points, "en")
    (ru_axes,), (en_axes,) = ru.axes, en.axes
    assert ru_axes.get_ylabel() == "₽ за GPU·час"
    assert ru_axes.get_xlabel() == "Дата (Europe/Moscow)"
    assert ru_axes.get_title() == "RTX 4090: цена и наличие за 30 дней"
    assert en_axes.get_ylabel() == "₽ per GPU-hour"
    assert en_axes.get_xlabel() == "Date (Europe/Moscow)"
    assert legend_texts(ru) == [
        "HOSTKEY · 1× RTX 4090 · NL",
        "Selectel · 1× RTX 4090 · ru-7a",
        "минимум в наличии: 60 ₽ (HOSTKEY)",
        "толстая линия — в наличии",
        "бледная линия — нет в наличии",
    ]


def test_line_colours_are_never_reused():
    points = [point("hostkey", f"stock:{n}", price=50 + n) for n in range(MAX_SERIES)]
    figure, _ = figure_of(points)
    drawn = lines(figure, "rentable")
    assert len(drawn) == MAX_SERIES
    styles = {(to_hex(line.get_color()), line.get_linestyle()) for line in drawn}
    assert len(styles) == MAX_SERIES
    first_ten = {to_hex(line.get_color()) for line in drawn[:10]}
    assert len(first_ten) == 10


def test_stock_is_drawn_thick_when_rentable_and_faint_when_not():
    figure, _ = figure_of([point(price=80, stock=StockState.OUT_OF_STOCK), point(day=10, price=70)])
    (everything,), (rentable,) = lines(figure, "all"), lines(figure, "rentable")
    assert ys(everything) == [80, 80, 70, 70]
    assert ys(rentable) == [70, 70]
    assert rentable.get_linewidth() > everything.get_linewidth()
    assert (everything.get_alpha() or 1.0) < 1.0


@given(points_strategy)
@settings(max_examples=25, deadline=None)
def test_caption_minimum_is_the_minimum_plotted(points: list[HistoryPoint]):
    figure, text = figure_of(points)
    drawn_all = lines(figure, "all")
    if not drawn_all:
        return  # nothing in the window: /history says there is no history instead
    drawn_rentable = [line for line in lines(figure, "rentable") if ys(line)]
    (axes,) = figure.axes
    low_lines = [line for line in axes.get_lines() if line.get_gid() == "low"]
    if drawn_rentable:
        low = plotted_min(drawn_rentable)
        assert f"Минимум в наличии: {money(low)} ₽" in text
        (low_line,) = low_lines
        assert set(ys(low_line)) == {low}
    else:
        assert low_lines == []
        assert "В наличии не было." in text
    lowest_drawn = plotted_min(drawn_all)
    if not drawn_rentable or lowest_drawn < plotted_min(drawn_rentable):
        assert f"без наличия: {money(lowest_drawn)} ₽" in text


def test_the_png_is_a_png():
    figure_points = [point()]
    i18n = TRANSLATORS["ru"]
    spec = chart_spec(i18n, "RTX 4090", figure_points, SINCE, UNTIL, "UTC")
    assert history_png(spec).startswith(b"\x89PNG")


def test_a_history_younger_than_the_window_fills_the_axis():
    (axes,) = figure_of([point(day=28, price=70)])[0].axes
    left, right = axes.get_xlim()
    assert right == axis_date(UNTIL)
    # The two days of history take nearly all the width, not a sliver at the right.
    assert axis_date(UNTIL - timedelta(days=2.2)) < left < axis_date(UNTIL - timedelta(days=2))
    (old,) = figure_of([point(day=-3, price=70)])[0].axes
    assert old.get_xlim()[0] == axis_date(SINCE)


def test_a_series_dates_convert_in_one_call_as_each_would_alone():
    moments = [UNTIL - timedelta(hours=hours) for hours in range(50)]
    assert axis_dates(moments) == [axis_date(moment) for moment in moments]
    assert axis_dates([]) == []
