"""Webhook updates handled once across replicas (bot.webhook_once).

Telegram POSTs each update until one delivery gets a 200 in time, and behind the proxy a
retry may reach another replica. Each update_id is claimed here before it is handled and
marked done after: whoever sees a retry of a done update answers 200 without handling it;
one still claimed is somebody's work in progress, unless its claim has lapsed (that replica
died or froze), when the retry takes it over.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from storage.sql import Database, moment_value

# Telegram keeps an undelivered update for 24 hours (Bot API, "Getting updates"): a retry
# can come no later, so a day of claims is all there is to remember.
KEEP_UPDATES = timedelta(hours=24)

Claim = Literal["mine", "done", "busy"]


class UpdateQueries:
    _db: Database

    async def claim_update(
        self, update_id: int, holder: str, now: datetime, lease: timedelta
    ) -> Claim:
        """ "mine": handle it (new, or a lapsed claim taken over); "done": handled already;
        "busy": another replica has it in hand."""
        async with self._db.write() as connection:
            dialect = connection.dialect
            taken = await connection.fetchone(
                "INSERT INTO webhook_updates (update_id, holder, claimed_at) VALUES (?, ?, ?)"
                " ON CONFLICT (update_id) DO UPDATE SET holder = excluded.holder,"
                " claimed_at = excluded.claimed_at"
                " WHERE webhook_updates.done = 0 AND webhook_updates.claimed_at < ?"
                " RETURNING holder",
                (
                    update_id,
                    holder,
                    moment_value(dialect, now),
                    moment_value(dialect, now - lease),
                ),
            )
            if taken is not None:
                return "mine"
            row = await connection.fetchone(
                "SELECT done FROM webhook_updates WHERE update_id = ?", (update_id,)
            )
        return "done" if row is not None and row[0] else "busy"

    async def finish_update(self, update_id: int, holder: str) -> None:
        """Mark the update handled (only by the replica that holds its claim)."""
        async with self._db.write() as connection:
            await connection.execute(
                "UPDATE webhook_updates SET done = 1 WHERE update_id = ? AND holder = ?",
                (update_id, holder),
            )

    async def release_update(self, update_id: int, holder: str) -> None:
        """Give a claim back undone (handling failed): Telegram's retry may take it at once."""
        async with self._db.write() as connection:
            await connection.execute(
                "DELETE FROM webhook_updates WHERE update_id = ? AND holder = ? AND done = 0",
                (update_id, holder),
            )

    async def forget_updates(self, now: datetime) -> int:
        """Delete the claims older than KEEP_UPDATES at `now` (housekeeping)."""
        async with self._db.write() as connection:
            return await connection.execute(
                "DELETE FROM webhook_updates WHERE claimed_at < ?",
                (moment_value(connection.dialect, now - KEEP_UPDATES),),
            )
