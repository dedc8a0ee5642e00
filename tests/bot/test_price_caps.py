"""The /subs price editor's steps follow the live prices of what the watch follows."""

from __future__ import annotations

from bot.views.price_caps import CAP_STEPS, DEFAULT_CEILING, SHOWN_STEPS, cap_choices


def test_without_prices_the_steps_reach_600() -> None:
    assert cap_choices([]) == (100, 150, 200, 250, 300, 400, 600)


def test_cheap_cards_keep_the_low_steps() -> None:
    assert cap_choices([83.87, 240.0])[-1] == DEFAULT_CEILING


def test_dear_cards_reach_just_above_their_price() -> None:
    steps = cap_choices([380.0, 1240.0])
    assert steps[-1] == 1500
    assert len(steps) == SHOWN_STEPS
    assert 1000 in steps


def test_anything_dearer_than_every_step_gets_the_top_step() -> None:
    assert cap_choices([9000.0])[-1] == CAP_STEPS[-1]
