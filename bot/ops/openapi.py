"""The OpenAPI 3.1 description of /api/v1 (bot.ops.open_data), served at /api/v1/openapi.json."""

from __future__ import annotations

from typing import Any

_STRING = {"type": "string"}
_NUMBER = {"type": "number"}
_INTEGER = {"type": "integer"}
_WHEN = {"type": "string", "format": "date-time"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"oneOf": [schema, {"type": "null"}]}


def _row(properties: dict[str, Any]) -> dict[str, Any]:
    """An object with every one of `properties` present (null where the schema allows)."""
    return {"type": "object", "properties": properties, "required": list(properties)}


def _query(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "query", "description": description, "schema": schema or _STRING}


_STOCK = {
    "type": "string",
    "enum": ["in_stock", "out_of_stock", "preorder", "unknown"],
    "description": "unknown: the provider does not publish stock (not the same as none)",
}
_OFFER = _row(
    {
        "provider": _STRING,
        "provider_name": _STRING,
        "sku": _STRING,
        "location": _STRING,
        "gpu": _STRING,
        "gpu_raw": {**_STRING, "description": "the GPU as the provider wrote it"},
        "gpu_count": _INTEGER,
        "vram_gb": _nullable(_NUMBER),
        "billing": {"type": "string", "enum": ["hourly", "monthly", "preemptible"]},
        "price_hour_rub": _NUMBER,
        "price_gpu_hour_rub": _NUMBER,
        "price_month_rub": {**_nullable(_NUMBER), "description": "monthly rentals only"},
        "price_source": {**_STRING, "description": "what the provider published"},
        "converted": {"type": "boolean", "description": "a currency rate was applied"},
        "vat": {"type": "string", "description": "whether the price includes VAT, as published"},
        "stock": _STOCK,
        "stock_count": {**_nullable(_INTEGER), "description": "null: not published"},
        "url": {**_STRING, "description": "the provider's page for the offer"},
        "source_url": {**_STRING, "description": "where gpuradar read it (API or site)"},
        "observed_at": {
            **_WHEN,
            "description": "the last scrape in which this offer's part of its provider "
            "succeeded: older than the provider's last scrape while that part fails",
        },
        "stale": {
            "type": "boolean",
            "description": "the provider's latest scrape did not confirm this offer: its "
            "part (or the whole scrape) failed, was empty or is held as suspect; the offer "
            "is as it was at observed_at",
        },
        "stale_reason": {
            **_nullable({"type": "string", "enum": ["failed", "empty", "suspect"]}),
            "description": "why it is stale (null when it is not): failed (an error), empty "
            "(no GPU offers came back), suspect (more than half the part's offers vanished "
            "at once; held until seen 3 times)",
        },
        "error_class": {
            **_nullable(_STRING),
            "description": "the error the offer's part (or the whole scrape) met, e.g. "
            "HttpStatusError; null when it is not stale or is held as suspect",
        },
        "rentable": {
            "type": "boolean",
            "description": "counts as rentable now: stock in_stock or unknown, and not stale "
            "for longer than stale_after_s since observed_at (past that, plans, watches and "
            "in_stock=true leave it out)",
        },
    }
)
_POINT = _row(
    {
        "provider": _STRING,
        "provider_name": _STRING,
        "sku": _STRING,
        "location": _STRING,
        "gpu": _STRING,
        "gpu_count": _INTEGER,
        "at": {**_WHEN, "description": "from here until the offer's next point"},
        "price_hour_rub": _NUMBER,
        "price_gpu_hour_rub": _NUMBER,
        "stock": _STOCK,
        "stock_count": _nullable(_INTEGER),
    }
)
_PROVIDER = _row(
    {
        "id": _STRING,
        "name": _STRING,
        "site": {**_STRING, "description": "the provider's public site"},
        "source_url": {**_STRING, "description": "where gpuradar reads it (API or site)"},
        "refresh_interval_s": _NUMBER,
        "last_attempt_at": _nullable(_WHEN),
        "last_good_scrape_at": _nullable(_WHEN),
        "fresh": {"type": "boolean", "description": "the last good scrape is recent enough"},
        "failing": {"type": "boolean", "description": "the last attempt failed"},
        "consecutive_failures": _INTEGER,
        "last_error_class": _nullable(_STRING),
        "failing_parts": {
            "type": "array",
            "description": "parts of the poll that failed or were held as suspect",
            "items": _row({"part": _STRING, "state": _STRING, "error_class": _nullable(_STRING)}),
        },
        "offers": {**_INTEGER, "description": "offers listed from this provider now"},
    }
)
_OFFER_PARAMETERS = [
    _query("gpu", "a GPU or family as people write it: h100, a100 80gb, rtx 4090"),
    _query("min_vram", "at least this many GB per GPU: 48, 80gb"),
    _query("max", "at most this many ₽ per GPU-hour: 300, 300,5 (a decimal comma), 300 ₽"),
    _query("provider", "a provider id or name"),
    _query("location", "a location word"),
    _query("billing", "hourly, monthly or preemptible"),
    _query(
        "in_stock",
        "true: only offers in stock, leaving out stale ones older than stale_after_s",
        {"type": "boolean"},
    ),
    _query("format", "json (default) or csv; or Accept: text/csv"),
]
_ERRORS = {
    "304": {"description": "the ETag sent in If-None-Match still holds"},
    "400": {
        "description": "a parameter the API cannot use; `error` says which and why, `param` "
        "names it"
    },
    "429": {"description": "too many requests from this client; see Retry-After"},
}


