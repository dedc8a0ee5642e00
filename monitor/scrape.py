"""What a scrape returns: offers per part, or a typed error. A failure is never an empty list.

A provider is scraped in parts that fail on their own (Selectel: dedicated servers, chip
servers, cloud prices; HOSTKEY: each location's presets and the stock servers; immers: each
model page). A ScrapeResult maps each part to its offers or to the ScrapeError that part met,
so one bad endpoint costs only its own offers. A provider scraped as one piece has the single
part WHOLE.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

from monitor.offers import Offer
from monitor.redaction import hide_userinfo

# The part name of a provider scraped as one piece (and of offers stored before parts).
WHOLE = ""


class ScrapeError(Exception):
    """A provider could not be read. The class name is what operators see. Its detail is
    stored, logged and served (/api/v1/providers): a base URL's credentials never reach it,
    whatever the error text from aiohttp or a parser quoted."""

    def __init__(self, provider: str, detail: str) -> None:
        detail = hide_userinfo(detail)
        super().__init__(f"{provider}: {detail}")
        self.provider = provider
        self.detail = detail

    @property
    def kind(self) -> str:
        return type(self).__name__


class NetworkError(ScrapeError):
    """Connection refused, DNS, timeout, reset: nothing usable came back."""


class HttpStatusError(ScrapeError):
    """The server answered with a non-2xx status (after retries where retrying helps)."""

    def __init__(self, provider: str, detail: str, status: int) -> None:
        super().__init__(provider, detail)
        self.status = status


class RedirectError(ScrapeError):
    """The server sent us elsewhere: to another host, or round more redirects than allowed.

    An answer from another host is not the provider's data, however well formed it is.
    """


class AntiBotError(ScrapeError):
    """A captcha or bot-check page came back instead of the data."""


class ApiError(ScrapeError):
    """The API reported an error inside a 2xx body (HOSTKEY's result: ERROR)."""


class LayoutError(ScrapeError):
    """The data no longer has the shape we parse: no GPU offers, or required fields gone."""


# One part's outcome: its offers (possibly none: the monitor treats that as an error), or why
# it could not be read.
PartOutcome = tuple[Offer, ...] | ScrapeError


@dataclass(frozen=True)
class Skip:
    """A row a parser did not turn into an offer, and why: the `--check` report's lines."""

    part: str
    reason: str  # a short, stable category: "unknown resource", "no price", ...
    item: str  # which row: a config name, a resource, a flavor


@dataclass(frozen=True)
class ScrapeResult:
    """One scrape of one provider.

    `offers` are the offers of every part that parsed, in part order. `parts` says which part
    each came from, or why a part gave none; left out, it is the single part WHOLE. Build a
    multi-part result with `from_parts`.
    """

    provider: str
    offers: tuple[Offer, ...]
    fetched_at: datetime
    warnings: tuple[str, ...] = ()
    parts: Mapping[str, PartOutcome] = field(default_factory=dict)
    skipped: tuple[Skip, ...] = ()

    def __post_init__(self) -> None:
        if not self.parts:
            object.__setattr__(self, "parts", MappingProxyType({WHOLE: tuple(self.offers)}))
            return
        listed = tuple(
            o for outcome in self.parts.values() if isinstance(outcome, tuple) for o in outcome
        )
        if listed != tuple(self.offers):
            raise ValueError(f"{self.provider}: offers do not match the parts' offers")

    @classmethod
    def from_parts(
        cls,
        provider: str,
        parts: Mapping[str, PartOutcome],
        fetched_at: datetime,
        warnings: tuple[str, ...] = (),
        skipped: tuple[Skip, ...] = (),
    ) -> ScrapeResult:
        if not parts:
            raise ValueError(f"{provider}: a scrape has at least one part")
        frozen = MappingProxyType(dict(parts))
        offers = tuple(
            o for outcome in frozen.values() if isinstance(outcome, tuple) for o in outcome
        )
        return cls(provider, offers, fetched_at, warnings, frozen, skipped)

    @property
    def failures(self) -> dict[str, ScrapeError]:
        """The parts that could not be read, with their errors."""
        return {name: out for name, out in self.parts.items() if isinstance(out, ScrapeError)}

    def part_of(self) -> dict[tuple[str, str, str], str]:
        """Offer key -> the part it came from."""
        return {
            offer.key: name
            for name, outcome in self.parts.items()
            if isinstance(outcome, tuple)
            for offer in outcome
        }
