"""How long the planner takes to answer over a market of 200 offers.

The market: 200 offers across three providers, the cards people rent, 1-8 cards a server,
hourly and monthly, stock published or not, Russian and foreign locations (seeded, so every
run plans the same market). Each question is planned `--repeat` times; the figure is the
median. The baseline, measured in the same run, is the naive planner: the same plan per offer
with nothing shared between offers (every offer re-estimates the memory and the time of its
count), which is how the answer priced offers before there was a planner.

    .venv/bin/python -m bench.planner [--offers 200] [--repeat 30]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from estimator.answer import build_answer, constraints_of
from estimator.cost import HOURS_PER_MONTH, PriceQuote
from estimator.fit import RENTED_CARDS
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.planner import Plan, Sizing, admits, plan_for, plan_runs

TARGET_MS = 20.0
QUESTIONS = (
    "13b qlora ctx=4096 dataset=20k",
    "70b qlora ctx=8192",
    "13b full dataset=50k tokens=1024",
    "8b lora ctx=2048 gpus=4 dataset=100k",
)


def market(count: int, seed: int = 7) -> list[PriceQuote]:
    rng = random.Random(seed)
    quotes = []
    for n in range(count):
        gpus = rng.choice((1, 1, 1, 2, 4, 8))
        per_card = rng.uniform(30, 500)
        monthly = rng.random() < 0.3
        country = rng.choice(("RU", "RU", "RU", "NL", "FI"))
        rate = per_card * gpus
        quotes.append(
            PriceQuote(
                gpu_id=rng.choice(RENTED_CARDS),
                gpus=gpus,
                provider=rng.choice(("Selectel", "immers.cloud", "HOSTKEY")),
                rub_per_hour=None if monthly else rate,
                rub_per_month=rate * HOURS_PER_MONTH * 0.8 if monthly else None,
                label=f"offer-{n}",
                stock_published=rng.random() < 0.6,
                location=country,
                country=country,
            )
        )
    return quotes


def naive(sizing: Sizing, quotes: list[PriceQuote], parsed_text: str) -> list[Plan]:
    parsed = understand(parsed_text)
    assert parsed is not None
    constraints = constraints_of(parsed)
    plans = [
        made
        for quote in quotes
        if admits(quote, constraints) and (made := plan_for(sizing, quote)) is not None
    ]
    return sorted(plans, key=lambda plan: plan.cost_rub or plan.rub_per_million_tokens)


def median_ms(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(text: str, quotes: list[PriceQuote], repeat: int) -> tuple[float, float, float, int]:
    """(planner ms, naive ms, whole answer ms, plans) for one question."""
    parsed = understand(text)
    assert parsed is not None
    sizing = Sizing(parsed.query, parsed.model)
    constraints = constraints_of(parsed)
    gpus = load_gpus()
    planner = median_ms(lambda: plan_runs(sizing, quotes, constraints), repeat)
    baseline = median_ms(lambda: naive(sizing, quotes, text), repeat)
    whole = median_ms(lambda: build_answer(parsed, gpus, quotes), repeat)
    return planner, baseline, whole, len(plan_runs(sizing, quotes, constraints))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    quotes = market(args.offers)
    print(f"{args.offers} offers, median of {args.repeat} runs each")
    print(f"{'question':42} {'planner':>9} {'naive':>9} {'answer':>9} plans")
    worst = 0.0
    for text in QUESTIONS:
        planner, baseline, whole, count = measure(text, quotes, args.repeat)
        worst = max(worst, planner)
        print(f"{text:42} {planner:7.2f}ms {baseline:7.2f}ms {whole:7.2f}ms {count}")
    verdict = "PASS" if worst < TARGET_MS else "FAIL"
    print(f"slowest planner answer: {worst:.2f} ms (target < {TARGET_MS:g} ms): {verdict}")


if __name__ == "__main__":
    main()
