"""bot.conversation: the chat's last sizing is stored as what was stated and read back as
the same run; a row written before the typed texts (a /fit command) is still read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.conversation import Conversations
from estimator.config_query import sizing_for_config
from estimator.followup import stated_command
from estimator.model_config import read_config, spec_json
from estimator.stated_codec import is_typed
from storage import Store
from tests.estimator.test_model_config import CONFIGS
from tests.estimator.test_stated_codec import RUNS, answers, read

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("run", RUNS.values(), ids=list(RUNS))
async def test_a_remembered_sizing_reads_back_as_the_run(tmp_path: Path, run: str):
    store = await Store.open(tmp_path / "bot.sqlite3")
    try:
        conversations = Conversations(store, clock=lambda: NOW)
        parsed = read(run)
        await conversations.remember(7, parsed, "ru")
        row = await store.last_sizing(7, NOW)
        # A row from before: the /fit command of what was stated.
        await store.remember_sizing(8, stated_command(parsed), "ru", NOW)
        remembered = await conversations.last(7)
        legacy = await conversations.last(8)
    finally:
        await store.close()
    assert row is not None
    assert is_typed(row.command)
    assert remembered is not None
    assert legacy is not None
    assert answers(remembered[0]) == answers(parsed)
    assert answers(legacy[0]) == answers(parsed)


async def test_a_config_models_sizing_keeps_its_model(tmp_path: Path):
    spec = read_config(json.dumps(CONFIGS["Llama-3.1-8B"])).spec
    parsed = sizing_for_config(spec, "lora ctx=2048 dataset=10k")
    store = await Store.open(tmp_path / "bot.sqlite3")
    try:
        conversations = Conversations(store, clock=lambda: NOW)
        await conversations.remember(7, parsed, "en")
        await store.remember_sizing(8, stated_command(parsed), "en", NOW, spec_json(spec))
        remembered = await conversations.last(7)
        legacy = await conversations.last(8)
    finally:
        await store.close()
    assert remembered is not None
    assert legacy is not None
    assert remembered[0].model == spec
    assert answers(remembered[0]) == answers(parsed)
    assert answers(legacy[0]) == answers(parsed)


async def test_a_forged_or_unreadable_row_is_forgotten_not_raised(tmp_path: Path):
    store = await Store.open(tmp_path / "bot.sqlite3")
    try:
        await store.remember_sizing(7, "~1mNoSuchModel", "ru", NOW)
        await store.remember_sizing(8, "~9s13", "ru", NOW)
        conversations = Conversations(store, clock=lambda: NOW)
        assert await conversations.last(7) is None
        assert await conversations.last(8) is None
    finally:
        await store.close()
