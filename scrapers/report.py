"""What a scrape parsed and what it left out, in words: one log summary per run, and the
`python -m scrapers --replay DIR --check` report a maintainer reads after a provider changed
its site."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict

from monitor.offers import StockState
from monitor.scrape import ScrapeError, ScrapeResult, Skip

logger = logging.getLogger(__name__)
EXAMPLES = 5  # items shown per skip reason


def log_run(result: ScrapeResult) -> None:
    """Once per run, however many rows say it: unknown GPU names, skips by reason. A failed
    part is the refresh's to log (monitor.pipeline), with the offers it keeps meanwhile."""
    unknown = sorted({(o.gpu_raw, o.gpu) for o in result.offers if not o.gpu_known})
    if unknown:
        names = ", ".join(f"{raw!r} -> {gpu!r}" for raw, gpu in unknown)
        logger.warning("%s: GPU names the catalog does not pin, kept: %s", result.provider, names)
    reasons = Counter(skip.reason for skip in result.skipped)
    if reasons:
        counted = "; ".join(f"{reason}: {count}" for reason, count in sorted(reasons.items()))
        logger.info("%s: rows skipped: %s", result.provider, counted)


def check_report(outcome: ScrapeResult | ScrapeError) -> list[str]:
    """Per part: what parsed (offers by stock state, unknown GPU names) and what was skipped
    and why, with a few examples of each reason."""
    if isinstance(outcome, ScrapeError):
        return [f"{outcome.provider}: FAILED {outcome.kind}: {outcome.detail}"]
    lines = [f"{outcome.provider}: {len(outcome.offers)} offers from {len(outcome.parts)} parts"]
    skips: defaultdict[str, list[Skip]] = defaultdict(list)
    for skip in outcome.skipped:
        skips[skip.part].append(skip)
    for part, parsed in outcome.parts.items():
        label = part or "(whole)"
        if isinstance(parsed, ScrapeError):
            lines.append(f"  {label}: FAILED {parsed.kind}: {parsed.detail}")
        elif not parsed:
            lines.append(f"  {label}: EMPTY: no GPU offers (an error for this part)")
        else:
            states = Counter(o.stock.value for o in parsed)
            counted = ", ".join(
                f"{s.value} {states[s.value]}" for s in StockState if states[s.value]
            )
            lines.append(f"  {label}: {len(parsed)} offers ({counted})")
            unknown = sorted({(o.gpu_raw, o.gpu) for o in parsed if not o.gpu_known})
            for raw, gpu in unknown:
                lines.append(f"    unknown GPU name, kept: {raw!r} -> {gpu!r}")
        by_reason: defaultdict[str, list[str]] = defaultdict(list)
        for skip in skips.pop(part, []):
            by_reason[skip.reason].append(skip.item)
        for reason, items in sorted(by_reason.items()):
            shown = ", ".join(items[:EXAMPLES]) + (", …" if len(items) > EXAMPLES else "")
            lines.append(f"    skipped {len(items)}: {reason}: {shown}")
    for part, left in skips.items():  # skips of a part that is not in the result (none today)
        lines.append(f"  {part or '(whole)'}: {len(left)} rows skipped")
    lines.extend(f"  note: {warning}" for warning in outcome.warnings)
    return lines
