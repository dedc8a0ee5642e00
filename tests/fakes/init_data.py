"""Mini App initData as Telegram signs it, for tests (core.telegram.org/bots/webapps,
"Validating data received via the Mini App"): written here from the published recipe, not
with the code under test."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime
from typing import Any
from urllib.parse import urlencode


def signed_init_data(
    token: str,
    *,
    user_id: int | None,
    auth_date: datetime,
    language_code: str = "ru",
    **extra: Any,
) -> str:
    """`user_id` None: signed data that names no user."""
    fields: dict[str, str] = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "auth_date": str(int(auth_date.timestamp())),
        **{key: str(value) for key, value in extra.items()},
    }
    if user_id is not None:
        fields["user"] = json.dumps(
            {"id": user_id, "first_name": "Аня", "language_code": language_code},
            ensure_ascii=False,
            separators=(",", ":"),
        )
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)
