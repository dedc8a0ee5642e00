"""One TLS context for every Bot API session a test makes.

aiogram's AiohttpSession loads the CA bundle into a new TLS context for each session it makes
(`ssl.create_default_context`, 15-20 ms of CPU). The suite makes hundreds of sessions, every
one for a plain-http fake on 127.0.0.1 that never uses its context: here they share one, made
as aiogram makes it. The bot processes the suite starts make their own, as in production.
"""

from __future__ import annotations

import ssl
from functools import cache
from types import SimpleNamespace


def share_one_context() -> None:
    """From now on, in this process, aiogram's sessions share one context per CA bundle."""
    # Imported here: xdist's controller, which runs no test, need not import aiogram.
    from aiogram.client.session import aiohttp

    # aiogram's module uses its `ssl` only for create_default_context: a namespace without
    # the rest would fail loudly, not silently, should that change.
    aiohttp.ssl = SimpleNamespace(  # type: ignore[attr-defined,assignment]
        create_default_context=cache(ssl.create_default_context)
    )
