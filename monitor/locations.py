"""Which country an offer's location is in: «только РФ» and the foreign flag in answers read it.

Locations come in each provider's own words:

* HOSTKEY names a location by its ISO 3166 country code (RU, NL, FI, DE, US, ...): the
  `location` parameter of its API (scrapers/hostkey_parse.py);
* Selectel names data centres by city (MSK-1, SPB-2, NSK-1) and cloud pools by region (ru-7a):
  every one of those is in Russia (Selectel's own location list; the scraper keeps only
  the `ru-*` cloud pools);
* immers.cloud publishes no location: its data centres are in Russia (its site), and the
  scraper records "ru".

A provider whose every location is in one country says so in its record (`country`,
monitor/providers.py): that answers for location words that name none.
"""

from __future__ import annotations

import re

from monitor.providers import PROVIDERS

RUSSIA = "RU"
# Selectel's Russian data-centre prefixes: Moscow, St Petersburg, Novosibirsk.
_RUSSIAN_SITES = re.compile(r"^(?:msk|spb|nsk|ru)(?:[-_]|\d|$)", re.IGNORECASE)
_COUNTRY_CODE = re.compile(r"^[A-Za-z]{2}$")


def country_of(provider: str, location: str) -> str:
    """The ISO 3166 code of the location's country, or "" when its words say nothing."""
    code = location.strip()
    if _RUSSIAN_SITES.match(code):
        return RUSSIA
    if _COUNTRY_CODE.match(code):
        return code.upper()
    return PROVIDERS.get(provider).country if provider in PROVIDERS else ""
