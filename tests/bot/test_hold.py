"""The hold queue, the held offset and the replay, with injected sleeps (no waiting)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from aiogram.methods import GetUpdates, SendMessage, TelegramMethod
from aiogram.types import Chat, Message, Update

from bot.hold import HELD_POLL_S, HeldOffset, HoldQueue
from bot.middlewares.hold import REPLAY_KEY, STILL_UNAVAILABLE
from bot.replay import MAX_TRIES, Replayer


def update(update_id: int, chat_id: int) -> Update:
    message = Message(
        message_id=update_id,
        date=datetime(2030, 1, 1, tzinfo=UTC),
        chat=Chat(id=chat_id, type="private"),
        text="/help",
    )
    return Update(update_id=update_id, message=message)


def test_a_chat_keeps_its_order_and_is_told_once_until_answered():
    queue = HoldQueue()
    first, second, other = update(1, 10), update(2, 10), update(3, 20)
    for held in (first, second, other):
        assert queue.hold(held.message.chat.id, held)  # type: ignore[union-attr]
    assert queue.first_telling(10)
    assert not queue.first_telling(10)
    assert [(chat, held.update_id) for chat, held in queue.heads()] == [(10, 1), (20, 3)]
    queue.answered(10, first)
    assert [(chat, held.update_id) for chat, held in queue.heads()] == [(10, 2), (20, 3)]
    queue.answered(10, second)
    assert not queue.holds_chat(10)
    assert queue.first_telling(10)  # a new outage: told again


def test_the_queue_is_bounded():
    queue = HoldQueue(limit=2)
    assert queue.hold(10, update(1, 10))
    assert queue.hold(20, update(2, 20))
    assert not queue.hold(30, update(3, 30))
    assert len(queue) == 2


def test_an_answered_update_is_known_until_telegram_was_told():
    queue = HoldQueue()
    held = update(5, 10)
    queue.hold(10, held)
    queue.answered(10, held)
    assert queue.knows(5)  # Telegram may deliver it again: not handled twice
    queue.confirm(6)
    assert not queue.knows(5)


def test_stopping_the_poll_lets_go_of_what_telegram_still_keeps():
    queue = HoldQueue()
    queue.confirm(3)  # update 2 was confirmed before its handler failed; 4 was not
    queue.hold(10, update(2, 10))
    queue.hold(10, update(4, 10))
    queue.hold(20, update(5, 20))
    assert queue.release_unconfirmed() == 2
    assert [held.update_id for _, held in queue.heads()] == [2]
    assert not queue.holds_chat(20)


class Requests:
    def __init__(self) -> None:
        self.sent: list[TelegramMethod[Any]] = []

    async def __call__(self, bot: Any, method: TelegramMethod[Any]) -> Any:
        self.sent.append(method)
        return []


class Sleeps:
    """An injected clock: each sleep moves it on, and runs the next of `during` (what happens
    meanwhile)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.during: list[Any] = []

    async def __call__(self, seconds: float) -> None:
        self.now += seconds
        if self.during:
            self.during.pop(0)()


async def test_the_poll_never_confirms_a_held_update_and_waits_between_calls():
    queue, requests, sleeps = HoldQueue(), Requests(), Sleeps()
    offset = HeldOffset(queue, sleeps)
    await offset(requests, None, GetUpdates(offset=7))  # type: ignore[arg-type]
    assert sleeps.now == 0.0  # nothing held: aiogram's own long poll
    queue.hold(10, update(8, 10))
    polled = GetUpdates(offset=12)
    await offset(requests, None, polled)  # type: ignore[arg-type]
    assert [getattr(method, "offset", None) for method in requests.sent] == [7, 8]
    assert polled.offset == 12  # aiogram's own, for when the hold empties
    assert sleeps.now == HELD_POLL_S
    assert queue.confirmed_below == 8
    await offset(requests, None, SendMessage(chat_id=1, text="hi"))  # type: ignore[arg-type]
    assert sleeps.now == HELD_POLL_S  # only getUpdates waits


class Feed:
    """The dispatcher's feed_update: storage fails the updates whose ids are in `failing`."""

    def __init__(self) -> None:
        self.fed: list[tuple[int, str]] = []
        self.failing: set[int] = set()
        self.three_fed = asyncio.Event()

    async def feed_update(self, bot: Any, fed: Update, **kwargs: Any) -> Any:
        self.fed.append((fed.update_id, kwargs[REPLAY_KEY]))
        if len(self.fed) == 3:
            self.three_fed.set()
        return STILL_UNAVAILABLE if fed.update_id in self.failing else None


def replayer(queue: HoldQueue, feed: Feed, probe: Any, sleeps: Sleeps) -> Replayer:
    return Replayer(queue, feed, None, probe, (OSError,), every_s=1.0, sleep=sleeps)  # type: ignore[arg-type]


async def test_held_updates_are_replayed_once_storage_answers_the_probe():
    queue, feed, sleeps = HoldQueue(), Feed(), Sleeps()
    down = [True]

    async def probe() -> None:
        if down[0]:
            raise ConnectionRefusedError("PostgreSQL is stopped")

    for held in (update(1, 10), update(2, 20), update(3, 10)):
        queue.hold(held.message.chat.id, held)  # type: ignore[union-attr]
    stop = asyncio.Event()
    sleeps.during = [lambda: None, lambda: None, lambda: down.__setitem__(0, False)]
    task = asyncio.create_task(replayer(queue, feed, probe, sleeps).run(stop))
    await asyncio.wait_for(feed.three_fed.wait(), 5)
    stop.set()
    await task
    assert sleeps.now == 3.0  # three probes a second apart failed, the fourth answered
    assert len(queue) == 0
    assert [update_id for update_id, _ in feed.fed] == [1, 2, 3]  # chat 10's in order


async def test_an_update_storage_keeps_failing_is_given_up_after_its_tries():
    queue, feed, sleeps = HoldQueue(), Feed(), Sleeps()

    async def probe() -> None:
        return None

    queue.hold(10, update(1, 10))
    queue.hold(10, update(2, 10))
    feed.failing = {1}
    replay = replayer(queue, feed, probe, sleeps)
    for _ in range(MAX_TRIES - 1):
        assert not await replay.replay_once()
    assert [held.update_id for _, held in queue.heads()] == [1]  # chat 10's next one waits
    feed.failing = set()
    assert await replay.replay_once()
    assert feed.fed[-2:] == [(1, "last"), (2, "retry")]


@pytest.mark.parametrize("error", [OSError, TimeoutError])
async def test_a_probe_that_fails_replays_nothing(error: type[Exception]):
    queue, feed = HoldQueue(), Feed()

    async def probe() -> None:
        raise error("down")

    queue.hold(10, update(1, 10))
    replay = Replayer(queue, feed, None, probe, (OSError, TimeoutError))  # type: ignore[arg-type]
    assert not await replay.replay_once()
    assert feed.fed == []
