"""The shared limiter on an injected clock, and replies going through it (the session
middleware): rate and burst bounds, per-chat gaps, pauses, replies first, 429s retried."""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import AsyncIterator

import pytest
from aiogram.exceptions import TelegramRetryAfter

from bot.delivery.limiter import Limiter
from bot.delivery.session import SharedLimitMiddleware, sending_alert
from tests.fakes.telegram import FakeTelegram, make_bot


class VirtualTime:
    """A clock for many concurrent sleepers: sleep(d) returns when the clock reaches its
    deadline, and the clock jumps to the next deadline once every task is waiting."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._count = 0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self._count += 1
        bisect.insort(self._sleepers, (self.now + max(0.0, seconds), self._count, future))
        await future

    async def run(self, *work: asyncio.Future[None]) -> None:
        """Advance time until every task in `work` is done."""
        pending = set(work)
        while pending:
            for _ in range(20):  # let everything runnable run and reach a sleep
                await asyncio.sleep(0)
            pending = {task for task in pending if not task.done()}
            if pending and self._sleepers:
                deadline, _, future = self._sleepers.pop(0)
                self.now = max(self.now, deadline)
                future.set_result(None)


@pytest.fixture
def vt() -> VirtualTime:
    return VirtualTime()


def limiter(vt: VirtualTime, rate: float = 28.0, burst: float = 1.5) -> Limiter:
    return Limiter(rate, burst, clock=vt.clock, sleep=vt.sleep)


def most_in_one_second(times: list[float]) -> int:
    ordered = sorted(times)
    return max(bisect.bisect_left(ordered, t + 1.0) - i for i, t in enumerate(ordered))


async def test_rate_and_burst_bound_every_second(vt: VirtualTime):
    shared = limiter(vt)
    starts: list[float] = []

    async def send(chat: int) -> None:
        async with shared.slot(chat):
            starts.append(vt.now)

    await vt.run(*(asyncio.ensure_future(send(chat)) for chat in range(200)))
    assert len(starts) == 200
    # 28/s with a burst of 1.5: never more than 29.5 in a second, so never over 30.
    assert most_in_one_second(starts) <= 29
    assert (starts[-1] - starts[0]) == pytest.approx((200 - 1.5) / 28, abs=0.02)


async def test_three_replicas_sharing_the_budget_stay_under_telegrams_limit(vt: VirtualTime):
    replicas = [limiter(vt) for _ in range(3)]
    for each in replicas:
        each.share(3)
    starts: list[float] = []

    async def send(shared: Limiter, chat: int) -> None:
        async with shared.slot(chat):
            starts.append(vt.now)

    work = [asyncio.ensure_future(send(replicas[chat % 3], chat)) for chat in range(300)]
    await vt.run(*work)
    # Together as one process would: 28/s and a burst of 1.5, never over 30 in a second.
    assert most_in_one_second(starts) <= 30
    assert len(starts) / (starts[-1] - starts[0]) == pytest.approx(28, rel=0.03)
    assert replicas[0].shared_by == 3

    # One replica gone: the two left take half each, and together still send at 28/s.
    starts.clear()
    for each in replicas[:2]:
        each.share(2)
    await vt.run(*(asyncio.ensure_future(send(replicas[c % 2], 1000 + c)) for c in range(200)))
    assert most_in_one_second(starts) <= 30
    assert len(starts) / (starts[-1] - starts[0]) == pytest.approx(28, rel=0.03)


async def test_a_chat_gets_its_next_message_a_second_after_the_answer(vt: VirtualTime):
    shared = limiter(vt, rate=1000)
    starts: list[float] = []

    async def send() -> None:
        async with shared.slot(7):
            starts.append(vt.now)
            await vt.sleep(0.3)  # Telegram takes 0.3 s to answer

    await vt.run(*(asyncio.ensure_future(send()) for _ in range(3)))
    assert starts == pytest.approx([0.0, 1.3, 2.6], abs=0.01)
    assert shared.busy_chats() == {7}  # for a second after its last answer
    vt.now += 1
    assert shared.busy_chats() == set()


async def test_replies_go_before_waiting_alerts(vt: VirtualTime):
    shared = limiter(vt, rate=10, burst=1)
    order: list[str] = []

    async def send(name: str, chat: int, urgent: bool) -> None:
        async with shared.slot(chat, urgent=urgent):
            order.append(name)

    alerts = [asyncio.ensure_future(send(f"alert{i}", i, False)) for i in range(5)]
    for _ in range(5):
        await asyncio.sleep(0)  # the alerts queue up first
    reply = asyncio.ensure_future(send("reply", 100, True))
    await vt.run(*alerts, reply)
    assert order.index("reply") <= 2  # the next free slot or the one after, not the last
    assert order[0] == "alert0"


async def test_replies_to_one_chat_keep_its_gap_in_the_order_they_came(vt: VirtualTime):
    shared = limiter(vt, rate=1000)
    sent: list[tuple[str, float]] = []

    async def reply(name: str) -> None:
        async with shared.slot(7, urgent=True):
            sent.append((name, vt.now))

    replies = []
    for n in range(4):
        replies.append(asyncio.ensure_future(reply(f"r{n}")))
        await asyncio.sleep(0)  # each comes to the limiter after the one before
    # The last of them will wait for the three before it, a gap each.
    assert shared.expected_wait(7) == pytest.approx(3.0, abs=0.05)
    await vt.run(*replies)
    assert [name for name, _ in sent] == ["r0", "r1", "r2", "r3"]
    assert [at for _, at in sent] == pytest.approx([0.0, 1.0, 2.0, 3.0], abs=0.01)
    assert shared.expected_wait(8) < 0.01  # another chat waits only for the overall rate


async def test_a_pause_holds_every_chat_and_a_hold_one(vt: VirtualTime):
    shared = limiter(vt, rate=1000)
    starts: dict[int, float] = {}

    async def send(chat: int) -> None:
        async with shared.slot(chat):
            starts[chat] = vt.now

    shared.hold_chat(1, 5)
    shared.pause(2)
    await vt.run(*(asyncio.ensure_future(send(chat)) for chat in (1, 2)))
    assert starts[2] == pytest.approx(2, abs=0.01)
    assert starts[1] == pytest.approx(5, abs=0.01)


# --- replies through the session middleware ------------------------------------------------


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


class SteppedTime:
    """A clock that each sleep moves on at once, for the limiter and the middleware alike:
    a 429's wait is waited out on it, not on the wall clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(0.0, seconds)

    def limiter(self) -> Limiter:
        return Limiter(1000, clock=self.clock, sleep=self.sleep)


