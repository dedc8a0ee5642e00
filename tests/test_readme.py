"""README's configuration table lists every setting there is, and only those; the
providers' URL rows give the registry's defaults."""

from __future__ import annotations

import re
from pathlib import Path

from bot.config import ENV_PREFIX, Settings
from monitor.providers import PROVIDERS

README = Path(__file__).resolve().parents[1] / "README.md"
# A row of the table: | `GPURADAR_A` / `GPURADAR_B` (or `ALIAS`) | default | meaning |
_ROW = re.compile(r"^\| (?P<names>[^|]*`GPURADAR_[^|]*) \| (?P<default>[^|]*) \|", re.MULTILINE)


def table_rows() -> dict[str, str]:
    rows: dict[str, str] = {}
    for row in _ROW.finditer(README.read_text(encoding="utf-8")):
        for name in re.findall(r"`(GPURADAR_[A-Z0-9_]+)`", row["names"]):
            rows[name] = row["default"]
    return rows


def test_the_table_names_every_setting_and_nothing_else():
    settings = {f"{ENV_PREFIX}{name}".upper() for name in Settings.model_fields}
    assert set(table_rows()) == settings


def test_each_providers_url_row_gives_its_registry_default():
    rows = table_rows()
    for provider in PROVIDERS:
        assert rows[f"{ENV_PREFIX}{provider.url_setting}".upper()] == f"`{provider.base_url}`"
