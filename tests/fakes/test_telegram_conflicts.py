"""The fake Telegram: two pollers at once get Telegram's 409, and each one is counted."""

import asyncio

import pytest
from aiogram import Dispatcher
from aiogram.exceptions import TelegramConflictError

from bot.fake_telegram import ApiCall
from tests.fakes.helpers import CHAT, FakeClock, raw_call, wait_until_polling
from tests.fakes.telegram import FakeTelegram, make_bot, polling
from tests.polling import eventually

# Telegram's own words (Bot API, answered to the older of two overlapping getUpdates).
CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)


async def test_a_second_poll_fails_the_older_waiting_one_with_409_and_counts_it() -> None:
    clock = FakeClock(1000.0)
    async with FakeTelegram(max_poll_wait=30, clock=clock) as api, make_bot(api) as bot:
        first = asyncio.create_task(bot.get_updates(timeout=30))
        await wait_until_polling(api)
        clock.advance(2.5)
        second = asyncio.create_task(bot.get_updates(timeout=30))
        with pytest.raises(TelegramConflictError, match="terminated by other getUpdates"):
            await asyncio.wait_for(first, 5)
        api.push_message(CHAT, "for the second")
        assert len(await asyncio.wait_for(second, 5)) == 1  # the newer poll is served
    (conflict,) = api.conflicts
    assert conflict.at == 1002.5
    assert conflict.heard
    assert (conflict.call.method, conflict.call.status) == ("getUpdates", 409)
    assert conflict.call.response == {"ok": False, "error_code": 409, "description": CONFLICT}


async def test_a_409_answered_to_a_client_already_gone_is_kept_but_not_counted() -> None:
    async with FakeTelegram(max_poll_wait=30) as api:
        doomed = asyncio.create_task(raw_call(api, "getUpdates", data={"timeout": "30"}))
        await wait_until_polling(api)
        doomed.cancel()  # a bot killed while its long poll is held: its connection closes
        await asyncio.gather(doomed, return_exceptions=True)
        await eventually(lambda: api.connected_clients == 0)
        async with make_bot(api) as bot:
            successor = asyncio.create_task(bot.get_updates(timeout=30))
            await api.wait_until(lambda: api.conflicts or None)  # the held poll is failed
            api.push_message(CHAT, "for the successor")
            assert len(await asyncio.wait_for(successor, 5)) == 1
    (conflict,) = api.conflicts
    assert not conflict.heard
    assert api.conflicts_since(0.0) == []


async def test_polls_one_after_another_never_conflict() -> None:
    async with FakeTelegram(max_poll_wait=0.05) as api, make_bot(api) as bot:
        for text in ("one", "two"):
            api.push_message(CHAT, text)
            assert len(await bot.get_updates(timeout=1)) >= 1
        await bot.get_updates(timeout=1)  # nothing pending: held, then answered empty
    assert len([call for call in api.calls_of("getUpdates") if call.ok]) == 3
    assert api.conflicts == []


async def test_conflicts_since_keeps_only_the_409s_from_that_moment_on() -> None:
    clock = FakeClock(50.0)
    async with FakeTelegram(max_poll_wait=30, clock=clock) as api, make_bot(api) as bot:
        for _ in range(2):
            held = asyncio.create_task(bot.get_updates(timeout=30))
            await wait_until_polling(api)
            newer = asyncio.create_task(bot.get_updates(timeout=30))
            with pytest.raises(TelegramConflictError):
                await asyncio.wait_for(held, 5)
            api.push_message(CHAT, "wake the newer poll")
            (update,) = await asyncio.wait_for(newer, 5)
            await bot.get_updates(offset=update.update_id + 1, timeout=0)  # confirm it
            clock.advance(10)
    assert [conflict.at for conflict in api.conflicts] == [50.0, 60.0]
    assert [conflict.at for conflict in api.conflicts_since(55.0)] == [60.0]
    assert api.conflicts_since(60.5) == []


async def test_two_polling_bots_conflict_until_one_stops_then_none_come() -> None:
    async with (
        FakeTelegram(max_poll_wait=0.2) as api,
        make_bot(api) as one,
        make_bot(api) as two,
        polling(Dispatcher(), one),
    ):
        async with polling(Dispatcher(), two):
            await api.wait_until(lambda: api.conflicts or None)
        stopped = api.mark()

        def served_after_stop(count: int) -> list[ApiCall] | None:
            served = [c for c in api.calls_of("getUpdates") if c.ok and c.index >= stopped]
            return served if len(served) >= count else None

        # The stopped bot's last poll may still be held; the next poll of the running bot
        # fails it. That is the warm-up: from then on, no 409 may come.
        await api.wait_until(lambda: served_after_stop(1))
        warm = api.clock()
        update_id = api.push_message(CHAT, "/start")
        await api.wait_confirmed(update_id)
        await api.wait_until(lambda: served_after_stop(4))
    assert api.conflicts_since(warm) == []
