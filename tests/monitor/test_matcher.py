"""The live match index follows every change in the database without a rebuild."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import monitor.matcher
from monitor.events import Event, EventKind
from monitor.match_index import MatchIndex
from monitor.matcher import LiveMatcher
from monitor.offers import StockState
from monitor.subscriptions import Subscription, WatchEdit
from monitor.watch_words import parse_watch
from storage import Store
from storage.subscriptions import Undecoded
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
H100 = Event(
    EventKind.APPEARED,
    make_offer("h", 300.0, gpu="H100 SXM"),
    T0,
    old_stock=StockState.OUT_OF_STOCK,
)


class CountingStore(Store):
    """The real store, counting full reloads (each starts at the first page)."""

    full_reloads = 0

    async def active_subscriptions_lazily(
        self, after: int = 0, limit: int | None = None
    ) -> Undecoded:
        self.full_reloads += after == 0
        return await super().active_subscriptions_lazily(after, limit)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[CountingStore]:
    opened = await CountingStore.open(tmp_path / "w.sqlite3")
    assert isinstance(opened, CountingStore)
    for chat in (1, 2):
        await opened.ensure_user(chat, language="ru", timezone="UTC", now=T0)
    yield opened
    await opened.close()


async def matched(matcher: LiveMatcher) -> list[int]:
    await matcher.prepare()
    return sorted(alert.subscription_id for alert in matcher.match([H100], T0))


async def test_changes_are_replayed_not_rebuilt(store: CountingStore):
    matcher = LiveMatcher(store)
    first = await store.add_subscription(1, parse_watch("h100"))
    assert await matched(matcher) == [first.id]
    assert store.full_reloads == 1

    second = await store.add_subscription(2, parse_watch("h100"))
    assert await matched(matcher) == [first.id, second.id]
    await store.edit_watch(1, first.id, WatchEdit(paused=True))
    assert await matched(matcher) == [second.id]
    await store.edit_watch(2, second.id, WatchEdit.new_cap(100))  # under the offer's price now
    assert await matched(matcher) == []
    await store.edit_watch(1, first.id, WatchEdit(paused=False))
    await store.delete_watch(2, second.id)
    assert await matched(matcher) == [first.id]

    # A 403 blocks the user and pauses their subscriptions; any update from them resumes.
    await store.block(1)
    assert await matched(matcher) == []
    await store.unblock(1)
    assert await matched(matcher) == [first.id]
    assert store.full_reloads == 1


async def test_a_reader_behind_the_pruning_reloads(store: CountingStore):
    matcher = LiveMatcher(store)
    sub = await store.add_subscription(1, parse_watch("h100"))
    assert await matched(matcher) == [sub.id]
    for _ in range(3):
        await store.mute(1, sub.id, None)
    await store.prune_subscription_changes(keep=1)
    assert await matched(matcher) == [sub.id]
    assert store.full_reloads == 2


@contextlib.asynccontextmanager
async def counting_turns() -> AsyncIterator[Callable[[], int]]:
    """Inside: another task (a reply's handler, say) that counts the loop's turns it gets."""
    turns = 0

    async def elsewhere() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(elsewhere())
    try:
        yield lambda: turns
    finally:
        other.cancel()


async def test_the_index_loads_page_by_page_letting_others_run_between(
    store: CountingStore, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(monitor.matcher, "LOAD_PAGE", 2)
    subs = [await store.add_subscription(1 + n % 2, parse_watch("h100")) for n in range(5)]
    matcher = LiveMatcher(store)
    async with counting_turns() as turns:
        assert await matched(matcher) == [sub.id for sub in subs]
    assert turns() >= 3  # one page after another, with the loop's turns between them


async def test_a_page_is_decoded_and_filed_a_slice_at_a_time(
    store: CountingStore, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(monitor.matcher, "TURN_S", 0.0)  # a turn after every subscription
    subs = [await store.add_subscription(1 + n % 2, parse_watch("h100")) for n in range(5)]
    seen: list[int] = []  # the other task's turns, at each subscription filed
    add = MatchIndex.add
    async with counting_turns() as turns:

        def watched(index: MatchIndex, sub: Subscription) -> None:
            seen.append(turns())
            add(index, sub)

        monkeypatch.setattr(MatchIndex, "add", watched)
        assert await matched(LiveMatcher(store)) == [sub.id for sub in subs]
    assert len(seen) == len(subs)  # one page, read once
    assert all(later > earlier for earlier, later in itertools.pairwise(seen))


async def test_the_loaded_shelves_are_sorted_with_the_loops_turns_between_them(
    store: CountingStore, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(monitor.matcher, "TURN_S", 0.0)  # a turn after every shelf
    watches = ("h100 до 400", "a100 до 200", "4090 до 90")  # three buckets, nine shelves
    subs = [await store.add_subscription(1, parse_watch(words)) for words in watches]
    seen: list[int] = []  # the other task's turns, at each shelf sorted
    sorting = MatchIndex.sorting
    async with counting_turns() as turns:

        def watched(index: MatchIndex) -> Iterator[None]:
            for step in sorting(index):
                seen.append(turns())
                yield step

        monkeypatch.setattr(MatchIndex, "sorting", watched)
        await LiveMatcher(store).prepare()
    assert len(seen) == 3 * len(subs)
    assert all(later > earlier for earlier, later in itertools.pairwise(seen))


async def test_providers_refreshing_at_once_load_the_index_once(store: CountingStore):
    sub = await store.add_subscription(1, parse_watch("h100"))
    matcher = LiveMatcher(store)
    await asyncio.gather(*(matcher.prepare() for _ in range(3)))
    assert store.full_reloads == 1
    assert [alert.subscription_id for alert in matcher.match([H100], T0)] == [sub.id]
