"""SQLite persistence: connection, numbered migrations and the typed Store."""

from storage.database import Database
from storage.migrations import MigrationError, migrate
from storage.store import Store

__all__ = ["Database", "MigrationError", "Store", "migrate"]
