"""The provider registry: one record per provider, found by id or by any word users type."""

from __future__ import annotations

import pytest

from monitor.providers import HOSTKEY, IMMERS, PROVIDERS, SELECTEL, Provider, Providers


def record(provider_id: str, *aliases: str) -> Provider:
    return Provider(
        id=provider_id,
        name=provider_id.title(),
        aliases=aliases,
        interval_s=60,
        base_url="http://127.0.0.1:9",
        public_url="https://example.test",
        scraper="scrapers.nowhere:Nothing",
    )


def test_the_real_providers_in_list_order():
    assert PROVIDERS.ids == ("selectel", "hostkey", "immers")
    assert [PROVIDERS.name(p) for p in PROVIDERS.ids] == ["Selectel", "HOSTKEY", "immers.cloud"]
    assert list(PROVIDERS) == [SELECTEL, HOSTKEY, IMMERS]


@pytest.mark.parametrize(
    ("word", "provider"),
    [
        ("selectel", "selectel"),
        ("Селектел", "selectel"),
        ("HOSTKEY.ru", "hostkey"),
        ("хостки", "hostkey"),
        ("immers.cloud", "immers"),
        ("иммерсе", "immers"),
        ("aws", None),
        ("", None),
    ],
)
def test_a_word_names_its_provider_in_any_case(word: str, provider: str | None):
    assert PROVIDERS.find(word) == provider


def test_a_provider_no_longer_registered_keeps_its_id_as_name():
    assert PROVIDERS.name("oldcloud") == "oldcloud"
    with pytest.raises(KeyError, match="oldcloud"):
        PROVIDERS.get("oldcloud")


def test_ids_and_words_are_unique():
    with pytest.raises(ValueError, match="registered twice"):
        Providers((record("acme"), record("acme")))
    with pytest.raises(ValueError, match="'cloud' names both acme and zeta"):
        Providers((record("acme", "cloud"), record("zeta", "cloud")))


def test_a_record_is_checked_when_made():
    with pytest.raises(ValueError, match="lower-case letters and digits"):
        record("Acme-Cloud")
    with pytest.raises(ValueError, match="lower case"):
        record("acme", "ACME")
    assert record("acme", "acme", "акме").words == ("acme", "акме")
    assert record("acme").url_setting == "acme_url"


def test_added_lasts_the_block_and_refuses_a_clash():
    extra = record("acme", "акме")
    with PROVIDERS.added(extra):
        assert PROVIDERS.ids[-1] == "acme"
        assert PROVIDERS.find("АКМЕ") == "acme"
        assert PROVIDERS.name("acme") == "Acme"
    assert "acme" not in PROVIDERS
    assert PROVIDERS.find("акме") is None
    with (
        pytest.raises(ValueError, match="'selectel' names both"),
        PROVIDERS.added(record("other", "selectel")),
    ):
        pass
    assert PROVIDERS.ids == ("selectel", "hostkey", "immers")
