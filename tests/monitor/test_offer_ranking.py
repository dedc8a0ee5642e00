"""monitor.offer_ranking: training-grade cards first, one group per GPU, NVLink where known."""

from __future__ import annotations

from dataclasses import replace

from monitor.offer_ranking import card_facts, group_key, has_nvlink, rank_offers
from tests.factories import make_offer


def test_training_grade_cards_come_first_and_the_uncatalogued_last() -> None:
    offers = [
        make_offer("mystery", 10, gpu="Mystery GPU", vram_gb=None),
        make_offer("t4", 20, gpu="T4", vram_gb=16),  # no bf16
        make_offer("a4000", 30, gpu="RTX A4000", vram_gb=16),  # bf16, small
        make_offer("4090", 40, gpu="RTX 4090", vram_gb=24),  # bf16, MEDIUM_GB
        make_offer("h100", 50, gpu="H100 PCIe", vram_gb=80),  # bf16, LARGE_GB
    ]
    assert [offer.sku for offer in rank_offers(offers)] == [
        "h100",
        "4090",
        "a4000",
        "t4",
        "mystery",
    ]
    assert [card_facts(offer).tier for offer in rank_offers(offers)] == [0, 1, 2, 3, 4]


def test_within_a_tier_more_memory_then_more_tflops_then_the_cheaper_offer() -> None:
    offers = [
        make_offer("pcie-cheap", 100, gpu="H100 PCIe", vram_gb=80),
        make_offer("sxm-dear", 300, gpu="H100 SXM", vram_gb=80),
        make_offer("sxm-cheap", 200, gpu="H100 SXM", vram_gb=80),
        make_offer("h200", 400, gpu="H200", vram_gb=141),
    ]
    assert [offer.sku for offer in rank_offers(offers)] == [
        "h200",
        "sxm-cheap",
        "sxm-dear",
        "pcie-cheap",
    ]


def test_a_group_is_one_gpu_with_its_memory() -> None:
    small, large = make_offer("a", 1, gpu="X", vram_gb=24), make_offer("b", 1, gpu="X", vram_gb=48)
    assert group_key(small) == ("X", 24)
    assert group_key(small) != group_key(large)


def test_nvlink_is_known_for_sxm_pairs_and_named_links_only() -> None:
    sxm_pair = make_offer("sxm", 1, gpu="H100 SXM", gpu_count=2, vram_gb=80)
    pcie_pair = make_offer("pcie", 1, gpu="H100 PCIe", gpu_count=2, vram_gb=80)
    named = replace(pcie_pair, title="2x H100 NVLink")
    assert has_nvlink(sxm_pair) is True
    assert has_nvlink(named) is True
    assert has_nvlink(pcie_pair) is None
    assert has_nvlink(make_offer("one", 1, gpu="H100 SXM", vram_gb=80)) is None  # one card
