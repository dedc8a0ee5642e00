"""The per-user flood rule, as pure code (bot.middlewares.throttling applies it).

Each update is judged at the time the person sent it, not when the bot gets to it: a message
at Telegram's `date`, a button press (Telegram dates none) at its arrival. So a backlog that
arrives all at once (the messages Telegram kept while the bot was down, a webhook's kept
updates delivered back to back) is judged as it was written, and answered in full. Times never
go back: updates come in the order they were sent, and an earlier date is read as the last one.

A person has a bucket of `BURST` answers that refills at one per `interval`. An update that
finds the bucket empty is dropped; the first one dropped in a flood gets the notice instead of
its answer, at once, so nothing is dropped without the person being told. A flood ends when
the bucket is full again (`BURST` intervals of quiet): the next one gets its own notice. Not
sooner: Telegram dates messages in whole seconds, so a flood's dates step a second at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["answer", "drop", "notice"]
FlowKey = tuple[str, int]  # (update kind, user id): messages and button taps apart

# Forget users who have been quiet this long, so no table grows with every user ever.
FORGET_AFTER_S = 300.0
# Answers a person gets in a row before the rate counts: a few quick messages («/fit 8b», then
# «а на 4090?») are a conversation, thirty pasted lines are a flood. Telegram's own rate for a
# chat is about one message a second (core.telegram.org/bots/faq, "avoid sending more than
# one message per second"), which the replies' limiter keeps (bot/delivery/limiter.py), so a
# burst is answered at that pace.
BURST = 3.0


@dataclass(frozen=True)
class Flow:
    last_arrival: float  # when the person sent their last update (seconds)
    tokens: float  # answers left in the bucket at `last_arrival`
    dropped: int = 0  # updates dropped in the current flood
    warned: bool = False  # the current flood got its notice


def judge(flow: Flow | None, sent_at: float, interval: float) -> tuple[Verdict, Flow]:
    """What to do with an update sent at `sent_at`, and the person's flow after it."""
    if flow is None:
        return "answer", Flow(last_arrival=sent_at, tokens=BURST - 1)
    sent_at = max(sent_at, flow.last_arrival)
    gap = sent_at - flow.last_arrival
    tokens = min(BURST, flow.tokens + gap / interval)
    dropped, warned = (0, False) if tokens >= BURST else (flow.dropped, flow.warned)
    if tokens >= 1:
        return "answer", Flow(sent_at, tokens - 1, dropped, warned)
    verdict: Verdict = "drop" if warned else "notice"
    return verdict, Flow(sent_at, tokens, dropped + 1, warned=True)
