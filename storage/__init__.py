"""Persistence on SQLite or PostgreSQL: one connection interface, numbered migrations, the
typed Store."""

from storage.migrations import MigrationError, migrate
from storage.store import Store

__all__ = ["MigrationError", "Store", "migrate"]
