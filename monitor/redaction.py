"""What an error, a log line or an exit message may show of a URL a setting holds."""

from __future__ import annotations

import re

# A URL's password: after the scheme's "//" and the user name's ":", up to the last "@" of
# the authority (as urllib.parse.urlsplit reads it, so a raw "@" inside is covered).
_PASSWORD = re.compile(r"(?<=//)([^/?#@\s:]*):[^/?#\s]*@")


def hide_userinfo(text: str) -> str:
    """`text` with the password of every URL in it replaced by *** (the user name stays: it
    says whose credentials, and is no secret)."""
    return _PASSWORD.sub(r"\1:***@", text)
