"""Which offers come first: training-grade cards, grouped per GPU, and NVLink where known.

"Training-grade" tiers, best first. bf16 (Ampere and newer) is what fine-tuning recipes
default to (fp16 needs loss scaling, Pascal/Turing/Volta have no bf16). 40 GB on one card
holds a 13B LoRA or a 30B QLoRA at 2k context (this project's estimator); 24 GB holds an
8B LoRA. Within a tier: more memory first, then more bf16 TFLOPS, then the cheaper offer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from estimator import gpus
from monitor.offers import Offer

LARGE_GB = 40
MEDIUM_GB = 24
UNCATALOGUED_TIER = 4  # a card the catalog does not know: after every card it does


@dataclass(frozen=True)
class CardFacts:
    """What the catalog says about an offer's card, for ranking and the group header."""

    vram_gb: float | None
    tier: int  # 0 best: bf16 with LARGE_GB, bf16 with MEDIUM_GB, smaller bf16, no bf16
    tflops: float
    form: str


def card_facts(offer: Offer) -> CardFacts:
    known = offer.card
    vram = offer.vram_gb or known.vram_gb
    if known.sizing_id is None:
        return CardFacts(vram, UNCATALOGUED_TIER, 0.0, "")
    spec = gpus.get(known.sizing_id)
    if not spec.bf16:
        tier = 3
    elif (vram or 0) >= LARGE_GB:
        tier = 0
    elif (vram or 0) >= MEDIUM_GB:
        tier = 1
    else:
        tier = 2
    return CardFacts(vram, tier, spec.tflops, spec.form)


def group_key(offer: Offer) -> tuple[str, float | None]:
    """Offers of one group share a GPU and its memory (one header in /prices)."""
    return (offer.gpu, card_facts(offer).vram_gb)


def rank_offers(offers: Sequence[Offer]) -> list[Offer]:
    """Grouped per GPU (training-grade first), cheapest per GPU-hour first inside a group."""

    def group_rank(offer: Offer) -> tuple[int, float, float, str]:
        card = card_facts(offer)
        return (card.tier, -(card.vram_gb or 0), -card.tflops, offer.gpu)

    return sorted(
        offers,
        key=lambda o: (*group_rank(o), o.vram_gb or 0, o.rub_per_gpu_hour, o.provider, o.sku),
    )


def has_nvlink(offer: Offer) -> bool | None:
    """True where NVLink is known: SXM modules sit on NVLink baseboards (HGX), H100 NVL is
    sold in NVLink-bridged pairs, or the provider names it. None where it is unknown."""
    if offer.gpu_count < 2:
        return None
    named = f"{offer.gpu_raw} {offer.title} {offer.sku}".lower().replace(" ", "")
    if "nvlink" in named or card_facts(offer).form in ("SXM", "NVL"):
        return True
    return None
