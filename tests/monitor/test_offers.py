"""monitor.offers: which stock can be rented now, the one rule every reader of offers shares."""

from __future__ import annotations

from monitor.offers import StockState, rentable


def test_in_stock_and_unpublished_stock_can_be_rented() -> None:
    assert {stock for stock in StockState if rentable(stock)} == {
        StockState.IN_STOCK,
        StockState.UNKNOWN,
    }
