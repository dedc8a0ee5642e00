"""This process's flood state (LocalFlows): one flow per user and update kind."""

from __future__ import annotations

from bot.middlewares.throttling import LocalFlows


async def test_local_flows_keep_users_apart() -> None:
    now = [0.0]
    flows = LocalFlows(lambda: now[0])
    assert await flows.judge_flow(("Message", 1), 1.0) == "answer"
    assert await flows.judge_flow(("Message", 2), 1.0) == "answer"
    assert await flows.judge_flow(("CallbackQuery", 1), 1.0) == "answer"
    now[0] = 0.5
    assert await flows.judge_flow(("Message", 1), 1.0) == "drop"
