"""This process's flood state (LocalFlows): one flow per user and update kind."""

from __future__ import annotations

from bot.middlewares.throttling import LocalFlows
from monitor.flood import BURST


async def test_local_flows_keep_users_and_kinds_apart() -> None:
    now = [1000.0]
    flows = LocalFlows(lambda: now[0])
    for _ in range(int(BURST)):
        assert await flows.judge_flow(("Message", 1), now[0], 1.0) == "answer"
    assert await flows.judge_flow(("Message", 1), now[0], 1.0) == "notice"
    assert await flows.judge_flow(("Message", 2), now[0], 1.0) == "answer"
    assert await flows.judge_flow(("CallbackQuery", 1), None, 1.0) == "answer"


async def test_an_undated_update_is_timed_by_the_clock() -> None:
    now = [1000.0]
    flows = LocalFlows(lambda: now[0])
    for _ in range(int(BURST)):
        assert await flows.judge_flow(("CallbackQuery", 1), None, 1.0) == "answer"
    assert await flows.judge_flow(("CallbackQuery", 1), None, 1.0) == "notice"
    now[0] += 1.0
    assert await flows.judge_flow(("CallbackQuery", 1), None, 1.0) == "answer"
