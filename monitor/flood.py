"""The per-user flood rule, as pure code (bot.middlewares.throttling applies it).

A flood is a run of updates from one user that arrive less than `interval` apart. Updates that
find the user's answer slot still busy are dropped. The first time a flood has dropped
something, the next free slot is spent on a single notice instead of an answer, so the user
learns why they are not being answered and never receives more than one message per interval.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

Verdict = Literal["answer", "drop", "notice"]
FlowKey = tuple[str, int]  # (update kind, user id): messages and button taps apart

# Forget users who have been quiet this long, so no table grows with every user ever.
FORGET_AFTER_S = 300.0


@dataclass(frozen=True)
class Flow:
    last_arrival: float
    last_answer: float
    dropped: int = 0
    warned: bool = False


def judge(flow: Flow | None, now: float, interval: float) -> tuple[Verdict, Flow]:
    """What to do with an update arriving at `now`, and the user's flow after it."""
    if flow is None:
        return "answer", Flow(last_arrival=now, last_answer=now)
    calm = now - flow.last_arrival >= interval
    dropped, warned = (0, False) if calm else (flow.dropped, flow.warned)
    if now - flow.last_answer < interval:
        return "drop", replace(flow, last_arrival=now, dropped=dropped + 1, warned=warned)
    if dropped and not warned:
        return "notice", Flow(now, now, dropped, warned=True)
    return "answer", Flow(now, now, dropped, warned)
