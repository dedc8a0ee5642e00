"""The same webhook update POSTed twice, to one replica or to two sharing PostgreSQL, is
handled once (bot.webhook_once): as Telegram's retry of a delivery that got no 200 in time."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from tests.bot.conftest import CHAT
from tests.bot.ops.test_server import SECRET, post_update, start_update, webhook_app
from tests.fakes.telegram import FakeTelegram
from tests.postgres import require_postgres, temporary_database


def replies(telegram: FakeTelegram) -> int:
    return sum(call.params.get("chat_id") == str(CHAT) for call in telegram.calls_of("sendMessage"))


async def test_a_retried_update_is_answered_200_and_not_handled_again(
    telegram: FakeTelegram, db_path: Path
):
    async with webhook_app(telegram, db_path) as application:
        first = await post_update(application, start_update(41), SECRET)
        again = await post_update(application, start_update(41), SECRET)
        other = await post_update(application, start_update(42), SECRET)
    assert [first[0], again[0], other[0]] == [200, 200, 200]
    assert replies(telegram) == 2  # 41 once, 42 once


async def test_without_the_secret_nothing_is_claimed(telegram: FakeTelegram, db_path: Path):
    async with webhook_app(telegram, db_path) as application:
        assert (await post_update(application, start_update(43), "forged"))[0] == 401
        assert (await post_update(application, start_update(43), SECRET))[0] == 200
    assert replies(telegram) == 1


async def test_a_malformed_body_with_the_secret_is_refused_400_and_claims_nothing(
    telegram: FakeTelegram, db_path: Path
):
    async with webhook_app(telegram, db_path) as application:
        assert application.ops is not None
        url = f"http://127.0.0.1:{application.ops.port}/telegram/webhook"
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        bodies = [b"{not json", b"[]", b'{"update_id": "x"}', b'{"update_id": 44, "message": 5}']
        async with aiohttp.ClientSession() as session:
            for body in bodies:
                async with session.post(url, data=body, headers=headers) as response:
                    assert response.status == 400, body
                    assert await response.json() == {"error": "not a Telegram update"}
        # Update 44 was never claimed: the real one is handled.
        assert (await post_update(application, start_update(44), SECRET))[0] == 200
    assert replies(telegram) == 1


async def test_the_same_update_to_two_replicas_at_once_is_handled_once(
    telegram: FakeTelegram, tmp_path: Path
):
    require_postgres()
    async with (
        temporary_database(migrated=True) as url,
        webhook_app(telegram, tmp_path / "a.db", database_url=url, replica_id="a") as a,
        webhook_app(telegram, tmp_path / "b.db", database_url=url, replica_id="b") as b,
    ):
        update = start_update(77)
        answers = await asyncio.gather(
            post_update(a, update, SECRET), post_update(b, update, SECRET)
        )
        statuses = sorted(status for status, _ in answers)
        # One handled it (200); the other found it handled (200) or in hand (503, which makes
        # Telegram try again later): that retry finds it done.
        assert statuses in ([200, 200], [200, 503])
        for replica in (a, b):
            assert (await post_update(replica, update, SECRET))[0] == 200
    assert replies(telegram) == 1
