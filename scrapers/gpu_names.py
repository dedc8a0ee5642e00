"""Provider GPU spellings to the estimator's canonical ids. Unknown names are kept raw and
logged once per process: never dropped, never guessed."""

from __future__ import annotations

import logging

from estimator.gpus import resolve

logger = logging.getLogger(__name__)
_reported: set[str] = set()


def canonical_gpu(raw: str, vram_gb: float | None = None) -> tuple[str, bool]:
    """(canonical id, True) when the catalog pins it, else (the raw name, False)."""
    gpu_id = resolve(raw, vram_gb=vram_gb) if vram_gb else resolve(raw)
    if gpu_id is not None:
        return gpu_id, True
    if raw not in _reported:
        _reported.add(raw)
        logger.warning("unknown GPU name %r (vram %s GB): kept as is", raw, vram_gb)
    return raw.strip(), False
