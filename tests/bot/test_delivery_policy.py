"""The delivery policy's decisions on an injected clock: floods, outages, backoffs."""

from __future__ import annotations

from aiogram.exceptions import TelegramNetworkError, TelegramUnauthorizedError
from aiogram.methods import GetMe

from bot.delivery.policy import FLOOD_WINDOW_S, DeliveryPolicy, Flood


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_429_is_the_chats_until_a_second_chat_gets_one_within_the_window() -> None:
    clock = Clock()
    policy = DeliveryPolicy(clock=clock, flood_cap=30.0)
    assert policy.flood(1, 5) == Flood(None, retry_now=False)
    clock.now += FLOOD_WINDOW_S
    assert policy.flood(2, 5) == Flood(5.0, retry_now=True)
    # Past the cap: every send waits the cap, and the message goes back to the outbox.
    assert policy.flood(3, 90) == Flood(30.0, retry_now=False)
    clock.now += FLOOD_WINDOW_S + 0.1
    policy.forget_old_floods()
    assert policy.flood(4, 5) == Flood(None, retry_now=False)


def test_two_chats_failing_at_the_transport_mean_telegram_is_down() -> None:
    policy = DeliveryPolicy(clock=Clock())
    error = TelegramNetworkError(GetMe(), "reset")
    assert policy.telegram_down(1, error) is None  # one chat: its own failure
    assert policy.telegram_down(2, error) == 1.0
    assert policy.telegram_down(3, error) == 2.0  # the pause doubles while it lasts
    policy.accepted()
    assert policy.telegram_down(1, error) is None
    assert policy.telegram_down(1, TelegramUnauthorizedError(GetMe(), "401")) == 1.0


def test_a_chat_backs_off_doubling_up_to_the_cap_and_is_given_up_after_max_attempts() -> None:
    policy = DeliveryPolicy(clock=Clock(), max_attempts=5, backoff_base=2.0, backoff_cap=10.0)
    assert [policy.backoff(tries) for tries in range(1, 6)] == [2.0, 4.0, 8.0, 10.0, None]
