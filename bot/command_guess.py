"""The known command a mistyped one most likely meant: /prises -> /prices, /wacth -> /watch."""

from __future__ import annotations

from difflib import get_close_matches

from bot.commands import MENU_COMMANDS

# Every command a user can type; /admin is left out so a typo never advertises it.
KNOWN_COMMANDS = MENU_COMMANDS
# difflib's ratio: prises/prices 0.83, wacth/watch 0.8, fitt/fit 0.86; below 0.7 two short
# words share too little (foo/fit 0.33, hello/help 0.67) to be one command mistyped.
_CUTOFF = 0.7


def command_name(text: str) -> str:
    """ "/Prises@gpuradar_bot 80gb" -> "prises"."""
    first = text.split(maxsplit=1)[0] if text.split() else ""
    return first.lstrip("/").split("@", 1)[0].lower()


def guess_command(text: str) -> str | None:
    """The nearest known command's name, or None when none is near enough."""
    name = command_name(text)
    if not name or name in KNOWN_COMMANDS:
        return None
    found = get_close_matches(name, KNOWN_COMMANDS, n=1, cutoff=_CUTOFF)
    return found[0] if found else None
