"""Container health probe: exit 0 when the bot's database is reachable and migrated.

Used by the Dockerfile's HEALTHCHECK until the HTTP /healthz endpoint exists. It reads the
same settings as the bot, opens the database read-only, and never prints secrets.
"""

from __future__ import annotations

import sqlite3
import sys

from bot.config import ConfigError, load_settings


def main() -> int:
    try:
        settings = load_settings()
        uri = f"file:{settings.db_path}?mode=ro"
        with sqlite3.connect(uri, uri=True, timeout=2) as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
    except (ConfigError, sqlite3.Error) as error:
        print(f"unhealthy: {error}", file=sys.stderr)
        return 1
    if version < 1:
        print("unhealthy: database is not migrated", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
