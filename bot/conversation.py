"""Each chat's last sizing answer, as the follow-ups read it (bot.routers.followup).

The sizing is stored as the text of what the user stated (estimator.stated_codec), with the
language it was answered in (and, for a model from a config.json, the model's shapes:
estimator.model_config.spec_json, since no text names that model), for
monitor.sizing_memory.REMEMBER_FOR. A row written before the typed texts holds a /fit command
(estimator.followup.stated_command): it is still read, through the grammar. A sizing is
remembered just before its answer goes out, so that no reply to the answer can come before
it. If the database fails then, the answer still goes and the next reply is read on its own:
a failure is logged, never shown.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bot.ports import BotStore
from estimator.config_query import with_config_model
from estimator.fit_words import understand
from estimator.model_config import spec_from_json, spec_json
from estimator.parse import ParsedQuery, QueryError
from estimator.specs import ModelSpec
from estimator.stated_codec import is_typed, sizing, stated_text
from monitor.users import Language

logger = logging.getLogger("gpuradar.conversation")


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_language(language: str) -> Language:
    return "ru" if language == "ru" else "en"


class Conversations:
    """Remembers each answered sizing of a chat and reads back the last one."""

    def __init__(self, store: BotStore, clock: Callable[[], datetime] = utc_now) -> None:
        self._store = store
        self._clock = clock  # wall time: replicas compare each other's rows

    async def remember(self, chat_id: int, parsed: ParsedQuery, language: str) -> None:
        try:
            model = spec_json(parsed.model) if parsed.model_from_config else None
            await self._store.remember_sizing(
                chat_id, stated_text(parsed), as_language(language), self._clock(), model
            )
        except Exception:
            logger.warning("could not remember the sizing of chat %s", chat_id, exc_info=True)

    async def last(self, chat_id: int) -> tuple[ParsedQuery, Language] | None:
        """The chat's last sizing and its language, unless expired or unreadable now."""
        try:
            remembered = await self._store.last_sizing(chat_id, self._clock())
        except Exception:
            logger.warning("could not read the sizing of chat %s", chat_id, exc_info=True)
            return None
        if remembered is None:
            return None
        try:
            model = spec_from_json(remembered.model) if remembered.model is not None else None
            if is_typed(remembered.command):
                parsed: ParsedQuery | None = sizing(remembered.command, model)
            else:
                parsed = _legacy_sizing(remembered.command, model)
        except (QueryError, ValueError):  # StatedCodecError is one
            parsed = None  # the catalog changed under it (a GPU or model renamed)
        if parsed is None:
            return None
        return parsed, remembered.language


def _legacy_sizing(command: str, model: ModelSpec | None) -> ParsedQuery | None:
    """A row written before the typed texts: a /fit command (on the stand-in size for a
    config's model), read by the grammar."""
    parsed = understand(command)
    return with_config_model(parsed, model) if parsed is not None and model is not None else parsed
