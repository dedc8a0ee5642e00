"""Alert subscriptions: add within the per-user limit, list, pause, mute, edit, delete.

Every change is scoped by chat id as well as subscription id: a button press carries an id a
user could forge, and it must never touch someone else's subscription.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from monitor.subscriptions import (
    AlertKind,
    Subscription,
    WatchEdit,
    WatchFilter,
    check_room,
    cooldown_for,
    with_max_price,
)
from storage.sql import (
    Connection,
    Database,
    Row,
    in_list,
    list_value,
    moment_value,
    optional_moment,
    scalar,
)

_FORMAT = 1  # bumped if the JSON shape ever changes incompatibly
_COLUMNS = "id, chat_id, filter, cooldown_s, paused, muted_until"
_ACTIVE = "paused = 0 AND chat_id IN (SELECT chat_id FROM users WHERE blocked = 0)"
# A 403 pauses what runs and marks it; the user's return resumes exactly that (Store.unblock).
PAUSE_FOR_BLOCK = (
    "UPDATE subscriptions SET paused = 1, paused_by_block = 1 WHERE chat_id = ? AND paused = 0"
)
RESUME_AFTER_BLOCK = (
    "UPDATE subscriptions SET paused = 0, paused_by_block = 0"
    " WHERE chat_id = ? AND paused_by_block = 1"
)


def filter_to_json(watch: WatchFilter) -> str:
    data: dict[str, Any] = {
        "v": _FORMAT,
        "gpu": watch.gpu,
        "family": watch.family,
        "min_count": watch.min_count,
        "min_vram_gb": watch.min_vram_gb,
        "min_total_vram_gb": watch.min_total_vram_gb,
        "max_rub_per_gpu_hour": watch.max_rub_per_gpu_hour,
        "providers": sorted(watch.providers),
        "location": watch.location,
        "kinds": sorted(kind.value for kind in watch.kinds),
        "fit_query": watch.fit_query,
        "fit_need": None if watch.fit_need is None else dict(watch.fit_need),
        "cooldown_s": watch.cooldown_s,
        "job_hours": None
        if watch.job_hours is None
        else {gpu: {str(n): h for n, h in hours.items()} for gpu, hours in watch.job_hours.items()},
        "max_job_rub": watch.max_job_rub,
    }
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def filter_from_json(text: str) -> WatchFilter:
    data = json.loads(text)
    if data.get("v") != _FORMAT:
        raise ValueError(f"unknown subscription filter format {data.get('v')!r}")
    need = data.get("fit_need")
    job = data.get("job_hours")
    return WatchFilter(
        # Interned: the index holds these names once, not once per subscription.
        gpu=_interned(data.get("gpu")),
        family=_interned(data.get("family")),
        min_count=data.get("min_count"),
        min_vram_gb=data.get("min_vram_gb"),
        min_total_vram_gb=data.get("min_total_vram_gb"),
        max_rub_per_gpu_hour=data.get("max_rub_per_gpu_hour"),
        providers=frozenset(data.get("providers", ())),
        location=_interned(data.get("location")),
        kinds=frozenset(AlertKind(kind) for kind in data.get("kinds", ())),
        fit_query=data.get("fit_query"),
        fit_need=None if need is None else {str(k): int(v) for k, v in need.items()},
        cooldown_s=data.get("cooldown_s"),
        job_hours=None if job is None else _job_hours(job),
        max_job_rub=data.get("max_job_rub"),
    )


def _interned(text: str | None) -> str | None:
    return None if text is None else sys.intern(text)


def _job_hours(data: dict[str, dict[str, float]]) -> dict[str, dict[int, float]]:
    return {str(gpu): {int(n): float(h) for n, h in hours.items()} for gpu, hours in data.items()}


def _from_row(row: Row) -> Subscription:
    return Subscription(
        id=row["id"],
        chat_id=row["chat_id"],
        filter=filter_from_json(row["filter"]),
        cooldown_s=row["cooldown_s"],
        paused=bool(row["paused"]),
        muted_until=optional_moment(row["muted_until"]),
    )


class Undecoded(Collection[Subscription]):
    """Stored subscriptions, each decoded as it is iterated (and anew at each iteration)."""

    __slots__ = ("_rows",)

    def __init__(self, rows: list[Row]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Subscription]:
        return map(_from_row, self._rows)

    def __contains__(self, item: object) -> bool:
        return isinstance(item, Subscription) and item in list(self)


class SubscriptionQueries:
    _db: Database

    async def add_subscription(
        self,
        chat_id: int,
        watch: WatchFilter,
        cooldown_s: int | None = None,
        *,
        now: datetime | None = None,
    ) -> Subscription:
        """Store a new subscription with monitor's cooldown (`cooldown_for`). Raises
        SubscriptionLimitError at MAX_SUBSCRIPTIONS (`check_room`)."""
        cooldown = cooldown_for(watch, cooldown_s)
        # Count and insert in one write transaction, so two quick /watch can't both squeeze in.
        async with self._db.transaction() as connection:
            if connection.dialect == "postgresql":
                # Two replicas' transactions would both count 19 and both insert: the user's
                # row lock orders them (SQLite's one writer already does).
                await connection.execute(
                    "SELECT 1 FROM users WHERE chat_id = ? FOR UPDATE", (chat_id,)
                )
            count = await scalar(
                connection, "SELECT count(*) FROM subscriptions WHERE chat_id = ?", (chat_id,)
            )
            check_room(chat_id, count)
            created = moment_value(connection.dialect, now or datetime.now(UTC))
            sub_id = await scalar(
                connection,
                "INSERT INTO subscriptions (chat_id, gpu, family, filter, cooldown_s, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (chat_id, watch.gpu, watch.family, filter_to_json(watch), cooldown, created),
            )
        return Subscription(sub_id, chat_id, watch, cooldown_s=cooldown)

    async def subscriptions_of(self, chat_id: int) -> list[Subscription]:
        """The user's subscriptions, oldest first (the numbering /subs shows)."""
        return await self._select("WHERE chat_id = ? ORDER BY id", (chat_id,))

    async def get_subscription(self, sub_id: int) -> Subscription | None:
        found = await self._select("WHERE id = ?", (sub_id,))
        return found[0] if found else None

    async def active_subscriptions(
        self, after: int = 0, limit: int | None = None
    ) -> list[Subscription]:
        """Everything the match index needs at start-up: not paused, user not blocked.
        Muted ones are included; a mute ends by itself and matching checks it.

        By id; with `limit`, the page of at most that many after id `after`."""
        return list(await self.active_subscriptions_lazily(after, limit))

    async def active_subscriptions_lazily(
        self, after: int = 0, limit: int | None = None
    ) -> Undecoded:
        """`active_subscriptions`, each decoded only as it is iterated: decoding is most of
        the index's load, which the loader spreads over turns of the event loop, letting
        replies in between (monitor.matcher)."""
        where = f"WHERE {_ACTIVE} AND id > ? ORDER BY id"
        params: tuple[object, ...] = (after,)
        if limit is not None:
            where, params = f"{where} LIMIT ?", (after, limit)
        async with self._db.access() as connection:
            return Undecoded(await self._rows(connection, where, params))

    async def active_subscriptions_among(self, ids: Collection[int]) -> list[Subscription]:
        """The active ones (as `active_subscriptions` means it) of these ids."""
        dialect = self._db.dialect
        return await self._select(
            f"WHERE {_ACTIVE} AND id {in_list(dialect)} ORDER BY id",
            (list_value(dialect, sorted(ids)),),
        )

    async def subscription_changes(self, after: int | None) -> tuple[int, set[int] | None]:
        """The last change's number, and the subscriptions changed after change `after`.

        The set is None when `after` is None or the changes after it were pruned already:
        the reader reloads everything. The number is read first, so a change made while the
        reader reloads is replayed next time rather than missed (replaying is harmless).
        """
        async with self._db.access() as connection:
            # Two subqueries: SQLite answers a lone max() or min() from the key's ends, but
            # both in one SELECT scan the whole log.
            row = await connection.fetchone(
                "SELECT coalesce((SELECT max(seq) FROM subscription_changes), 0),"
                " (SELECT min(seq) FROM subscription_changes)"
            )
            latest, oldest = (0, None) if row is None else (int(row[0]), row[1])
            if after is None or after > latest or (oldest is not None and oldest > after + 1):
                return latest, None
            rows = await connection.fetchall(
                "SELECT DISTINCT subscription_id FROM subscription_changes WHERE seq > ?",
                (after,),
            )
        return latest, {int(row[0]) for row in rows}

    async def prune_subscription_changes(self, keep: int = 10_000) -> int:
        """Forget all but the last `keep` changes (a reader further behind reloads)."""
        async with self._db.transaction() as connection:
            return await connection.execute(
                "DELETE FROM subscription_changes"
                " WHERE seq <= (SELECT max(seq) FROM subscription_changes) - ?",
                (keep,),
            )

    async def mute(self, chat_id: int, sub_id: int, until: datetime | None) -> bool:
        """Silence one subscription until `until` (None lifts a mute)."""
        value = None if until is None else moment_value(self._db.dialect, until)
        return await self._change(
            "UPDATE subscriptions SET muted_until = ?", chat_id, sub_id, (value,)
        )

    async def edit_watch(self, chat_id: int, sub_id: int, edit: WatchEdit) -> Subscription | None:
        """Pause or resume a chat's watch and/or set its price cap, in one transaction; the
        watch as it now is, or None when it is not this chat's. A user's own pause or resume
        is never undone by an unblock (it clears the block's mark)."""
        async with self._db.transaction() as connection:
            # Read, change, write: on PostgreSQL the row is locked so that two replicas'
            # edits cannot both start from the old filter (SQLite's one writer orders them).
            lock = " FOR UPDATE" if connection.dialect == "postgresql" else ""
            row = await connection.fetchone(
                f"SELECT {_COLUMNS} FROM subscriptions WHERE id = ? AND chat_id = ?{lock}",  # noqa: S608
                (sub_id, chat_id),
            )
            if row is None:
                return None
            sub = _from_row(row)
            if edit.cap_changed:
                sub = replace(sub, filter=with_max_price(sub.filter, edit.cap))
            paused = sub.paused if edit.paused is None else edit.paused
            sub = replace(sub, paused=paused)
            await connection.execute(
                "UPDATE subscriptions SET filter = ?, paused = ?,"
                " paused_by_block = CASE WHEN ? THEN 0 ELSE paused_by_block END WHERE id = ?",
                (filter_to_json(sub.filter), int(paused), edit.paused is not None, sub_id),
            )
        return sub

    async def _select(self, where: str, params: tuple[object, ...]) -> list[Subscription]:
        async with self._db.access() as connection:
            rows = await self._rows(connection, where, params)
        return [_from_row(row) for row in rows]

    @staticmethod
    async def _rows(connection: Connection, where: str, params: tuple[object, ...]) -> list[Row]:
        return await connection.fetchall(
            f"SELECT {_COLUMNS} FROM subscriptions {where}",  # noqa: S608 - fixed clauses
            params,
        )

    async def _change(
        self, statement: str, chat_id: int, sub_id: int, values: tuple[object, ...]
    ) -> bool:
        """Run `statement` on one subscription of this user; False when there is none."""
        async with self._db.transaction() as connection:
            changed = await connection.execute(
                f"{statement} WHERE id = ? AND chat_id = ?",
                (*values, sub_id, chat_id),
            )
        return changed > 0
