"""monitor.watch_words: the /watch grammar both ways, and its errors."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from estimator import gpus
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.followup import stated_command
from estimator.gpus import load_gpus
from estimator.parse import QueryError
from monitor.providers import PROVIDERS
from monitor.subscriptions import AlertKind, WatchFilter
from monitor.watch_words import canonical, parse_watch, watch_for_run_cost

IN, DROP, BELOW = AlertKind.IN_STOCK, AlertKind.PRICE_DROP, AlertKind.BELOW_TARGET


def fields(watch: WatchFilter) -> dict[str, object]:
    """The filter without the fit table (checked on its own)."""
    out: dict[str, object] = {
        "gpu": watch.gpu,
        "family": watch.family,
        "count": watch.min_count,
        "vram": watch.min_vram_gb,
        "total": watch.min_total_vram_gb,
        "max": watch.max_rub_per_gpu_hour,
        "providers": set(watch.providers),
        "location": watch.location,
        "kinds": set(watch.kinds),
        "fit": watch.fit_query,
        "cooldown": watch.cooldown_s,
    }
    return {key: value for key, value in out.items() if value not in (None, set())}


# --- the four examples from the issue ---------------------------------------------------


def test_issue_h100_is_the_family():
    assert fields(parse_watch("/watch h100")) == {"family": "H100", "kinds": {IN}}


def test_issue_a100_80gb_under_250():
    assert fields(parse_watch("a100 80gb max=250")) == {
        "family": "A100",
        "vram": 80,
        "max": 250,
        "kinds": {IN, BELOW},
    }


def test_issue_fit_70b_qlora():
    watch = parse_watch("/watch 70b qlora ctx=8192 max=400")
    assert fields(watch) == {"fit": "70b qlora ctx=8192", "max": 400, "kinds": {IN, BELOW}}
    parsed = understand("70b qlora ctx=8192")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus())
    expected = {row.gpu.id: row.min_gpus for row in answer.table if row.min_gpus is not None}
    assert dict(watch.fit_need or {}) == expected
    assert watch.fit_need is not None
    assert watch.fit_need["H200"] == 1
    assert "RTX 4090" not in watch.fit_need  # 8 of them still can't hold it
    assert watch.fit_need["A100 40GB PCIe"] > 1  # several cards, sharded


def test_issue_4090_at_immers():
    assert fields(parse_watch("4090 provider=immers")) == {
        "gpu": "RTX 4090",
        "providers": {"immers"},
        "kinds": {IN},
    }


# --- more phrasings -----------------------------------------------------------------------

PHRASINGS: list[tuple[str, dict[str, object]]] = [
    ("H100 SXM", {"gpu": "H100 SXM"}),
    ("h100 nvl", {"gpu": "H100 NVL"}),
    ("NVIDIA A100-SXM4-80GB", {"gpu": "A100 80GB SXM"}),
    ("a100-80", {"family": "A100", "vram": 80}),
    ("rtx 4090 max=300", {"gpu": "RTX 4090", "max": 300}),
    ("т4", {"gpu": "T4"}),  # Cyrillic т on a Russian keyboard
    ("а100 80гб макс=250", {"family": "A100", "vram": 80, "max": 250}),
    ("h100 до 250₽", {"family": "H100", "max": 250}),
    ("H100 до 250 ₽/ч", {"family": "H100", "max": 250}),
    ("h200 под 400 руб", {"gpu": "H200", "max": 400}),
    ("l40s не дороже 150", {"gpu": "L40S", "max": 150}),
    ("4090 under 90", {"gpu": "RTX 4090", "max": 90}),
    ("4090 max=1,5k", {"gpu": "RTX 4090", "max": 1500}),
    ("rtx 4090 120₽", {"gpu": "RTX 4090", "max": 120}),
    ("8x h100", {"family": "H100", "count": 8}),
    ("2×4090", {"gpu": "RTX 4090", "count": 2}),
    ("h100 x8", {"family": "H100", "count": 8}),
    ("4 карты a100", {"family": "A100", "count": 4}),
    ("a100 count=4 total_vram=320", {"family": "A100", "count": 4, "total": 320}),
    ("80гб до 200₽", {"vram": 80, "max": 200}),
    ("vram=48gb max=100", {"vram": 48, "max": 100}),
    ("4090 иммерс", {"gpu": "RTX 4090", "providers": {"immers"}}),
    (
        "4090 provider=immers.cloud,селектел",
        {"gpu": "RTX 4090", "providers": {"immers", "selectel"}},
    ),
    ("l4 провайдер=хосткей", {"gpu": "L4", "providers": {"hostkey"}}),
    ("h100 location=MSK", {"family": "H100", "location": "MSK"}),
    ("h100 где=москва", {"family": "H100", "location": "москва"}),
    ("h100 в наличии", {"family": "H100"}),
    ("h100 cooldown=30m", {"family": "H100", "cooldown": 1800}),
    ("h100 кулдаун=2ч", {"family": "H100", "cooldown": 7200}),
    ("h100 cooldown=1d", {"family": "H100", "cooldown": 86400}),
    ("gpu=a100-80", {"family": "A100", "vram": 80}),
    ("карта=h200 max=500", {"gpu": "H200", "max": 500}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASINGS)
def test_phrasings(text: str, expected: dict[str, object]):
    expected = dict(expected)
    expected.setdefault("kinds", {IN, BELOW} if "max" in expected else {IN})
    assert fields(parse_watch(text)) == expected


def test_kinds():
    watch = parse_watch("h100 kinds=price_drop,below_target max=300")
    assert watch.kinds == {DROP, BELOW}
    assert parse_watch("h100 события=снижение").kinds == {DROP}
    assert parse_watch("h100 max=300 kinds=in_stock").kinds == {IN}


def test_fit_in_russian_and_with_a_gpu():
    watch = parse_watch("llama 3 70b с лорой на 8к контексте")
    assert watch.fit_need is not None
    assert "H200" in watch.fit_need
    assert "с" not in (watch.fit_query or "").split()
    both = parse_watch("70b qlora ctx=8192 на h100 до 400₽")
    assert fields(both) == {
        "family": "H100",
        "fit": "70b qlora ctx=8192",
        "max": 400,
        "kinds": {IN, BELOW},
    }


def test_whatever_fits():
    watch = parse_watch("whatever fits 70b qlora ctx=8192 under 400")
    assert (watch.fit_query, watch.max_rub_per_gpu_hour) == ("70b qlora ctx=8192", 400)


def test_fit_gpus_key_is_the_offer_size():
    watch = parse_watch("13b full gpus=8")
    assert watch.min_count == 8
    assert watch.fit_need


# --- errors -------------------------------------------------------------------------------

ERRORS = [
    ("", "empty", ""),
    ("/watch", "empty", ""),
    ("   ", "empty", ""),
    ("h1000", "unknown_gpu", "h1000"),
    ("5080 super", "unknown_gpu", "5080 super"),
    ("gpu=voodoo", "unknown_gpu", "voodoo"),
    ("h100 max=abc", "bad_value", "max=abc"),
    ("h100 max=0", "bad_value", "max=0"),
    ("h100 count=1.5", "bad_value", "count=1.5"),
    ("h100 provider=aws", "bad_value", "provider=aws"),
    ("h100 kinds=sometimes", "bad_value", "kinds=sometimes"),
    ("h100 kinds=below_target", "bad_value", "kinds=below_target"),
    ("h100 cooldown=5", "bad_value", "cooldown=5"),
    ("h100 cooldown=90d", "bad_value", "cooldown=90d"),
    ("h100 h200", "bad_value", "h100, h200"),
    ("h100 foo=1", "unknown_key", "foo"),
    ("provider=immers", "no_filter", "provider=immers"),
    ("kinds=price_drop", "no_filter", "kinds=price_drop"),
    ("qlora", "fit_error", "qlora"),
    ("70b qlora ctx=8192 foo", "fit_error", "foo"),
    ("70b qlora ctx=abc", "fit_error", "abc"),
    ("13b lora ctx=99999999", "fit_error", None),
]


@pytest.mark.parametrize(("text", "code", "value"), ERRORS)
def test_errors(text: str, code: str, value: str | None):
    with pytest.raises(QueryError) as caught:
        parse_watch(text)
    assert caught.value.code == code
    if value is not None:
        assert caught.value.value == value
    assert caught.value.reason


# --- both ways ----------------------------------------------------------------------------

EXACT_GPUS = tuple(spec.id for spec in load_gpus() if gpus.resolve(spec.id) == spec.id)
# A family name that is also one card's name reads as that card, so it is no family watch.
FAMILIES = tuple(sorted({spec.family for spec in load_gpus() if gpus.resolve(spec.family) is None}))
# Parsed once: a fit watch's need and hours come from the estimator, which is slow.
FIT_WATCHES = tuple(
    parse_watch(text, narrow=False)
    for text in ("70b qlora ctx=8192", "13b lora dataset=20k budget=5000", "7b full bs=2")
)
LOCATION = st.from_regex(r"[a-zа-яё]{1,8}( [a-zа-яё]{1,8}){0,2}", fullmatch=True)


def _amounts(low: float, high: float) -> st.SearchStrategy[float | None]:
    exact = st.floats(low, high, allow_nan=False, allow_infinity=False)
    return st.one_of(st.none(), exact, st.integers(int(low) + 1, int(high)).map(float))


@st.composite
def watches(draw: st.DrawFn) -> WatchFilter:
    """Any filter parse_watch can produce (fit runs from a few parsed ones)."""
    fit = draw(st.one_of(st.none(), st.sampled_from(FIT_WATCHES)))
    name = draw(st.one_of(st.none(), st.tuples(st.booleans(), st.sampled_from(EXACT_GPUS))))
    family = draw(st.sampled_from(FAMILIES)) if name is not None and name[0] else None
    cap = draw(_amounts(0.01, 1_000_000))
    budget = fit.max_job_rub if fit is not None else None
    kinds = draw(st.frozensets(st.sampled_from(tuple(AlertKind)), min_size=1))
    if AlertKind.BELOW_TARGET in kinds and cap is None and budget is None:
        kinds = draw(st.sampled_from([frozenset(), kinds - {AlertKind.BELOW_TARGET}]))
    return WatchFilter(
        gpu=name[1] if name is not None and family is None else None,
        family=family,
        min_count=draw(st.one_of(st.none(), st.integers(1, 64))),
        min_vram_gb=draw(_amounts(1, 1024)),
        min_total_vram_gb=draw(_amounts(1, 65_536)),
        max_rub_per_gpu_hour=cap,
        providers=draw(st.frozensets(st.sampled_from(PROVIDERS.ids))),
        location=draw(st.one_of(st.none(), LOCATION)),
        kinds=kinds,
        fit_query=None if fit is None else fit.fit_query,
        fit_need=None if fit is None else fit.fit_need,
        job_hours=None if fit is None else fit.job_hours,
        max_job_rub=budget,
        cooldown_s=draw(st.one_of(st.none(), st.integers(0, 30 * 86400))),
    )


@settings(max_examples=300, deadline=None)
@given(watches())
def test_canonical_words_parse_back_to_the_same_watch(watch: WatchFilter) -> None:
    words = canonical(watch)
    assume(words)  # a filter of nothing at all is no parse's result
    assert words.isascii() or watch.location is not None  # the user's own place name
    assert parse_watch(words, narrow=False) == watch


def test_canonical_words_are_short_for_a_card_watch():
    watch = parse_watch("8x a100 80gb max=199.5 provider=immers,selectel kinds=price_drop")
    assert canonical(watch) == (
        "A100 count=8 vram=80 max=199.5 provider=immers,selectel kinds=price_drop"
    )
    assert canonical(parse_watch("h100 cooldown=90m")) == "H100 cooldown=90m"


def test_canonical_numbers_have_no_exponent():
    # f"{1e6:g}" is "1e+06", which the grammar does not read: a /prices page button broke.
    assert canonical(parse_watch("max=1000000")) == "max=1000000"
    assert canonical(parse_watch("vram=1.5 total_vram=12.345678")) == (
        "vram=1.5 total_vram=12.345678"
    )


@pytest.mark.parametrize(
    "run",
    [
        "8b qlora dataset=20k",
        "13b lora dataset=50k tokens=800 gpu=4090",
        "8b lora dataset=30k gpu=a100 80gb",
        "8b lora dataset=30k gpu=a100",
        "70b qlora dataset=10k epochs=2 budget=5000",
    ],
)
def test_a_run_cost_watch_built_typed_is_the_one_its_words_state(run: str) -> None:
    parsed = understand(run)
    assert parsed is not None
    # The words the run-cost button used to subscribe with: the run as /fit states it
    # without its own budget, and the watch's.
    words = f"{stated_command(replace(parsed, budget_rub=None))} budget=3000"
    assert watch_for_run_cost(parsed, 3000) == parse_watch(words)


def test_a_run_cost_watch_on_a_run_with_no_dataset_is_refused() -> None:
    parsed = understand("8b qlora")
    assert parsed is not None
    with pytest.raises(QueryError):
        watch_for_run_cost(parsed, 3000)