def _answer(description: str, schema: dict[str, Any], *media: str) -> dict[str, Any]:
    content = {kind: {"schema": schema} for kind in ("application/json", *media)}
    return {"200": {"description": description, "content": content}, **_ERRORS}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "gpuradar open data",
        "version": "1",
        "description": (
            "GPU offers, prices and stock of Russian clouds (Selectel, HOSTKEY, immers.cloud) "
            "as gpuradar last read them. Prices in ₽. Stock is what the provider published "
            "at observed_at, not a reservation. An offer whose source stopped answering stays "
            "listed, marked stale; stale for longer than stale_after_s "
            "(GPURADAR_STALE_AFTER_S, an hour by default), it no longer counts as rentable."
        ),
    },
    "paths": {
        "/api/v1/offers": {
            "get": {
                "summary": (
                    "Every offer listed now, in the order /prices shows: training-grade "
                    "cards first, one group per card, cheapest per GPU-hour inside a group"
                ),
                "parameters": _OFFER_PARAMETERS,
                "responses": _answer(
                    "the offers",
                    _row(
                        {
                            "offers": {"type": "array", "items": _OFFER},
                            "count": _INTEGER,
                            "generated_at": {
                                **_nullable(_WHEN),
                                "description": "the newest observed_at of any offer",
                            },
                            "stale_after_s": {
                                **_INTEGER,
                                "description": "how long after observed_at a stale offer "
                                "stops counting as rentable (GPURADAR_STALE_AFTER_S)",
                            },
                        }
                    ),
                    "text/csv",
                ),
            }
        },
        "/api/v1/offers.csv": {
            "get": {
                "summary": "The offers as CSV, one row each, the fields of the JSON's rows",
                "parameters": [p for p in _OFFER_PARAMETERS if p["name"] != "format"],
                "responses": {
                    "200": {"description": "the offers", "content": {"text/csv": {}}},
                    **_ERRORS,
                },
            }
        },
        "/api/v1/history": {
            "get": {
                "summary": "A GPU's change points, and the lowest rentable price among them",
                "parameters": [
                    {**_query("gpu", "a GPU or family"), "required": True},
                    _query("days", "1 to 90, default 30", _INTEGER),
                ],
                "responses": _answer(
                    "the points",
                    _row(
                        {
                            "gpu": _STRING,
                            "gpu_ids": {"type": "array", "items": _STRING},
                            "since": _WHEN,
                            "points": {"type": "array", "items": _POINT},
                            "low": _nullable(_POINT),
                        }
                    ),
                ),
            }
        },
        "/api/v1/providers": {
            "get": {
                "summary": "Each provider: health, last good scrape, failing parts",
                "responses": _answer(
                    "the providers",
                    _row({"providers": {"type": "array", "items": _PROVIDER}}),
                ),
            }
        },
        "/api/v1/openapi.json": {
            "get": {
                "summary": "This description",
                "responses": _answer("OpenAPI 3.1", {"type": "object"}),
            }
        },
    },
}
