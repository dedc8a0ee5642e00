"""Selectel: pure parsers from the public API's JSON to Offers (no I/O, easy to fuzz).

Two sources (shared/research/providers.md §1):
* dedicated servers, `GET /servers/v2/pub/service/server` and `/serverchip` with the data
  centres from `/servers/v2/pub/location`: one offer per (config, storefront location);
* cloud GPU Line, `GET /prices/vpc?currency=rub`: one price-only offer per (GPU, pool).

Every fact that a live check still has to confirm sits in the ASSUMED block below.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from estimator.gpus import get as gpu_spec
from monitor.offers import HOURS_PER_MONTH, Offer, Price, StockState, Vat
from monitor.scrape import ApiError, LayoutError
from scrapers.gpu_names import canonical_gpu

PROVIDER = "selectel"
logger = logging.getLogger(__name__)


# --- ASSUMED (confirm against the live site) --------------------------------------------------
@dataclass(frozen=True)
class Assumed:
    """Facts to confirm live. Two rules live in code, not in a value here:
    * a storefront location listed in available[] with count 0 is one where the config is sold
      but gone: out_of_stock there, or preorder when the config has is_preorder (_state);
    * several /prices/vpc rows for one resource and pool differ by `threshold`; the lowest
      threshold is the base price (_cloud_rows).
    """

    # Dedicated prices are shown with VAT, as the cloud prices are (seen only for cloud).
    dedicated_vat: Vat = Vat.INCLUDED
    # The per-location price: its shape was never seen. We read it as a dict keyed by location
    # uuid whose values look like `price_collection` ({"RUB": {"month": ...}}); where present it
    # is what that location charges instead of the base price.
    location_price_key: str = "location_price_collection"
    # Storefront locations, as a third-party scraper mirrors the website (seen-code, 2026-09).
    visible_visibility: str = "everywhere"
    visible_ordering: str = "enabled"
    visible_prefixes: tuple[str, ...] = ("MSK", "SPB", "NSK")
    # A config whose `gpu` is empty but whose name or tags say GPU is a broken GPU row (warned),
    # not a plain server (silently dropped). The GL* naming comes from a test fixture.
    gpu_config_name: re.Pattern[str] = re.compile(r"^GL\d", re.IGNORECASE)
    gpu_tag_word: str = "gpu"
    # Cloud GPU resources in /prices/vpc: names never seen. resource -> (GPU name, VRAM GB).
    cloud_gpus: Mapping[str, tuple[str, float]] = field(
        default_factory=lambda: {
            "gpu_tesla_t4": ("Tesla T4", 16),
            "gpu_a2": ("A2", 16),
            "gpu_l4": ("L4", 24),
            "gpu_a30": ("A30", 24),
            "gpu_a5000": ("RTX A5000", 24),
            "gpu_rtx4090": ("RTX 4090", 24),
            "gpu_rtx6000ada": ("RTX 6000 Ada", 48),
            "gpu_rtx6000pro": ("RTX PRO 6000", 96),
            "gpu_a100_40": ("A100 40GB", 40),
            "gpu_a100_80": ("A100 80GB", 80),
            "gpu_h100": ("H100 80GB", 80),
            "gpu_h200": ("H200", 141),
        }
    )
    # A /prices/vpc resource containing this word but missing from `cloud_gpus` is reported.
    cloud_gpu_marker: str = "gpu"
    # /prices/vpc `value`: kopecks per hour per unit, VAT included (seen-code, about 2020).
    cloud_value_divisor: float = 100.0
    cloud_vat: Vat = Vat.INCLUDED
    # Pages a user can open (the config name as a fragment only helps them find the card).
    dedicated_url: str = "https://selectel.ru/services/dedicated/"
    cloud_url: str = "https://selectel.ru/services/cloud/servers/gpu/"


ASSUMED = Assumed()
# -----------------------------------------------------------------------------------------------

CLOUD_NOTE = "cpu_ram_extra"  # a cloud GPU is priced alone: vCPU and RAM are billed on top
_VRAM_IN_NAME = re.compile(r"(\d+)\s*GB\b", re.IGNORECASE)


@dataclass(frozen=True)
class Location:
    name: str
    visible: bool  # counted by the storefront


@dataclass
class Parsed:
    """What one source yields: offers plus the rows it skipped, in words."""

    offers: list[Offer] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    gpu_rows: int = 0  # rows that were GPU configs/resources (offered, hidden or broken)

    def warn(self, text: str) -> None:
        logger.warning("%s: %s", PROVIDER, text)
        self.warnings.append(text)


# ------------------------------------------------------------------------------ shared bits


def _result_list(doc: Any, what: str) -> list[Any]:
    """The `result` list of a pub API answer; an error body is an ApiError, anything else is
    a LayoutError."""
    if isinstance(doc, dict) and "result" not in doc and ("error" in doc or "message" in doc):
        raise ApiError(PROVIDER, f"{what}: error in a 200 body: {str(doc)[:200]}")
    rows = doc.get("result") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise LayoutError(PROVIDER, f"{what}: expected {{'result': [...]}}")
    return rows


def money(value: Any) -> float | None:
    """A positive amount from a number or a string like "41 900,00"; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.replace("\u00a0", "").replace(" ", "").replace(",", ".")
        try:
            value = float(text)
        except ValueError:
            return None
    if not isinstance(value, int | float) or not 0 < value < 1e308:  # no nan, inf, 1e400
        return None
    return float(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(value: Any) -> int | None:
    """A non-negative whole count (int or digit string); None when it is not one, or when it
    is too large to be a count of anything a provider sells."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 9:
        return int(value.strip())
    if isinstance(value, int) and 0 <= value < 10**9:
        return value
    return None


def _gpu_identity(raw: str, vram_hint: float | None) -> tuple[str, bool, float | None]:
    """(canonical id or raw, known, VRAM per GPU): VRAM from the name, else from the catalog."""
    match = _VRAM_IN_NAME.search(raw)
    vram = float(match.group(1)) if match else vram_hint
    gpu, known = canonical_gpu(raw, vram)
    if vram is None and known:
        vram = gpu_spec(gpu).vram_gb
    return gpu, known, None if vram is None else float(vram)


# ------------------------------------------------------------------------------ locations


def parse_locations(doc: Any) -> dict[str, Location]:
    """`/pub/location` -> uuid -> Location, with the storefront's visibility rule applied."""
    rows = _result_list(doc, "/pub/location")
    locations: dict[str, Location] = {}
    for row in rows:
        if not isinstance(row, dict) or not row.get("uuid") or not row.get("name"):
            continue
        name = str(row["name"])
        visible = (
            row.get("visibility") == ASSUMED.visible_visibility
            and row.get("primary_resource_ordering") == ASSUMED.visible_ordering
            and name.upper().startswith(ASSUMED.visible_prefixes)
        )
        locations[str(row["uuid"])] = Location(name, visible)
    if not locations:
        raise LayoutError(PROVIDER, "/pub/location: no locations with uuid and name")
    return locations


# ------------------------------------------------------------------------------ dedicated


def _price_in(collection: Any, source_prefix: str = "") -> Price | None:
    """A price from {"RUB": {"hour", "day", "month", "year"}}: month first, it is the list
    price; hour or day only when month is missing."""
    rub = collection.get("RUB") if isinstance(collection, dict) else None
    if not isinstance(rub, dict):
        return None
    if (month := money(rub.get("month"))) is not None:
        return Price.per_month(month, f"{source_prefix}RUB/month")
    if (hour := money(rub.get("hour"))) is not None:
        return Price.per_hour(hour, f"{source_prefix}RUB/hour")
    if (day := money(rub.get("day"))) is not None:
        return Price.per_month(day * HOURS_PER_MONTH / 24, f"{source_prefix}RUB/day")
    return None


def _local_price(config: dict[str, Any], uuid: str, location: str) -> Price | None:
    local = config.get(ASSUMED.location_price_key)
    if not isinstance(local, dict):
        return None
    return _price_in(local.get(uuid), f"{location} ")


def _is_gpu_like(config: dict[str, Any]) -> bool:
    """True for a GPU config even when its `gpu` field is broken (see ASSUMED)."""
    gpu = config.get("gpu")
    if isinstance(gpu, dict) and gpu.get("name"):
        return True
    if ASSUMED.gpu_config_name.match(str(config.get("name", ""))):
        return True
    tags = [t for t in _list(config.get("tags")) if isinstance(t, str)]
    tags += [str(t.get("name", "")) for t in _list(config.get("tag_list")) if isinstance(t, dict)]
    return any(ASSUMED.gpu_tag_word in tag.lower() for tag in tags)


def _on_sale(config: dict[str, Any], model: str) -> bool:
    """The storefront's filters: active, not hidden, orderable, of the endpoint's model."""
    return (
        config.get("state") == "Active"
        and not config.get("is_hidden")
        and config.get("is_order") is True
        and config.get("model", model) == model
    )


def _stock_by_location(available: list[Any]) -> dict[str, int] | None:
    """uuid -> units from available[] (`count`, or the sum of `plan_count[].count` as
    dedicated-go models it); None when an entry cannot be read."""
    stock: dict[str, int] = {}
    for entry in available:
        if not isinstance(entry, dict) or not entry.get("location"):
            return None
        count = _count(entry.get("count"))
        if count is None and isinstance(entry.get("plan_count"), list):
            counts = [_count(p.get("count")) for p in entry["plan_count"] if isinstance(p, dict)]
            count = None if None in counts else sum(c for c in counts if c is not None)
        if count is None:
            return None
        uuid = str(entry["location"])
        stock[uuid] = stock.get(uuid, 0) + count
    return stock


def _state(count: int, preorder: bool) -> tuple[StockState, int | None]:
    if count > 0:
        return StockState.IN_STOCK, count
    if preorder:
        return StockState.PREORDER, None
    return StockState.OUT_OF_STOCK, 0


def _sizes(items: Any, key: str = "size") -> float | None:
    """Total of size × count over a list like ram[] or disk[]; None when unreadable."""
    if not isinstance(items, list) or not items:
        return None
    total = 0.0
    for item in items:
        size = money(item.get(key)) if isinstance(item, dict) else None
        if size is None:
            return None
        total += size * min(_count(item.get("count")) or 1, 1_000_000)
    return total


def _vcpu(cpu: Any) -> int | None:
    """Physical cores (count × cores_per_cpu): what the card shows for a dedicated server."""
    if not isinstance(cpu, dict):
        return None
    count, cores = _count(cpu.get("count")), _count(cpu.get("cores_per_cpu"))
    return count * cores if count and cores else None


def _title(config: dict[str, Any], gpu_count: int, gpu_raw: str) -> str:
    cpu = config.get("cpu") if isinstance(config.get("cpu"), dict) else {}
    parts = [f"{gpu_count}× {gpu_raw}"]
    if cpu and cpu.get("name"):
        cpus = _count(cpu.get("count")) or 1
        parts.append(f"{cpus}× {cpu['name']}" if cpus > 1 else str(cpu["name"]))
    if (ram := _sizes(config.get("ram"))) is not None:
        parts.append(f"{ram:g} GB RAM")
    return " · ".join(parts)


@dataclass(frozen=True)
class _Config:
    """The fields of one readable GPU config that every one of its offers shares."""

    name: str
    gpu_raw: str
    gpu_count: int
    base_price: Price
    stock: dict[str, int]
    preorder: bool


def _read_config(config: dict[str, Any]) -> _Config | str:
    """The config, or why it cannot be offered (a warning)."""
    name = str(config.get("name") or config.get("uuid") or "?")
    gpu = config.get("gpu")
    if not isinstance(gpu, dict) or not gpu.get("name"):
        return f"{name}: GPU config without gpu.name, skipped"
    gpu_count = _count(gpu.get("count"))
    if not gpu_count:
        return f"{name}: gpu.count {gpu.get('count')!r} is not a positive count, skipped"
    price = _price_in(config.get("price_collection"))
    if price is None:
        return f"{name}: no readable price_collection.RUB price, skipped"
    available = config.get("available")
    stock = _stock_by_location(available) if isinstance(available, list) else None
    if stock is None:
        return f"{name}: available[] missing or unreadable, skipped"
    preorder = config.get("is_preorder") is True
    return _Config(name, str(gpu["name"]).strip(), gpu_count, price, stock, preorder)


def _config_offers(
    config: dict[str, Any], read: _Config, locations: Mapping[str, Location] | None
) -> list[Offer]:
    """One offer per storefront location listed in available[]. Without the location list
    (`locations` is None) every location counts and is named by its uuid."""
    gpu, known, vram = _gpu_identity(read.gpu_raw, None)
    offers = []
    for uuid, count in read.stock.items():
        place = Location(uuid, True) if locations is None else locations.get(uuid)
        if place is None or not place.visible:
            continue
        stock, stock_count = _state(count, read.preorder)
        offers.append(
            Offer(
                provider=PROVIDER,
                sku=read.name,
                location=place.name,
                gpu=gpu,
                gpu_raw=read.gpu_raw,
                gpu_known=known,
                gpu_count=read.gpu_count,
                vram_gb=vram,
                price=_local_price(config, uuid, place.name) or read.base_price,
                stock=stock,
                stock_count=stock_count,
                url=f"{ASSUMED.dedicated_url}#{quote(read.name)}",
                vat=ASSUMED.dedicated_vat,
                vcpu=_vcpu(config.get("cpu")),
                ram_gb=_sizes(config.get("ram")),
                disk_gb=_sizes(config.get("disk")),
                title=_title(config, read.gpu_count, read.gpu_raw),
            )
        )
    return offers


def parse_servers(
    doc: Any, locations: Mapping[str, Location] | None, *, model: str = "server"
) -> Parsed:
    """`/pub/service/server` (model "server") or `/pub/service/serverchip` ("serverchip").

    Plain servers are dropped silently; hidden, disabled or sold-only-abroad GPU configs give
    no offers; broken GPU rows are skipped with a warning.
    """
    parsed = Parsed()
    for config in _result_list(doc, f"/pub/service/{model}"):
        if not isinstance(config, dict):
            parsed.warn(f"/pub/service/{model}: a row that is not an object, skipped")
            continue
        if not _is_gpu_like(config):
            continue
        parsed.gpu_rows += 1
        if not _on_sale(config, model):
            continue
        read = _read_config(config)
        if isinstance(read, str):
            parsed.warn(read)
            continue
        parsed.offers.extend(_config_offers(config, read, locations))
    return parsed


# ------------------------------------------------------------------------------ cloud


def _threshold(row: dict[str, Any]) -> float:
    value = row.get("threshold")
    if isinstance(value, bool) or not isinstance(value, int | float) or not abs(value) < 1e308:
        return 0.0
    return float(value)


def _cloud_rows(doc: Any, parsed: Parsed) -> dict[tuple[str, str], dict[str, Any]]:
    """(resource, pool) -> its base-price row, for the GPU resources we know."""
    if isinstance(doc, dict) and ("error" in doc or "message" in doc):
        raise ApiError(PROVIDER, f"/prices/vpc: error in a 200 body: {str(doc)[:200]}")
    if not isinstance(doc, list):
        raise LayoutError(PROVIDER, "/prices/vpc: expected a list of prices")
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    unmapped: set[str] = set()
    for row in doc:
        if not isinstance(row, dict) or not isinstance(row.get("resource"), str):
            parsed.warn("/prices/vpc: a row without a resource name, skipped")
            continue
        resource = row["resource"]
        if str(row.get("currency", "rub")).lower() != "rub":
            continue
        if resource not in ASSUMED.cloud_gpus:
            if ASSUMED.cloud_gpu_marker in resource.lower():
                unmapped.add(resource)
            continue
        key = (resource, str(row.get("group") or ""))
        if key not in rows or _threshold(row) < _threshold(rows[key]):
            rows[key] = row
    for resource in sorted(unmapped):
        parsed.warn(f"/prices/vpc: GPU-like resource {resource!r} is not mapped, skipped")
    return rows


def _cloud_offer(resource: str, pool: str, rub_per_hour: float) -> Offer:
    gpu_raw, vram_hint = ASSUMED.cloud_gpus[resource]
    gpu, known, vram = _gpu_identity(gpu_raw, vram_hint)
    return Offer(
        provider=PROVIDER,
        sku=f"cloud:{resource}:{pool}",
        location=pool,
        gpu=gpu,
        gpu_raw=gpu_raw,
        gpu_known=known,
        gpu_count=1,
        vram_gb=vram,
        price=Price.per_hour(rub_per_hour, "kopecks/hour per GPU"),
        stock=StockState.UNKNOWN,
        url=ASSUMED.cloud_url,
        vat=ASSUMED.cloud_vat,
        title=f"Cloud GPU Line: 1× {gpu_raw} in {pool}, vCPU and RAM extra",
        note=CLOUD_NOTE,
    )


def parse_prices_vpc(doc: Any) -> Parsed:
    """`/prices/vpc?currency=rub` -> one price-only offer per GPU resource and pool."""
    parsed = Parsed()
    for (resource, pool), row in _cloud_rows(doc, parsed).items():
        parsed.gpu_rows += 1
        kopecks = money(row.get("value"))
        if not pool or kopecks is None:
            parsed.warn(f"/prices/vpc: {resource} in {pool or '?'}: bad value or group, skipped")
            continue
        parsed.offers.append(_cloud_offer(resource, pool, kopecks / ASSUMED.cloud_value_divisor))
    return parsed


def dedupe(offers: Iterable[Offer], parsed: Parsed) -> list[Offer]:
    """Offer identity must be unique in a snapshot: keep the first, report the rest."""
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for offer in offers:
        if offer.key in seen:
            parsed.warn(f"duplicate offer {offer.sku} @ {offer.location}, kept the first")
            continue
        seen.add(offer.key)
        unique.append(offer)
    return unique
