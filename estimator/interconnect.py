"""How the cards of one server talk to each other, and how fast, from what the card is.

Providers rarely state a server's interconnect in words, but they do name the card, and the
card's form decides it: an SXM board sits on an NVLink/NVSwitch baseboard (every HGX/DGX
server), an NVL card is bridged to one neighbour, and everything else talks over PCIe. GeForce
cards cannot even reach each other over PCIe: NVIDIA's driver gives them no peer-to-peer
access, so every byte goes through host memory (`p2pBandwidthLatencyTest` prints "Device=0
CANNOT Access Peer Device=1" on RTX 2080 Ti and RTX 4090 servers:
github.com/NVIDIA/nccl-tests/issues/117, 2022-10-26; eight RTX 4090s need a patched kernel
module to get P2P at all: github.com/tinygrad/open-gpu-kernel-modules/issues/17). The
catalogue's form column (estimator/data/gpus.csv) carries SXM/PCIe/NVL; a card whose form the
offer does not publish is sized as the PCIe one (bot/quotes.py), which is also the slower
link: the safe side.

Bandwidths are per direction per GPU as the datasheets give them; what collectives reach of
them is `estimator.timing`'s `link_share`, measured leave-one-repository-out by the speed bench.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from estimator.specs import GpuSpec

GB = 1e9


class Link(StrEnum):
    NVLINK = "nvlink"  # NVLink/NVSwitch (SXM baseboards) or an NVLink bridge (NVL pairs)
    PCIE = "pcie"  # PCIe with peer-to-peer between the cards
    PCIE_HOST = "pcie_host"  # PCIe without peer-to-peer: every transfer goes through host RAM


# NVLink bandwidth per GPU, each direction: half the datasheets' bidirectional totals. A100
# SXM4: NVLink 3, 600 GB/s; H100/H200 SXM5: NVLink 4, 900 GB/s; H100 NVL and H200 NVL bridges:
# 600 GB/s; B200/B300: NVLink 5, 1.8 TB/s; V100 SXM2: NVLink 2, 300 GB/s (NVIDIA A100, H100,
# H200, HGX B200 and V100 datasheets).
NVLINK_BYTES_PER_S: dict[str, float] = {
    "V100": 150 * GB,
    "A100": 300 * GB,
    "H100": 450 * GB,
    "H200": 450 * GB,
    "GH200": 450 * GB,
    "B200": 900 * GB,
    "B300": 900 * GB,
}
NVL_BRIDGE_BYTES_PER_S = 300 * GB
# PCIe x16, each direction: 16 lanes × the generation's transfer rate × 128/130 encoding
# (PCI-SIG: 8, 16 and 32 GT/s for 3.0, 4.0 and 5.0).
PCIE_BYTES_PER_S: dict[int, float] = {3: 15.75 * GB, 4: 31.5 * GB, 5: 63.0 * GB}
# The PCIe generation of the cards whose family says nothing: Volta, Turing, Pascal and the T4
# are PCIe 3.0; Ampere and Ada 4.0; Hopper PCIe/NVL boards and Blackwell 5.0 (NVIDIA
# datasheets and whitepapers).
_PCIE5 = frozenset(
    {"H100", "H200", "B200", "B300", "RTX 5080", "RTX 5090", "RTX PRO 6000 Blackwell"}
)
_PCIE3 = frozenset({"V100", "T4", "P40", "P100", "GTX 1080 Ti", "RTX 2080 Ti"})
# GeForce families: "RTX 4090", "RTX 3090 Ti", "GTX 1080 Ti" (not "RTX 4000 Ada", "RTX A5000").
_GEFORCE = re.compile(r"(GTX|RTX) \d{4}( Ti)?")


@dataclass(frozen=True)
class Interconnect:
    link: Link
    bytes_per_second: float  # per GPU, each direction, as the datasheets give it
    stated: bool  # the source or the offer said so; False: read from the card

    @property
    def effective(self) -> float:
        """What a byte between two cards costs in link time: through host RAM it crosses PCIe
        twice (down from one card, up into the other), so half the bus."""
        return self.bytes_per_second / (2 if self.link is Link.PCIE_HOST else 1)


def geforce(gpu: GpuSpec) -> bool:
    """A consumer card: no peer-to-peer over PCIe, no NVLink on anything since the 3090."""
    return not gpu.datacenter and _GEFORCE.fullmatch(gpu.family) is not None


def pcie_generation(gpu: GpuSpec) -> int:
    if gpu.family in _PCIE5:
        return 5
    return 3 if gpu.family in _PCIE3 else 4


def interconnect(gpu: GpuSpec, gpus: int, stated: Link | None = None) -> Interconnect:
    """The link between `gpus` cards of `gpu` in one server: the one stated, else the card's."""
    pcie = PCIE_BYTES_PER_S[pcie_generation(gpu)]
    link = stated or _card_link(gpu, gpus)
    if link is Link.NVLINK:
        speed = NVLINK_BYTES_PER_S.get(gpu.family, NVL_BRIDGE_BYTES_PER_S)
        if gpu.form == "NVL":
            speed = NVL_BRIDGE_BYTES_PER_S
        return Interconnect(link, speed, stated is not None)
    return Interconnect(link, pcie, stated is not None)


def _card_link(gpu: GpuSpec, gpus: int) -> Link:
    if gpu.form == "SXM":
        return Link.NVLINK
    # An NVL bridge joins two cards; a bigger server's ring also crosses PCIe.
    if gpu.form == "NVL" and gpus <= 2:
        return Link.NVLINK
    return Link.PCIE_HOST if geforce(gpu) else Link.PCIE
