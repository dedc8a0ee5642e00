"""bench/scrape.py's pieces: the big inputs are what the figures claim, the scrapers read them,
and the stall probe sees a loop that is held."""

from __future__ import annotations

import asyncio
import time

from bench.scrape import BIG, LINKS, max_stall_ms, parse_on_the_loop, scrape_big


def test_the_big_inputs_are_5_mb_with_40000_links_or_rows():
    for big in BIG:
        body = big.build(LINKS)
        assert 4.5e6 < len(body) < 6.5e6, big.provider


async def test_each_provider_scrapes_its_big_input_in_small():
    outcomes = {big.label: (await scrape_big(big, big.build(200)))[0] for big in BIG}
    assert outcomes == {
        "selectel": "21 offers",
        "hostkey": "24 offers",
        "immers": "LayoutError (refused)",  # 200 distinct model pages: over the cap
        "immers*": "15 offers",  # 200 links to the 7 real models
    }


async def test_the_probe_sees_a_held_loop():
    async def hold() -> None:
        time.sleep(0.03)  # noqa: ASYNC251 - holding the loop is the point

    assert await max_stall_ms(hold()) >= 29


async def test_the_baseline_runs_to_thread_work_on_the_loop():
    with parse_on_the_loop():
        assert await max_stall_ms(asyncio.to_thread(time.sleep, 0.03)) >= 29
