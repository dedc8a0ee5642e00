"""GPU catalog and name resolution: spellings from providers and users, sanity of the data."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimator import gpus
from estimator.gpus import (
    candidates,
    family_members,
    family_of,
    find_in_text,
    get,
    load_gpus,
    normalize,
    parse_catalog,
    resolve,
    resolve_for_sizing,
)
from estimator.specs import GpuSpec

CATALOG = load_gpus()
IDS = {g.id for g in CATALOG}

# Spellings seen at providers (nvidia-smi names, Selectel/immers/HOSTKEY slugs) and typed by
# users, with the single GPU they name.
PINNED = [
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"),
    ("A100 80GB PCIe", "A100 80GB PCIe"),
    ("NVIDIA A100-PCIE-40GB", "A100 40GB PCIe"),
    ("8x A100 80GB SXM4", "A100 80GB SXM"),
    ("NVIDIA H100 80GB HBM3", "H100 SXM"),
    ("H100 PCIe", "H100 PCIe"),
    ("H100 NVL", "H100 NVL"),
    ("H100 SXM5 80GB", "H100 SXM"),
    ("RTX A5000", "RTX A5000"),
    ("NVIDIA RTX A5000", "RTX A5000"),
    ("gpu_a5000", "RTX A5000"),
    ("GeForce RTX 4090", "RTX 4090"),
    ("4090", "RTX 4090"),
    ("rtx4090", "RTX 4090"),
    ("1xRTX 4090 24GB", "RTX 4090"),
    ("4090 24гб", "RTX 4090"),
    ("4090 24 ГБ", "RTX 4090"),
    ("RTX 3090 24GB", "RTX 3090"),
    ("GeForce RTX 3090 Ti", "RTX 3090 Ti"),
    ("Tesla T4", "T4"),
    ("T4", "T4"),
    ("teslat4", "T4"),
    ("gpu_tesla_t4", "T4"),
    ("т4", "T4"),
    ("Tesla V100-SXM2-32GB", "V100 32GB SXM"),
    ("L40S", "L40S"),
    ("NVIDIA L40S 48GB", "L40S"),
    ("L40", "L40"),
    ("A10", "A10"),
    ("teslaa10", "A10"),
    ("A10G", "A10G"),
    ("RTX 6000 Ada", "RTX 6000 Ada"),
    ("RTX 6000 Ada Generation", "RTX 6000 Ada"),
    ("gpu_rtx6000ada", "RTX 6000 Ada"),
    ("RTX PRO 6000 Blackwell", "RTX PRO 6000 Blackwell"),
    ("RTX 6000 Pro 96GB", "RTX PRO 6000 Blackwell"),
    ("H200", "H200"),
    ("NVIDIA H200 141GB", "H200"),
    ("GTX 1080 Ti", "GTX 1080 Ti"),
    ("1080ti", "GTX 1080 Ti"),
    ("GTX 1080 Ti 11GB", "GTX 1080 Ti"),
    ("RTX A2000 12GB", "RTX A2000 12GB"),
    ("RTX 3080 10GB", "RTX 3080 10GB"),
    ("4060 ti 16gb", "RTX 4060 Ti 16GB"),
    ("RTX 4060 Ti 8GB", "RTX 4060 Ti 8GB"),
    ("rtx 4070 ti super", "RTX 4070 Ti Super"),
    ("4070 ti", "RTX 4070 Ti"),
    ("RTX 4080 Super", "RTX 4080 Super"),
    ("rtx 5070 ti", "RTX 5070 Ti"),
    ("3080 ti", "RTX 3080 Ti"),
    ("RTX 5090 32GB", "RTX 5090"),
    ("B200 192GB", "B200"),
    ("A30 24GB", "A30"),
    ("L4", "L4"),
    # The spellings people type, and every card the providers list.
    ("rtx 4090", "RTX 4090"),
    ("3060", "RTX 3060"),
    ("3060 12гб", "RTX 3060"),
    ("GeForce RTX 3060 12GB", "RTX 3060"),
    ("h100 sxm", "H100 SXM"),
    ("GTX 1080", "GTX 1080"),
    ("GPU RTX 4090 48GB", "RTX 4090 48GB"),  # a variant, asked for by its memory
    ("4090 48 гб", "RTX 4090 48GB"),
]

# Spellings that leave a choice: resolve() says None, resolve_for_sizing() takes the slowest
# candidate when they all have the same memory and bf16 support, and None otherwise.
AMBIGUOUS = [
    ("A100 80GB", "A100 80GB PCIe", "A100"),
    ("a100 80 гб", "A100 80GB PCIe", "A100"),
    ("a100 80gb", "A100 80GB PCIe", "A100"),
    ("Tesla A100 80G", "A100 80GB PCIe", "A100"),
    ("a100-80", "A100 80GB PCIe", "A100"),
    ("gpu_a100_40", "A100 40GB PCIe", "A100"),
    ("V100 16GB", "V100 16GB PCIe", "V100"),
    ("H100 80GB", "H100 PCIe", "H100"),
    ("A100", None, "A100"),
    ("а100", None, "A100"),  # Cyrillic а
    ("teslaa100", None, "A100"),
    # PCIe or SXM (never the NVL unless named), the same 80 GB: sized as the slower PCIe.
    ("H100", "H100 PCIe", "H100"),
    ("h100", "H100 PCIe", "H100"),
    ("A100 SXM", None, "A100"),
    ("rtx3080", None, "RTX 3080"),
    ("RTX A2000", None, "RTX A2000"),
]

UNKNOWN = [
    "",
    "   ",
    "Radeon MI300X",
    "RTX 9999",
    "RTX 3060 8GB",  # the 2022 128-bit board is another card, not in the catalog
    "RTX 4090 96GB",
    "RTX 2080 Super",
    "RTX 4090 D",
    "RTX 3070 Ti",
    "V100S 32GB",
    "A 100",
    "13b",
    "4096",
    "Quadro RTX 6000",
    "RTX 6000",
    "A100 48GB",
    "L40S SXM",
    "A100 40GB 80GB",
    "4090 на ноутбуке",
]


@pytest.mark.parametrize(("name", "gpu_id"), PINNED)
def test_resolve_pins_one_gpu(name: str, gpu_id: str) -> None:
    assert resolve(name) == gpu_id
    assert resolve_for_sizing(name) == gpu_id
    assert candidates(name) == (gpu_id,)
    assert family_of(name) == get(gpu_id).family


@pytest.mark.parametrize(("name", "sizing", "family"), AMBIGUOUS)
def test_ambiguous_names_are_not_guessed(name: str, sizing: str | None, family: str) -> None:
    assert resolve(name) is None
    assert len(candidates(name)) > 1
    assert resolve_for_sizing(name) == sizing
    assert family_of(name) == family


@pytest.mark.parametrize("name", UNKNOWN)
def test_unknown_names_resolve_to_nothing(name: str) -> None:
    assert resolve(name) is None
    assert resolve_for_sizing(name) is None
    assert candidates(name) == ()
    assert family_of(name) is None


def test_candidates_lists_every_consistent_row() -> None:
    assert candidates("A100") == (
        "A100 40GB PCIe",
        "A100 40GB SXM",
        "A100 80GB PCIe",
        "A100 80GB SXM",
    )
    assert candidates("H100") == ("H100 PCIe", "H100 SXM")
    assert candidates("H100 94GB") == ("H100 NVL",)  # a memory size only the NVL has
    assert candidates("H200") == ("H200",)  # the SXM; the NVL board only when named
    assert candidates("GPU Nvidia  H200 NVL 141 GB") == ("H200 NVL",)
    assert candidates("A100 PCIe") == ("A100 40GB PCIe", "A100 80GB PCIe")


def test_sizing_picks_the_slowest_of_equal_memory_candidates() -> None:
    pcie, sxm = get("A100 80GB PCIe"), get("A100 80GB SXM")
    assert pcie.usable_gib == sxm.usable_gib
    assert pcie.bandwidth_gbs < sxm.bandwidth_gbs  # same TFLOPS, so bandwidth breaks the tie
    assert get(resolve_for_sizing("H100 80GB") or "").tflops == min(
        get("H100 PCIe").tflops, get("H100 SXM").tflops
    )


def test_vram_argument_pins_the_variant() -> None:
    assert resolve("rtx3080", vram_gb=10) == "RTX 3080 10GB"
    assert resolve("RTX 3080", vram_gb=12.0) == "RTX 3080 12GB"
    assert resolve("RTX A2000", vram_gb=6) == "RTX A2000 6GB"
    assert resolve("teslaa100", vram_gb=80) is None  # still PCIe or SXM
    assert resolve_for_sizing("teslaa100", vram_gb=80) == "A100 80GB PCIe"
    assert resolve("RTX 4090 24GB", vram_gb=48) is None  # the name and the caller disagree
    assert resolve("RTX 4090", vram_gb=48) == "RTX 4090 48GB"  # the modded board, asked by size
    assert resolve("RTX 4090", vram_gb=24) == "RTX 4090"


def test_normalize_is_the_single_spelling() -> None:
    assert normalize("NVIDIA A100-SXM4-80GB") == "a100 sxm 80gb"
    assert normalize("Tesla A100 80G") == "a100 80gb"
    assert normalize("4090 24 гб") == "4090 24gb"
    assert normalize("NVIDIA RTX 6000 Ada Generation") == "rtx 6000 ada"
    assert normalize("А100 PCI-E") == "a100 pcie"
    assert normalize("GeForce Graphics") == ""


def test_get_and_family_members() -> None:
    assert get("RTX 4090").vram_gb == 24
    with pytest.raises(KeyError):
        get("rtx 4090")  # get() takes canonical ids only
    assert {g.id for g in family_members("H100")} == {"H100 PCIe", "H100 SXM", "H100 NVL"}
    assert family_members("h100") == family_members("H100")
    assert family_members("Radeon") == ()


# --------------------------------------------------------------------------- catalog sanity


def test_catalog_covers_the_providers_and_the_brief() -> None:
    wanted = {
        "T4", "A2", "A10", "A10G", "A16", "A30", "A40", "L4", "L40", "L40S",
        "V100 16GB PCIe", "V100 16GB SXM", "V100 32GB PCIe", "V100 32GB SXM",
        "RTX 3080 10GB", "RTX 3080 12GB", "RTX 3090", "RTX 4090", "RTX 5090",
        "RTX A2000 6GB", "RTX A2000 12GB", "RTX A4000", "RTX A5000", "RTX A6000",
        "RTX 4000 Ada", "RTX 6000 Ada", "RTX PRO 6000 Blackwell",
        "A100 40GB PCIe", "A100 40GB SXM", "A100 80GB PCIe", "A100 80GB SXM",
        "H100 PCIe", "H100 SXM", "H100 NVL", "H200", "H200 NVL", "B200", "B300", "GTX 1080 Ti",
        "GTX 1080", "RTX 3060", "RTX 4090 48GB",
    }  # fmt: skip
    assert wanted <= IDS


@pytest.mark.parametrize("gpu", CATALOG, ids=lambda g: g.id)
def test_every_id_and_alias_resolves_to_its_row(gpu: GpuSpec) -> None:
    assert resolve(gpu.id) == gpu.id
    for alias in gpu.aliases:
        assert resolve(alias) == gpu.id, alias


def test_aliases_are_unique_across_gpus() -> None:
    owner: dict[str, str] = {}
    for gpu in CATALOG:
        for spelling in {normalize(s) for s in (gpu.id, *gpu.aliases)}:
            assert owner.setdefault(spelling, gpu.id) == gpu.id, spelling


@pytest.mark.parametrize("gpu", CATALOG, ids=lambda g: g.id)
def test_numbers_are_plausible(gpu: GpuSpec) -> None:
    assert 0.85 * gpu.vram_gb < gpu.usable_gib < gpu.vram_gb * 1.074
    assert gpu.tflops > 0
    assert gpu.fp16_tflops > 0
    assert gpu.bandwidth_gbs > 0
    assert gpu.form in ("", "PCIe", "SXM", "NVL")
    if not gpu.bf16:
        assert gpu.bf16_tflops == 0
    else:
        assert gpu.bf16_tflops > 0


def test_measured_usable_memory_is_used() -> None:
    measured = {"T4": 14.74, "L4": 22.16, "A10G": 22.18, "A100 40GB SXM": 39.56}
    measured |= {"A100 80GB SXM": 79.32}
    for gpu_id, gib in measured.items():
        assert get(gpu_id).usable_gib == gib


def test_pre_ampere_cards_have_no_bf16() -> None:
    for gpu_id in ("T4", "V100 32GB SXM", "GTX 1080 Ti", "P100", "P40", "RTX 2080 Ti"):
        assert not get(gpu_id).bf16
    for gpu_id in ("A10", "RTX 3090", "A100 80GB SXM", "L4", "H100 SXM"):
        assert get(gpu_id).bf16


FIXTURES = Path(__file__).parents[1] / "fixtures"


def _provider_cards() -> set[tuple[str, float | None]]:
    """(card, memory) of every offer the providers' fixtures normalise to."""
    found: set[tuple[str, float | None]] = set()
    for path in FIXTURES.glob("*/*.expected.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data if isinstance(data, list) else data.get("offers", [])
        found |= {(row["gpu"], row["vram_gb"]) for row in rows if isinstance(row, dict)}
    return found


def test_every_card_the_providers_list_is_known() -> None:
    cards = _provider_cards()
    assert len(cards) > 20  # the fixtures were read
    unknown = sorted(f"{name} {vram}" for name, vram in cards if not candidates(name, vram_gb=vram))
    assert unknown == []


def test_a_variant_is_only_what_asks_for_it() -> None:
    assert resolve("4090") == "RTX 4090"  # never the modded 48 GB board
    assert family_of("4090 48gb") == "RTX 4090"
    assert get("RTX 4090 48GB").variant
    assert get("H100 NVL").variant
    assert not get("RTX 4090").variant


def test_every_family_has_members() -> None:
    for family in {g.family for g in CATALOG}:
        assert family_members(family)
        assert family_of(family) == family


# --------------------------------------------------------------------------- validation

HEADER = (
    "id,family,vram_gb,usable_gib,bf16_tflops,fp16_tflops,bandwidth_gbs,bf16,form,datacenter,"
    "variant,aliases,source"
)
GOOD_ROW = "X1,X1,24,23.6,100,100,900,true,,false,false,X1 24GB,test"


def test_parse_catalog_reads_comments_and_rows() -> None:
    (spec,) = parse_catalog(f"# comment, with commas\n{HEADER}\n{GOOD_ROW}\n")
    assert spec == GpuSpec("X1", "X1", 24, 23.6, 100, 100, 900, True, ("X1 24GB",), "", False)


@pytest.mark.parametrize(
    ("row", "complaint"),
    [
        ("X1,X1,24,lots,100,100,900,true,,false,false,,test", "usable_gib"),
        ("X1,X1,24,23.6,100,100,900,yes,,false,false,,test", "bf16"),
        ("X1,X1,24,23.6,100,100,900,false,,false,false,,test", "bf16_tflops"),
        ("X1,X1,24,26.0,100,100,900,true,,false,false,,test", "usable_gib"),
        ("X1,X1,24,19.0,100,100,900,true,,false,false,,test", "usable_gib"),
        ("X1,X1,24,23.6,100,100,900,true,OAM,false,false,,test", "form"),
        ("X1,X1,24,23.6,100,100,900,true,,false", "columns"),
        (",X1,24,23.6,100,100,900,true,,false,false,,test", "empty"),
        ("X1,X1,24,23.6,100,100,900,true,,false,maybe,,test", "variant"),
        ("X1,X1,24,23.6,100,100,900,true,NVL,false,false,,test", "variant"),
    ],
)
def test_parse_catalog_names_the_bad_row(row: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint) as caught:
        parse_catalog(f"{HEADER}\n{row}\n")
    assert "line 2" in str(caught.value)


def test_parse_catalog_rejects_duplicates_and_bad_header() -> None:
    with pytest.raises(ValueError, match="duplicate id"):
        parse_catalog(f"{HEADER}\n{GOOD_ROW}\n{GOOD_ROW}\n")
    with pytest.raises(ValueError, match="header"):
        parse_catalog("id,family\nX1,X1\n")


def _spec(gpu_id: str, aliases: tuple[str, ...] = (), **changes: object) -> GpuSpec:
    base = GpuSpec(gpu_id, gpu_id.split()[0], 24, 23.6, 100, 100, 900, True, aliases)
    return replace(base, **changes)  # type: ignore[arg-type]


def test_index_rejects_aliases_that_guess() -> None:
    # An alias that also fits another row would resolve by fiat: refuse the catalog.
    rows = (_spec("Z9 24GB PCIe", ("Z9 24GB",), form="PCIe"), _spec("Z9 24GB SXM", form="SXM"))
    with pytest.raises(ValueError, match="Z9 24GB PCIe"):
        gpus._build_index(rows)
    with pytest.raises(ValueError, match="says 80GB"):
        gpus._build_index((_spec("Z9", ("Z9 80GB",)),))
    with pytest.raises(ValueError, match="says form SXM"):
        gpus._build_index((_spec("Z9", ("Z9 SXM",)),))


# --------------------------------------------------------------------------- free text

TEXTS = [
    ("хватит ли 4090 для 13b", [("RTX 4090", "4090")]),
    ("70B full fine-tune на 8× H100", [("H100", "H100")]),
    ("8x a100 80gb", [("A100", "a100 80gb")]),
    ("llama 3 8b ctx 4096 на а100", [("A100", "а100")]),
    ("Н100 или т4?", [("H100", "Н100"), ("T4", "т4")]),
    ("сколько стоит час на 4090-х", [("RTX 4090", "4090")]),
    ("qwen2.5-7b qlora on a 4090 with 2048 ctx", [("RTX 4090", "4090")]),
    (
        "GeForce RTX 3090 Ti vs rtx 6000 ada generation",
        [
            ("RTX 3090 Ti", "RTX 3090 Ti"),
            ("RTX 6000 Ada", "rtx 6000 ada"),
        ],
    ),
    ("NVIDIA A100-SXM4-80GB x8", [("A100 80GB SXM", "A100-SXM4-80GB")]),
    ("нужна H100 NVL или L40S 48 гб", [("H100 NVL", "H100 NVL"), ("L40S", "L40S 48 гб")]),
    ("а если взять 2 x rtx4090 и t4", [("RTX 4090", "rtx4090"), ("T4", "t4")]),
    ("4090ке хватит?", [("RTX 4090", "4090")]),
    ("rtx 3080 12gb", [("RTX 3080 12GB", "rtx 3080 12gb")]),
]

NO_GPU = [
    "13b",
    "4096 ctx",
    "8b",
    "llama 3.1 70B, ctx=8192, batch 4, 2048 tokens",
    "а 100 карт хватит?",
    "RTX 2080 super или 3070 ti?",
    "это 4090 D или нет",
    "Mistral-7B и Phi-3 на T5",
    "",
]


@pytest.mark.parametrize(("text", "expected"), TEXTS)
def test_find_in_text(text: str, expected: list[tuple[str, str]]) -> None:
    found = find_in_text(text)
    assert [(label, text[start:end]) for label, start, end in found] == expected


def test_find_in_text_offsets_match_the_example() -> None:
    assert find_in_text("хватит ли 4090 для 13b") == [("RTX 4090", 10, 14)]


def test_find_in_text_family_mentions_narrow_with_candidates() -> None:
    text = "8x a100 80gb"
    ((label, start, end),) = find_in_text(text)
    assert {g.id for g in family_members(label)} >= set(candidates(text[start:end]))
    assert candidates(text[start:end]) == ("A100 80GB PCIe", "A100 80GB SXM")


@pytest.mark.parametrize("text", NO_GPU)
def test_find_in_text_ignores_sizes_and_numbers(text: str) -> None:
    assert find_in_text(text) == []


# --------------------------------------------------------------------------- properties


@given(st.text(max_size=60))
def test_resolve_never_raises_and_returns_a_catalog_id(text: str) -> None:
    for result in (resolve(text), resolve_for_sizing(text)):
        assert result is None or result in IDS
    assert set(candidates(text)) <= IDS


@given(st.text(alphabet="aAhHlLtTrRxXgGbBiIsSpPeEcC0123456789 -_×хаАнНтгбГБ", max_size=30))
def test_gpu_like_text_never_breaks_lookups(text: str) -> None:
    assert resolve(text) is None or resolve(text) in IDS
    for label, start, end in find_in_text(text):
        assert 0 <= start < end <= len(text)
        assert label in IDS or family_members(label)


# --------------------------------------------------------------------------- typos


@pytest.mark.parametrize(
    ("typed", "near"),
    [
        ("h1000", "H100"),
        ("h10", "H100"),
        ("rtx 309", "RTX 3090"),
        ("b2000", "B200"),
        # Near several cards, or a card the catalog lacks: no suggestion.
        ("rtx 4900", None),  # the 4080 or the 4090
        ("4060", None),
        ("3070", None),
        # Known cards and things that are not cards are not typos.
        ("rtx 4090", None),
        ("h100", None),
        ("13b", None),
        ("t5", None),
    ],
)
def test_closest_suggests_only_a_near_miss_of_one_card(typed: str, near: str | None) -> None:
    assert gpus.closest(typed) == near
    if near is not None:
        assert candidates(typed) == ()  # a suggestion, never a reading


@pytest.mark.parametrize(
    ("text", "unknown"),
    [
        ("хватит ли rtx 3050 для 7b qlora?", "rtx 3050"),
        ("хватит ли rtx 4900 для 7b qlora?", "rtx 4900"),
        ("13b qlora на h1000", "h1000"),
        ("13b qlora на 4090", None),
        ("t5 на a100", None),  # a model name is not a card
        ("deepseek v2 lite на 4090", None),
        ("датасет 1080 примеров", None),  # a count, not the GTX 1080
        ("хватит ли 5080 super для 7b?", "5080 super"),  # another card than the RTX 5080
        ("3070 ti потянет 13b?", "3070 ti"),
        ("хватит ли 4080 super для 7b?", None),  # its own card, not the RTX 4080
        ("4060 ti 16гб потянет 7b?", None),
    ],
)
def test_unknown_card_in_text_names_what_was_written(text: str, unknown: str | None) -> None:
    assert gpus.unknown_card_in_text(text) == unknown


def test_line_names_spelt_in_cyrillic_by_sound() -> None:
    assert resolve("ртх 4090") == "RTX 4090"
    assert resolve("гтх 1080") == "GTX 1080"
    assert find_in_text("ртх 3090 потянет 7b?") == [("RTX 3090", 0, 8)]
    assert find_in_text("датасет 1080 примеров") == []  # a bare number is an RTX card only
