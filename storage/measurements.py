"""Each user's own measured training speed (schema/0020): one row a user, the latest."""

from __future__ import annotations

from monitor.speed_measurements import StoredSpeed
from storage.sql import Database, moment_of, moment_value


class MeasurementQueries:
    _db: Database

    async def save_speed(self, user_id: int, speed: StoredSpeed, /) -> None:
        """Keep `speed` as the user's measurement, replacing the one before."""
        async with self._db.write() as connection:
            await connection.execute(
                "INSERT INTO speed_measurements (user_id, gpu, gpus, tokens_per_second,"
                " predicted, run, measured_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET gpu = excluded.gpu,"
                " gpus = excluded.gpus, tokens_per_second = excluded.tokens_per_second,"
                " predicted = excluded.predicted, run = excluded.run,"
                " measured_at = excluded.measured_at",
                (
                    user_id,
                    speed.gpu,
                    speed.gpus,
                    speed.tokens_per_second,
                    speed.predicted,
                    speed.run,
                    moment_value(connection.dialect, speed.at),
                ),
            )

    async def speed_of(self, user_id: int, /) -> StoredSpeed | None:
        async with self._db.access() as connection:
            row = await connection.fetchone(
                "SELECT gpu, gpus, tokens_per_second, predicted, run, measured_at"
                " FROM speed_measurements WHERE user_id = ?",
                (user_id,),
            )
        if row is None:
            return None
        return StoredSpeed(
            row[0], int(row[1]), float(row[2]), float(row[3]), row[4], moment_of(row[5])
        )