async def test_a_reply_waits_out_a_429_and_is_delivered(tg: FakeTelegram):
    stepped = SteppedTime()
    slept = stepped.slept

    async with make_bot(tg) as bot:
        bot.session.middleware(SharedLimitMiddleware(stepped.limiter(), sleep=stepped.sleep))
        tg.flood_wait(retry_after=3, times=2)
        await bot.send_message(5, "hi")
    assert 3 in slept
    assert [call.status for call in tg.calls_of("sendMessage")] == [429, 429, 200]


async def test_a_reply_gives_up_after_its_retries(tg: FakeTelegram):
    stepped = SteppedTime()

    async with make_bot(tg) as bot:
        bot.session.middleware(
            SharedLimitMiddleware(stepped.limiter(), max_retries=2, sleep=stepped.sleep)
        )
        tg.flood_wait(retry_after=1, times=3)
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(5, "hi")
        tg.flood_wait(retry_after=120)  # longer than a user waits: not retried at all
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(5, "hi")
    assert len(tg.calls_of("sendMessage")) == 4


async def test_alerts_pass_the_middleware_untouched(tg: FakeTelegram):
    async def sleep(seconds: float) -> None:
        raise AssertionError("an alert must not be retried by the middleware")

    async with make_bot(tg) as bot:
        bot.session.middleware(SharedLimitMiddleware(Limiter(1000), sleep=sleep))
        tg.flood_wait(retry_after=3)
        token = sending_alert.set(True)
        try:
            with pytest.raises(TelegramRetryAfter):
                await bot.send_message(5, "alert")
        finally:
            sending_alert.reset(token)
