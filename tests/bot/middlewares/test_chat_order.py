"""ChatOrder: one chat's updates one at a time, in the order they came; chats side by side."""

from __future__ import annotations

import asyncio
from typing import Any

from aiogram.types import Chat, TelegramObject

from bot.middlewares.chat_order import ChatOrder


def chat(chat_id: int) -> dict[str, Any]:
    return {"event_chat": Chat(id=chat_id, type="private")}


async def test_one_chats_updates_run_in_order_and_other_chats_beside_them() -> None:
    order = ChatOrder()
    done: list[str] = []
    first_may_end = asyncio.Event()

    async def handle(name: str, until: asyncio.Event | None) -> None:
        if until is not None:
            await until.wait()
        done.append(name)

    def update(name: str, chat_id: int, until: asyncio.Event | None = None) -> asyncio.Task[Any]:
        async def handler(event: TelegramObject, data: dict[str, Any]) -> None:
            await handle(name, until)

        return asyncio.ensure_future(order(handler, TelegramObject(), chat(chat_id)))

    # The first of chat 1 waits; the second of chat 1 must wait for it; chat 2 need not.
    tasks = [update("1a", 1, first_may_end), update("1b", 1), update("2a", 2)]
    for _ in range(10):
        await asyncio.sleep(0)
    assert done == ["2a"]
    assert order.chats_in_hand() == 1
    first_may_end.set()
    await asyncio.gather(*tasks)
    assert done == ["2a", "1a", "1b"]
    assert order.chats_in_hand() == 0


async def test_an_update_without_a_chat_is_not_held() -> None:
    order = ChatOrder()

    async def handler(event: TelegramObject, data: dict[str, Any]) -> str:
        return "answered"

    assert await order(handler, TelegramObject(), {}) == "answered"
    assert order.chats_in_hand() == 0
