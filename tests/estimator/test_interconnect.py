"""estimator.interconnect: how the cards of one server talk, read from the card."""

from __future__ import annotations

from estimator.gpus import get
from estimator.interconnect import Link, geforce, interconnect, pcie_generation


def test_sxm_boards_talk_over_nvlink_and_everything_else_over_pcie():
    assert interconnect(get("A100 80GB SXM"), 8).link is Link.NVLINK
    assert interconnect(get("H100 SXM"), 8).bytes_per_second == 450e9
    assert interconnect(get("A100 80GB PCIe"), 4).link is Link.PCIE
    assert interconnect(get("L40S"), 4).link is Link.PCIE
    # An NVL card is bridged to one neighbour: a pair talks over NVLink, four over PCIe.
    assert interconnect(get("H100 NVL"), 2).link is Link.NVLINK
    assert interconnect(get("H100 NVL"), 4).link is Link.PCIE


def test_geforce_cards_have_no_peer_to_peer_and_pay_for_the_detour_through_host_ram():
    assert geforce(get("RTX 4090"))
    assert geforce(get("RTX 3090 Ti"))
    assert not geforce(get("RTX 4000 Ada"))
    assert not geforce(get("RTX A6000"))
    link = interconnect(get("RTX 4090"), 2)
    assert link.link is Link.PCIE_HOST
    assert link.effective == link.bytes_per_second / 2
    assert not link.stated


def test_the_pcie_generation_follows_the_card():
    assert pcie_generation(get("RTX 3090")) == 4
    assert pcie_generation(get("H100 PCIe")) == 5
    assert pcie_generation(get("RTX 5090")) == 5
    assert pcie_generation(get("V100 32GB PCIe")) == 3


def test_a_stated_link_beats_the_card():
    stated = interconnect(get("RTX A6000"), 2, Link.NVLINK)
    assert stated.link is Link.NVLINK
    assert stated.stated
