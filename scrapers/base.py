"""What every provider module provides, and what they share: a part's parse record and the
guard that turns a part's failure into that part's error.

Every scraper parses in a worker thread (asyncio.to_thread): decoding and normalising a 5 MB
answer takes longer than the event loop may stop for (bench/scrape.py measures the stall)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from monitor.offers import Offer
from monitor.scrape import LayoutError, PartOutcome, ScrapeError, ScrapeResult, Skip
from scrapers import jsonscan
from scrapers.http import Response

logger = logging.getLogger(__name__)


class Scraper(Protocol):
    """One provider's scraper, holding the HTTP client it was built with: the OfferSource the
    monitor refreshes (monitor/pipeline.py)."""

    name: str  # its provider's id (monitor/providers.py)
    default_interval_s: int
    base_url: str  # where its requests go (the real site, a fake, a replay)

    async def fetch(self) -> ScrapeResult: ...


@dataclass
class Parsed:
    """What parsing one part gave: its offers, and each row it skipped with the reason."""

    part: str
    offers: list[Offer] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # read, but on a guess worth a look

    def skip(self, reason: str, item: str) -> None:
        self.skips.append(Skip(self.part, reason, item))

    def warn(self, text: str) -> None:
        self.warnings.append(f"{self.part}: {text}" if self.part else text)


class _Parse(Protocol):
    @property
    def offers(self) -> Sequence[Offer]: ...

    @property
    def skips(self) -> Sequence[Skip]: ...

    @property
    def warnings(self) -> Sequence[str]: ...


ParseT = TypeVar("ParseT", bound=_Parse)


def guarded(
    provider: str,
    part: str,
    parse: Callable[[], ParseT],
    skips: list[Skip],
    warnings: list[str],
) -> PartOutcome:
    """Run one part's parser: its offers (its skips and warnings go to the lists given), or
    its error. A crash on provider garbage is that part's LayoutError, never the other parts'
    loss."""
    try:
        parsed = parse()
    except ScrapeError as error:
        return error
    except Exception as error:  # a parser bug on odd input fails the part, not the scrape
        logger.exception("%s: part %r: parser crashed", provider, part)
        return LayoutError(provider, f"{part}: parser crashed: {type(error).__name__}: {error}")
    skips.extend(parsed.skips)
    warnings.extend(parsed.warnings)
    return tuple(parsed.offers)


def decode_json(provider: str, response: Response) -> Any:
    """The body as JSON, decoded row by row (scrapers.jsonscan); not JSON is a LayoutError."""
    try:
        return jsonscan.loads(response.body)
    except ValueError as error:
        raise LayoutError(provider, f"{response.url}: not JSON ({error})"[:300]) from None


def unique_across_parts(parts: dict[str, PartOutcome], skips: list[Skip]) -> None:
    """An offer key may appear once per scrape: a later part's repeat is dropped (skipped)."""
    seen: set[tuple[str, str, str]] = set()
    for name, outcome in parts.items():
        if not isinstance(outcome, tuple):
            continue
        kept = []
        for offer in outcome:
            if offer.key in seen:
                skips.append(
                    Skip(name, "listed in an earlier part too", f"{offer.sku} @ {offer.location}")
                )
                continue
            seen.add(offer.key)
            kept.append(offer)
        parts[name] = tuple(kept)
