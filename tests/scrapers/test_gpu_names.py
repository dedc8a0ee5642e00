"""scrapers.gpu_names: provider GPU spellings cleaned, memory read, the catalog asked."""

from __future__ import annotations

import pytest

from scrapers.gpu_names import clean_gpu_name, gpu_identity


@pytest.mark.parametrize(
    ("raw", "name", "vram"),
    [
        ("GPU Nvidia  H200 NVL 141 GB", "H200 NVL", 141),  # two spaces, filler words
        ("GPU RTX 4090 48GB", "RTX 4090", 48),
        ("A100 40 GB", "A100", 40),
        ("nvidia tesla t4", "t4", None),
        ("RTX A4000", "RTX A4000", None),
        ("NVIDIA A100-SXM4-80GB", "A100-SXM4", 80),
        ("RTX 4090 24 ГБ", "RTX 4090", 24),
        ("GPU", "GPU", None),  # nothing but filler: the raw text stays
    ],
)
def test_clean_gpu_name(raw: str, name: str, vram: float | None):
    assert clean_gpu_name(raw) == (name, vram)


@pytest.mark.parametrize(
    ("raw", "hint", "expected"),
    [
        ("GPU Nvidia  H200 NVL 141 GB", None, ("H200 NVL", True, 141)),
        ("GPU RTX 4090 48GB", None, ("RTX 4090 48GB", True, 48)),  # never the 24 GB card
        ("RTX 4090", None, ("RTX 4090", True, 24)),  # the catalog knows its memory
        ("A100 40 GB", None, ("A100 40GB", False, 40)),  # PCIe or SXM: not guessed
        ("A100 SXM", None, ("A100 SXM", False, None)),
        ("NVIDIA A100-SXM4-80GB", None, ("A100 80GB SXM", True, 80)),
        ("GPU Nvidia RTX 2080 Ti", None, ("RTX 2080 Ti", True, 11)),
        ("T4", 16, ("T4", True, 16)),
        ("GTX 1080", 8, ("GTX 1080", True, 8)),
        ("RTX 3070 Ti", 8, ("RTX 3070 Ti", False, 8)),  # not in the catalog: kept, memory hinted
        ("RTX 3060 Ti", None, ("RTX 3060 Ti", True, 8)),
    ],
)
def test_gpu_identity(raw: str, hint: float | None, expected: tuple[str, bool, float | None]):
    assert gpu_identity(raw, hint) == expected
