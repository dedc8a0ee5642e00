"""What tests read and set in a Store that the bot never does: the rows as stored, a user
blocked outright, a write fault. Kept out of storage so that its API is what the bot uses."""

from __future__ import annotations

from collections.abc import Iterable

from monitor.diff import OfferKey, Tracked
from monitor.offers import Offer
from monitor.outbox import OutboxRow
from monitor.users import User
from storage import Store
from storage.history import read_tracked
from storage.outbox import ROW_COLUMNS, ROW_TABLES, decode_rows
from storage.sql import WriteFault


async def current_offers(store: Store, gpus: Iterable[str] | None = None) -> list[Offer]:
    """The last good snapshot of every provider (optionally only these GPU ids)."""
    wanted = None if gpus is None else set(gpus)
    return [
        item.offer
        for item in await store.observed_offers()
        if wanted is None or item.offer.gpu in wanted
    ]


async def outbox_rows(store: Store, chat_id: int | None = None) -> list[OutboxRow]:
    """Every outbox row (any status) in insertion order."""
    query = f"SELECT {ROW_COLUMNS} FROM {ROW_TABLES}"  # noqa: S608 - fixed parts
    params: tuple[int, ...] = ()
    if chat_id is not None:
        query += " WHERE outbox.chat_id = ?"
        params = (chat_id,)
    async with store._db.access() as connection:
        rows = await connection.fetchall(query + " ORDER BY outbox.id", params)
    return decode_rows(rows)


async def load_tracked(store: Store, provider: str) -> dict[OfferKey, Tracked]:
    """The provider's tracked offers, as the next refresh diffs against them."""
    async with store._db.access() as connection:
        return await read_tracked(connection, provider)


async def set_blocked(store: Store, chat_id: int, blocked: bool) -> User:
    """Mark a user blocked (or not) without pausing anything, as no bot path does."""
    async with store._db.transaction() as connection:
        changed = await connection.execute(
            "UPDATE users SET blocked = ? WHERE chat_id = ?", (int(blocked), chat_id)
        )
    if not changed:
        raise LookupError(f"no user with chat id {chat_id}")
    user = await store.get_user(chat_id)
    assert user is not None
    return user


def set_write_fault(store: Store, fault: WriteFault | None) -> None:
    """Make every write fail (tests of storage faults); None ends it."""
    store._db.write_fault = fault
