"""Provider GPU spellings to the estimator's canonical ids. Never dropped, never guessed.

Providers write GPU names as free text: `GPU Nvidia  H200 NVL 141 GB` (two spaces),
`GPU RTX 4090 48GB`, `A100 40 GB`. `clean_gpu_name` takes the noise out (runs of spaces, the
words GPU and Nvidia in any case, and the brand words Tesla and GeForce, which the catalog
ignores too) and reads the memory the name states;
`canonical_gpu` then asks the catalog. A name the catalog cannot pin is kept, cleaned, with
its memory in it ("H200 NVL 141GB"), so a 48 GB card is never shown as the 24 GB one; the
scrapers report such names once per run (scrapers.report), not once per row.
"""

from __future__ import annotations

import re

from estimator.gpus import get as gpu_spec
from estimator.gpus import resolve

# Words that never tell one card from another.
_FILLER = re.compile(r"\b(?:gpu|nvidia|tesla|geforce)\b", re.IGNORECASE)
# "141 GB", "48GB", "24 ГБ", "16G": the memory per card, when the name states it.
_MEMORY = re.compile(r"(?<![\w.])(\d{1,3}(?:[.,]\d)?)\s*(?:gb|gib|гб|g)(?!\w)", re.IGNORECASE)


def clean_gpu_name(raw: str) -> tuple[str, float | None]:
    """(name without filler words and memory, memory in GB or None)."""
    memory = _MEMORY.search(raw)
    vram = float(memory.group(1).replace(",", ".")) if memory else None
    text = _MEMORY.sub(" ", raw) if memory else raw
    text = " ".join(_FILLER.sub(" ", text).split()).strip(" -_/,")
    return text or " ".join(raw.split()), vram


def canonical_gpu(raw: str, vram_gb: float | None = None) -> tuple[str, bool]:
    """(canonical id, True) when the catalog pins it, else (the cleaned name, False)."""
    name, stated = clean_gpu_name(raw)
    vram = stated if stated is not None else vram_gb
    gpu_id = resolve(name, vram_gb=vram) if vram else resolve(name)
    if gpu_id is not None:
        return gpu_id, True
    return (f"{name} {vram:g}GB" if stated is not None else name), False


def gpu_identity(raw: str, vram_hint: float | None = None) -> tuple[str, bool, float | None]:
    """(canonical id or cleaned name, known, memory per card): the memory the name states,
    else the hint, else the catalog's for a pinned card."""
    _, stated = clean_gpu_name(raw)
    vram = stated if stated is not None else vram_hint
    gpu, known = canonical_gpu(raw, vram)
    if vram is None and known:
        vram = gpu_spec(gpu).vram_gb
    return gpu, known, None if vram is None else float(vram)
