"""The Mini App's shipped bundle (bot/miniapp/static): built from the shipped sources
(miniapp/, `make miniapp`), small, self-contained, and speaking the bot's texts."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

from fluent.syntax import FluentParser, ast

from bot.miniapp.app_api import STATIC_DIR
from bot.miniapp.texts import app_texts
from estimator.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ROOT / "miniapp"
# The ceiling for the table and chart page, which is the whole app.
MAX_GZIPPED = 150 * 1024
# The only absolute URLs the bundle may hold: XML namespaces, which nothing fetches.
NAMESPACES = re.compile(r"http://www\.w3\.org/[0-9]{4}/(svg|xlink|xhtml|Math/MathML)")
# And Telegram's own bridge, which Telegram asks Mini Apps to load from telegram.org
# (core.telegram.org/bots/webapps): the page works without it.
TELEGRAM_SCRIPT = '<script src="https://telegram.org/js/telegram-web-app.js" defer></script>'


def source_digest() -> str:
    """The digest miniapp/scripts/source-hash.js writes after each build, recomputed."""
    files = ["index.html", "package.json", "package-lock.json", "vite.config.js"]
    files += [path.relative_to(SOURCES).as_posix() for path in (SOURCES / "src").rglob("*")]
    digest = hashlib.sha256()
    for name in sorted(files, key=lambda name: name.encode()):
        path = SOURCES / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def shipped() -> list[Path]:
    return [path for path in STATIC_DIR.rglob("*") if path.is_file()]


def test_the_shipped_bundle_was_built_from_the_shipped_sources():
    recorded = (STATIC_DIR / "source-hash.txt").read_text().strip()
    assert recorded == source_digest(), "miniapp/ changed since the build: run `make miniapp`"


def test_the_page_names_only_assets_that_are_shipped():
    html = (STATIC_DIR / "index.html").read_text()
    named = re.findall(r'(?:src|href)="/app/(assets/[^"]+)"', html)
    assert named, "index.html names no bundle"
    for asset in named:
        assert (STATIC_DIR / asset).is_file(), asset


def test_the_whole_app_is_well_under_150_kb_gzipped():
    total = sum(len(gzip.compress(path.read_bytes(), 9)) for path in shipped())
    assert total < MAX_GZIPPED


def test_nothing_is_loaded_from_another_site():
    for path in shipped():
        if path.suffix not in (".js", ".css", ".html"):
            continue
        text = NAMESPACES.sub("", path.read_text()).replace(TELEGRAM_SCRIPT, "", 1)
        assert not re.search(r"https?://", text), f"{path.name} names another site"
    assert TELEGRAM_SCRIPT in (STATIC_DIR / "index.html").read_text()


def ids(source: str) -> set[str]:
    return {
        entry.id.name
        for entry in FluentParser().parse(source).body
        if isinstance(entry, ast.Message)
    }


def test_every_text_the_app_asks_for_is_in_every_language():
    texts = app_texts()
    assert set(texts) == set(LANGUAGES)
    per_language = {language: ids(source) for language, source in texts.items()}
    assert per_language["ru"] == per_language["en"]
    asked = set()
    for path in (SOURCES / "src").rglob("*.js*"):
        asked |= set(re.findall(r"\bt\(\s*'(app-[a-z0-9-]+)'", path.read_text()))
    assert asked, "no t('app-…') calls found: has the app's text function changed?"
    assert asked <= per_language["ru"], sorted(asked - per_language["ru"])
