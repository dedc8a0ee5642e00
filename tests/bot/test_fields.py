"""bot.fields: a form field or query parameter read as the chat reads the same words."""

from __future__ import annotations

import pytest

from bot.fields import (
    FieldError,
    read_card,
    read_card_filter,
    read_count,
    read_dataset,
    read_memory,
    read_model,
    read_price,
)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("599,5", 599.5),  # a decimal comma, never 5 995
        ("300,5", 300.5),
        ("599.5", 599.5),
        ("600 ₽", 600.0),
        ("1 200,5 руб/ч", 1200.5),
        ("300 руб/ч", 300.0),
        (450, 450.0),
        (599.5, 599.5),
    ],
)
def test_a_price_is_read_as_the_chat_reads_it(raw: object, value: float) -> None:
    assert read_price(raw, "cap", high=1_000_000) == value


@pytest.mark.parametrize("raw", ["cheap", "-5", "0", "", True, None, "1" * 80, 2_000_000])
def test_a_price_that_is_no_price_names_its_field(raw: object) -> None:
    with pytest.raises(FieldError) as caught:
        read_price(raw, "cap", high=1_000_000)
    assert caught.value.field == "cap"


@pytest.mark.parametrize(
    ("raw", "gpu", "family", "vram"),
    [
        ("rtx 4090", "RTX 4090", None, None),
        ("4090", "RTX 4090", None, None),
        ("a100 80gb", None, "A100", 80.0),
        ("a100 80 гб", None, "A100", 80.0),
        ("h100", None, "H100", None),
        ("h100 sxm", "H100 SXM", None, None),
    ],
)
def test_a_card_to_list_offers_of(
    raw: str, gpu: str | None, family: str | None, vram: float | None
):
    card = read_card_filter(raw)
    assert (card.gpu, card.family, card.min_vram_gb) == (gpu, family, vram)


def test_an_unknown_card_is_refused_with_its_near_miss() -> None:
    with pytest.raises(FieldError) as caught:
        read_card_filter("h1000")
    assert (caught.value.field, caught.value.near) == ("gpu", "H100")
    with pytest.raises(FieldError):
        read_card_filter("h100 max=1")  # no price cap smuggled in behind a card
    with pytest.raises(FieldError):
        read_card("voodoo5")
    assert read_card("a100 80gb") == ("A100 80GB PCIe", None)
    assert read_card("a100") == (None, "A100")


def test_models_sizes_counts_and_memory() -> None:
    named = read_model("Llama 3 8B").model
    assert named is not None
    assert named.id == "Llama-3.1-8B"
    assert read_model("14b").size_b == 14.0
    with pytest.raises(FieldError):
        read_model("13b ctx=1")
    assert read_count("4k", "ctx", 16, 1_048_576, thousand=1024) == 4096
    assert read_count(8192, "ctx", 16, 1_048_576) == 8192
    with pytest.raises(FieldError):
        read_count("2,5", "bs", 1, 1024)
    assert read_memory("80gb", "min_vram") == 80.0


@pytest.mark.parametrize(
    ("raw", "examples", "tokens", "text_bytes"),
    [
        ("20k", 20_000, None, None),
        ("20 000 примеров", 20_000, None, None),
        ("10k samples", 10_000, None, None),
        ("50m токенов", None, 50_000_000, None),
        ("2 гб", None, None, 2e9),
        ("2gb", None, None, 2e9),
        ("500 мб", None, None, 5e8),
    ],
)
def test_a_dataset_by_examples_tokens_or_text_size(
    raw: str, examples: int | None, tokens: int | None, text_bytes: float | None
) -> None:
    dataset = read_dataset(raw)
    assert (dataset.examples, dataset.tokens, dataset.text_bytes) == (examples, tokens, text_bytes)


@pytest.mark.parametrize("raw", ["lots", "0", "20k бананов", "2,5 примеров"])
def test_a_dataset_that_cannot_be_read(raw: str) -> None:
    with pytest.raises(FieldError):
        read_dataset(raw)
