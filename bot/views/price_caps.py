"""The price caps the /subs editor offers: the usual steps, reaching as high as the cards the
watch follows are priced today (an 8×H200 server's GPU-hour costs more than a 4090's)."""

from __future__ import annotations

from collections.abc import Iterable

# ₽ per GPU-hour. The low steps are where RTX 4090 / A100 rent in Russia; the high ones
# reach the H100/H200/B200 per-GPU prices providers list (Selectel, immers.cloud price pages).
CAP_STEPS = (100, 150, 200, 250, 300, 400, 600, 800, 1000, 1500, 2000, 3000)
# Without live prices above it, the editor reaches 600 ₽, as it always did.
DEFAULT_CEILING = 600
# A phone row of buttons holds four; two rows of steps keep the editor one screen.
SHOWN_STEPS = 8


def cap_choices(prices_per_gpu_hour: Iterable[float]) -> tuple[int, ...]:
    """The SHOWN_STEPS steps ending at the first one at or above the dearest price the watch
    would see without a cap, so that every card it follows can be capped just above its
    price; never below DEFAULT_CEILING."""
    dearest = max(prices_per_gpu_hour, default=0.0)
    ceiling = next((step for step in CAP_STEPS if step >= dearest), CAP_STEPS[-1])
    ceiling = max(ceiling, DEFAULT_CEILING)
    reachable = [step for step in CAP_STEPS if step <= ceiling]
    return tuple(reachable[-SHOWN_STEPS:])
