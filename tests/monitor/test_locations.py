"""Where an offer's location is: Russian sites by their names, the rest by country code."""

from __future__ import annotations

import pytest

from monitor.locations import country_of


@pytest.mark.parametrize(
    ("provider", "location", "country"),
    [("selectel", "MSK-1", "RU"), ("selectel", "SPB-2", "RU"), ("selectel", "ru-7a", "RU"),
     ("immers", "ru", "RU"), ("hostkey", "RU", "RU"), ("hostkey", "NL", "NL"),
     ("hostkey", "fi", "FI"), ("hostkey", "Amsterdam DC", ""), ("selectel", "NSK-1", "RU")],
)  # fmt: skip
def test_country_of(provider: str, location: str, country: str):
    assert country_of(provider, location) == country
