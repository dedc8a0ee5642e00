"""A history point in SQL: its columns, and the one rule that says which points of a span of
time stand for it (its cheapest, its dearest, its last). The series' buckets
(storage.history), the stored summaries and their rebuild (storage.history_tiers) all choose
with it, so a summary keeps exactly the point a bucket of the change points would have kept.
"""

from __future__ import annotations

from typing import Final

from monitor.offers import RENTABLE_STOCK

# monitor.offers.rentable as SQL: fixed enum values, not user input.
RENTABLE_VALUES: Final = ", ".join(f"'{stock.value}'" for stock in sorted(RENTABLE_STOCK))

POINT_COLUMNS: Final = "provider, sku, location, gpu, gpu_count, at, price_hour, stock, stock_count"
CARD_COLUMNS: Final = "card_id, card_family, card_sizing, card_vram_gb"
# What a stored point records beside the point it is read back as: the offer's card.
STORED_COLUMNS: Final = f"{POINT_COLUMNS}, {CARD_COLUMNS}"
STORED_COUNT: Final = STORED_COLUMNS.count(",") + 1

# A term of an order: an expression over one point ({t}: the table's qualifier, "" or "x."),
# and whether larger values come first.
Term = tuple[str, bool]
_UNRENTABLE: Final = f"CASE WHEN {{t}}stock IN ({RENTABLE_VALUES}) THEN 0 ELSE 1 END"
_UNIT: Final = "{t}price_hour / {t}gpu_count"
_NEWEST: Final[Term] = ("{t}at", True)

# The point that stands for a span, by role, the first in its order: the cheapest per GPU-hour
# (rentable ones first, so the low a caption or `low` quotes survives exactly), the dearest,
# the last. Ties go to the newest point, and then to the one written last.
ORDERS: Final[dict[str, tuple[Term, ...]]] = {
    "low": ((_UNRENTABLE, False), (_UNIT, False), _NEWEST),
    "high": ((_UNIT, True), _NEWEST),
    "last": (_NEWEST,),
}


def rank_columns(partition: str) -> str:
    """`low_rank, high_rank, last_rank`: each point's place in ORDERS within `partition`
    (1: the point that stands for its part in that role)."""
    windows = []
    for role, order in ORDERS.items():
        by = ", ".join(
            expr.format(t="") + (" DESC" if descending else "") for expr, descending in order
        )
        windows.append(f"row_number() OVER (PARTITION BY {partition} ORDER BY {by}) AS {role}_rank")
    return ",\n    ".join(windows)


KEPT: Final = " OR ".join(f"{role}_rank = 1" for role in ORDERS)


def replaces(role: str, new: str, old: str) -> str:
    """SQL that is true when point `new` (a qualifier: "excluded.") takes `old`'s place as its
    span's point in `role`: it comes first in the role's order, or ties with it (being newer)."""

    def wins(terms: tuple[Term, ...]) -> str:
        (expr, descending), rest = terms[0], terms[1:]
        a, b = expr.format(t=new), expr.format(t=old)
        if not rest:
            return f"{a} >= {b}" if descending else f"{a} <= {b}"
        better = f"{a} > {b}" if descending else f"{a} < {b}"
        return f"({better} OR ({a} = {b} AND {wins(rest)}))"

    return wins(ORDERS[role])
