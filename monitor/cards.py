"""The card an offer is, decided once, and the one rule that says whether a card is wanted.

An offer's `Card` is read from the catalogue when the offer is made (at scrape time) and
stored with it (storage.offers, storage.history): matching, quotes, /prices, the market
answers, history, the chart, the open data and the Mini App all read that one value, so they
cannot disagree on which card an offer is. `CardFilter` is what a user asks for («h100», «a100
80gb», «rtx 4090»); `CardFilter.accepts` is the one match every listing, watch and history
query applies (storage.history states the same three conditions in SQL, and a test holds the
two to agree on every fixture offer).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from estimator import gpus
from estimator.number_text import plain

# Offers list memory as the vendor rounds it ("79.6 GB" for an 80GB card); never lose a
# real 80GB card to rounding.
VRAM_SLACK_GB = 0.5


@dataclass(frozen=True, slots=True)
class Card:
    """What the catalogue says about an offer's GPU.

    `id` is set only when the offer's name pins one catalogue row; a name that does not ("A100
    80GB": PCIe or SXM) still has a family and, when its candidates agree on memory and bf16,
    a sizing id (the slowest candidate: a time estimate is never optimistic).
    """

    id: str | None
    family: str | None
    sizing_id: str | None
    vram_gb: float | None  # per card

    @property
    def form_published(self) -> bool:
        """Whether the offer says which board it is (PCIe or SXM): only a pinned card does."""
        return self.id is not None


@functools.lru_cache(maxsize=4096)
def card_of(gpu: str, vram_gb: float | None) -> Card:
    """The card of an offer named `gpu` (a catalogue id, or the cleaned name the catalogue
    does not pin: scrapers.gpu_names) with `vram_gb` per card when the provider states it."""
    try:
        spec = gpus.get(gpu)
    except KeyError:
        sizing = gpus.resolve_for_sizing(gpu, vram_gb=vram_gb)
        if vram_gb is None and sizing is not None:
            vram_gb = gpus.get(sizing).vram_gb
        return Card(None, gpus.family_of(gpu), sizing, vram_gb)
    return Card(spec.id, spec.family, spec.id, spec.vram_gb if vram_gb is None else vram_gb)


def card_meets(card: Card, gpu: str | None, family: str | None, min_vram_gb: float | None) -> bool:
    """The card conditions of a filter: the exact card, the family, the memory floor. Unknown
    memory never passes a memory floor: an alert must never be false."""
    if gpu is not None and gpu != card.id:
        return False
    if family is not None and family != card.family:
        return False
    if min_vram_gb is None:
        return True
    # Written as the match index's lookup is (floor ≤ memory + slack), to agree to the bit.
    return card.vram_gb is not None and min_vram_gb <= card.vram_gb + VRAM_SLACK_GB


@dataclass(frozen=True)
class CardFilter:
    """A card or family a user asks about: «rtx 4090» (one card), «h100» (every H100), «a100
    80gb» (the A100s with 80 GB: a family and a memory floor)."""

    gpu: str | None = None  # catalogue id
    family: str | None = None
    min_vram_gb: float | None = None  # what the name itself states ("a100 80gb")

    def accepts(self, card: Card) -> bool:
        return card_meets(card, self.gpu, self.family, self.min_vram_gb)

    @property
    def label(self) -> str:
        """How answers name it: "RTX 4090", "H100", "A100 ≥80GB"."""
        name = self.gpu or self.family or ""
        return name if self.min_vram_gb is None else f"{name} ≥{plain(self.min_vram_gb)}GB"

    def catalogue_ids(self) -> frozenset[str]:
        """The catalogue rows it covers (what the open data lists beside a history)."""
        rows = [gpus.get(self.gpu)] if self.gpu else gpus.family_members(self.family or "")
        return frozenset(row.id for row in rows if self.accepts(card_of(row.id, None)))


def card_filter(name: str) -> CardFilter | None:
    """The card a name asks about: an exact card, else a family narrowed by the memory size
    the name states; None when it names neither."""
    exact = gpus.resolve(name)
    if exact is not None:
        return CardFilter(gpu=exact)
    family = gpus.family_of(name)
    if family is None:
        return None
    stated = gpus.stated_vram_gb(name)
    every = {spec.vram_gb for spec in gpus.family_members(family)}
    # "a100 80gb" leaves two 80GB cards: a family plus a memory floor says exactly that.
    # "a100 sxm" (40 and 80GB) cannot be said with these fields and widens to the family, and
    # so does a bare "h100": every H100 board, the NVL's 94 GB included.
    vram = float(stated) if stated is not None and len(every) > 1 else None
    return CardFilter(family=family, min_vram_gb=vram)
