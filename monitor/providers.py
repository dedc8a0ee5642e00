"""The providers gpuradar watches: one record each, read by everything that names a provider.

A record says who a provider is (its id, the name users read, the words users type in /watch
and /prices), how often it is refreshed, where its scraper's requests go by default (the
setting `<id>_url`, `GPURADAR_<ID>_URL`), which site users are sent to, and which class scrapes
it. The class is named as "module:Class" and resolved by scrapers/registry.py: monitor may not
import scrapers, and the record stays the one place a provider is spelled.

Adding a provider is a record here and a scraper module under scrapers/ (docs/design.md,
"Providers").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

_ID = re.compile(r"^[a-z][a-z0-9]*$")  # a settings field, an env var and a callback word


@dataclass(frozen=True)
class Provider:
    id: str  # stored with every offer: never renamed
    name: str  # what users read: «Selectel», «immers.cloud»
    aliases: tuple[str, ...]  # what users may type for it in /watch and /prices, lower case
    interval_s: int  # the default refresh interval (GPURADAR_REFRESH_SECONDS overrides all)
    base_url: str  # the default of the setting `url_setting`: where the scraper's requests go
    public_url: str  # the provider's site, for users (offers link to pages under it)
    scraper: str  # "module:Class" of its scraper (scrapers/registry.py resolves it)
    # The country every location of the provider is in, when its location words do not say
    # (monitor/locations.py); "" when they name the country or it varies.
    country: str = ""

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"provider id {self.id!r}: lower-case letters and digits only")
        if any(alias != alias.lower() for alias in self.aliases):
            raise ValueError(f"{self.id}: aliases are matched in lower case")

    @property
    def url_setting(self) -> str:
        """The settings field of the base URL (scrapers/config.py builds one per record)."""
        return f"{self.id}_url"

    @property
    def words(self) -> tuple[str, ...]:
        """Every word that names the provider: its id, then its aliases."""
        return (self.id, *(alias for alias in self.aliases if alias != self.id))


class Providers:
    """The registered providers, in the order lists show them; looked up by id or by word."""

    def __init__(self, records: Sequence[Provider]) -> None:
        self._records: tuple[Provider, ...] = ()
        self._by_id: dict[str, Provider] = {}
        self._by_word: dict[str, str] = {}
        self._set(tuple(records))

    def _set(self, records: tuple[Provider, ...]) -> None:
        by_id: dict[str, Provider] = {}
        by_word: dict[str, str] = {}
        for record in records:
            if record.id in by_id:
                raise ValueError(f"provider {record.id!r} registered twice")
            by_id[record.id] = record
            for word in record.words:
                if by_word.setdefault(word, record.id) != record.id:
                    raise ValueError(f"{word!r} names both {by_word[word]} and {record.id}")
        self._records, self._by_id, self._by_word = records, by_id, by_word

    def __iter__(self) -> Iterator[Provider]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, provider_id: object) -> bool:
        return provider_id in self._by_id

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(record.id for record in self._records)

    def get(self, provider_id: str) -> Provider:
        try:
            return self._by_id[provider_id]
        except KeyError:
            raise KeyError(f"no provider {provider_id!r}") from None

    def name(self, provider_id: str) -> str:
        """The name users read; the id itself for one no longer registered (old history)."""
        record = self._by_id.get(provider_id)
        return record.name if record is not None else provider_id

    def find(self, word: str) -> str | None:
        """The id of the provider a typed word names («селектел» -> "selectel"), or None."""
        return self._by_word.get(word.lower())

    @contextmanager
    def added(self, record: Provider) -> Iterator[Provider]:
        """The registry with one more provider for the block's length: how a test shows that
        a record and a scraper are all a new provider takes, without editing these records."""
        before = self._records
        self._set((*before, record))
        try:
            yield record
        finally:
            self._set(before)


SELECTEL = Provider(
    id="selectel",
    name="Selectel",
    aliases=("selectel.ru", "селектел", "селектеле"),
    interval_s=600,
    base_url="https://api.selectel.ru",
    public_url="https://selectel.ru",
    scraper="scrapers.selectel:SelectelScraper",
    country="RU",  # data centres in Moscow, St Petersburg, Novosibirsk; cloud pools ru-*
)
HOSTKEY = Provider(
    id="hostkey",
    name="HOSTKEY",
    aliases=("hostkey.ru", "хосткей", "хосткее", "хостки"),
    # The catalogue changes slowly; HOSTKEY's own terraform provider caches it.
    interval_s=900,
    base_url="https://invapi.hostkey.ru",
    public_url="https://hostkey.ru",
    scraper="scrapers.hostkey:HostkeyScraper",
)
IMMERS = Provider(
    id="immers",
    name="immers.cloud",
    aliases=("immers.cloud", "immerscloud", "иммерс", "иммерсе"),
    interval_s=900,
    base_url="https://immers.cloud",
    public_url="https://immers.cloud",
    scraper="scrapers.immers:ImmersScraper",
    country="RU",  # publishes no location; its data centres are in Russia (its site)
)

PROVIDERS = Providers((SELECTEL, HOSTKEY, IMMERS))
