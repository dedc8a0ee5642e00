"""Selectel: pure parsers from the public API's JSON to Offers (no I/O, easy to fuzz).

Three parts, each parsed on its own (the API shapes and which facts real captures confirm:
docs/providers.md §Selectel):
* "server": dedicated servers, `GET /servers/v2/pub/service/server`;
* "serverchip": Chipcore servers, `GET /servers/v2/pub/service/serverchip` (same shape);
  both with the data centres of `GET /servers/v2/pub/location`, one offer per (config,
  storefront location it lists);
* "cloud": cloud GPU prices, `GET /prices/vpc?currency=rub`, one price-only offer per
  (GPU resource, Russian pool).

Every fact a live check could still overturn sits in the ASSUMED block below; the rest is what
the real captures show.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from monitor.offers import HOURS_PER_MONTH, Offer, Price, StockState, Vat
from monitor.providers import SELECTEL
from monitor.scrape import ApiError, LayoutError
from scrapers.base import Parsed
from scrapers.gpu_names import gpu_identity

PROVIDER = SELECTEL.id
SERVER, SERVERCHIP, CLOUD = "server", "serverchip", "cloud"


# --- ASSUMED (confirm against the live site) --------------------------------------------------
@dataclass(frozen=True)
class Assumed:
    """What the real captures do not settle. Seen and no longer assumed (docs/providers.md):
    `state` is Active, EOL or Discount and all three are on sale (orderable = `is_order`); a
    GPU config is one whose `gpu` has a name; `location_price_collection` is keyed by location
    uuid and shaped like `price_collection` (mostly null or {}); the storefront locations are
    `visibility == "everywhere"` with `primary_resource_ordering == "enabled"`; cloud GPUs are
    `compute_pci_gpu_<model>` with `_preemptible` twins, `value` in kopecks per hour; pools are
    `ru-*` at home, other prefixes abroad.
    """

    # Dedicated prices are shown with VAT, as the cloud prices are (seen only for cloud).
    dedicated_vat: Vat = Vat.INCLUDED
    location_price_key: str = "location_price_collection"
    visible_visibility: str = "everywhere"
    visible_ordering: str = "enabled"
    # Foreign data centres (TAS, ALM, NBO) may be visible and enabled too; the storefront of
    # selectel.ru counts only these (both captures name only MSK/SPB/NSK as visible).
    visible_prefixes: tuple[str, ...] = ("MSK", "SPB", "NSK")
    # `is_hidden` is absent from every real row; a row that does say true is not shown.
    hidden_key: str = "is_hidden"
    # Cloud GPU resources and their per-GPU meters.
    cloud_gpu_prefix: str = "compute_pci_gpu_"
    cloud_preemptible_suffix: str = "_preemptible"
    home_pool_prefix: str = "ru-"
    # Model token -> (GPU name, memory per GPU in GB). The tokens are seen; what each means is
    # read from the token and the cloud line's published shapes (docs/providers.md). Where the
    # memory or form is not known it stays None / unstated, and the name stays unresolved.
    cloud_models: Mapping[str, tuple[str, float | None]] = field(
        default_factory=lambda: {
            "t4": ("T4", 16),
            "a2": ("A2", 16),
            "a2000": ("RTX A2000", None),  # 6 or 12 GB: not said
            "a30": ("A30", 24),
            "a5000": ("RTX A5000", 24),
            "rtx4090": ("RTX 4090", 24),
            "rtx2080ti": ("RTX 2080 Ti", 11),
            "gtx1080": ("GTX 1080", 8),  # not in the GPU catalog: kept by name
            "6000_ada": ("RTX 6000 Ada", 48),
            "a100": ("A100 40GB", 40),  # the cloud line's A100 40GB; PCIe or SXM not said
            "a100_nvlink": ("A100 SXM", None),  # NVLink boards are SXM; 40 or 80 GB not said
            "a100_80": ("A100 80GB", 80),
            "h200": ("H200", 141),
        }
    )
    # /prices/vpc `value`: kopecks per hour per unit, VAT included (T4 38.40 ₽/h against
    # dedicated T4 servers at 25-27k ₽/month fits; seen-code, about 2020, says the same).
    cloud_value_divisor: float = 100.0
    cloud_vat: Vat = Vat.INCLUDED
    # Pages a user can open (the config name as a fragment only helps them find the card).
    dedicated_url: str = f"{SELECTEL.public_url}/services/dedicated/"
    cloud_url: str = f"{SELECTEL.public_url}/services/cloud/servers/gpu/"


ASSUMED = Assumed()
# -----------------------------------------------------------------------------------------------

CLOUD_NOTE = "cpu_ram_extra"  # a cloud GPU is priced alone: vCPU and RAM are billed on top


@dataclass(frozen=True)
class Location:
    name: str
    visible: bool  # counted by the storefront


# ------------------------------------------------------------------------------ shared bits


def _error_body(doc: Any, what: str) -> None:
    """An error object inside a 200 answer is an ApiError."""
    if not isinstance(doc, dict) or "result" in doc or "prices" in doc:
        return
    if "error" in doc or "message" in doc or doc.get("status") not in (None, "ok"):
        raise ApiError(PROVIDER, f"{what}: error in a 200 body: {str(doc)[:200]}")


def _result_list(doc: Any, what: str) -> list[Any]:
    """The `result` list of a pub API answer; an error body is an ApiError, anything else is
    a LayoutError."""
    _error_body(doc, what)
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
    if not any(location.visible for location in locations.values()):
        raise LayoutError(PROVIDER, "/pub/location: no storefront location with uuid and name")
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
    """The location's own price; null and {} (most rows) mean none."""
    local = config.get(ASSUMED.location_price_key)
    if not isinstance(local, dict):
        return None
    return _price_in(local.get(uuid), f"{location} ")


def _gpu_field(config: dict[str, Any]) -> tuple[str, int | None] | None:
    """(name, count) of a GPU config; None for a plain server (`{"name": "", "count": 0}`,
    `{}` or null). A GPU config is recognised by this field alone, never by its name."""
    gpu = config.get("gpu")
    if not isinstance(gpu, dict):
        return None
    name = gpu.get("name")
    name = name.strip() if isinstance(name, str) else ""  # the provider's spelling, kept
    count = _count(gpu.get("count"))
    if not name and not count:
        return None
    return name, count


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


def _read_config(config: dict[str, Any], name: str, gpu: tuple[str, int | None]) -> _Config | str:
    """The config, or why it cannot be offered (a skip reason)."""
    gpu_name, gpu_count = gpu
    if not gpu_name or not gpu_count:
        return "GPU field without a name or a count"
    price = _price_in(config.get("price_collection"))
    if price is None:
        return "no price_collection.RUB price"
    available = config.get("available")
    stock = _stock_by_location(available) if isinstance(available, list) else None
    if stock is None:
        return "available[] missing or unreadable"
    return _Config(name, gpu_name, gpu_count, price, stock, config.get("is_preorder") is True)


def _places(
    read: _Config, locations: Mapping[str, Location] | None
) -> list[tuple[str, Location, int]]:
    """(uuid, location, units) for each storefront location the config lists. Without the
    location list every location counts and is named by its uuid."""
    places = []
    for uuid, count in read.stock.items():
        place = Location(uuid, True) if locations is None else locations.get(uuid)
        if place is not None and place.visible:
            places.append((uuid, place, count))
    return places


def _stock_state(count: int, units_anywhere: int, preorder: bool) -> tuple[StockState, int | None]:
    """In stock where it has units. An empty location of a config that has units elsewhere is
    out of stock there; pre-order is only for a config with units nowhere on the storefront
    (real rows carry `is_preorder` on almost every Active config, in stock or not)."""
    if count > 0:
        return StockState.IN_STOCK, count
    if units_anywhere == 0 and preorder:
        return StockState.PREORDER, None
    return StockState.OUT_OF_STOCK, 0


def _config_offers(
    config: dict[str, Any], read: _Config, places: list[tuple[str, Location, int]]
) -> list[Offer]:
    gpu, known, vram = gpu_identity(read.gpu_raw)
    units = sum(count for _, _, count in places)
    offers = []
    for uuid, place, count in places:
        stock, stock_count = _stock_state(count, units, read.preorder)
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
    doc: Any, locations: Mapping[str, Location] | None, *, part: str = SERVER
) -> Parsed:
    """`/pub/service/server` (part "server") or `/pub/service/serverchip` ("serverchip").

    Plain servers are left out without a word; every GPU config that makes no offer is a skip
    with its reason. Offers within the part are unique by (config, location).
    """
    what = f"/pub/service/{part}"
    parsed = Parsed(part)
    seen: set[tuple[str, str]] = set()
    for index, config in enumerate(_result_list(doc, what)):
        if not isinstance(config, dict):
            parsed.skip("a row that is not an object", f"row {index}")
            continue
        gpu = _gpu_field(config)
        if gpu is None:
            continue  # a plain server
        name = " ".join(str(config.get("name") or config.get("uuid") or f"row {index}").split())
        if config.get("is_order") is not True:
            parsed.skip("not orderable (is_order is not true)", name)
            continue
        if config.get(ASSUMED.hidden_key) is True:
            parsed.skip("hidden (is_hidden)", name)
            continue
        read = _read_config(config, name, gpu)
        if isinstance(read, str):
            parsed.skip(read, name)
            continue
        places = _places(read, locations)
        if not places:
            parsed.skip("listed at no storefront location", name)
            continue
        for offer in _config_offers(config, read, places):
            if (offer.sku, offer.location) in seen:
                parsed.skip("listed twice (the first kept)", f"{offer.sku} @ {offer.location}")
                continue
            seen.add((offer.sku, offer.location))
            parsed.offers.append(offer)
    return parsed


# ------------------------------------------------------------------------------ cloud


def _price_rows(doc: Any) -> tuple[list[Any], str]:
    """The rows of /prices/vpc, whose envelope is seen as an object
    (`{"status": "ok", "currency": "rub", "prices": [...]}`) and described as a bare list."""
    if isinstance(doc, list):
        return doc, "rub"
    _error_body(doc, "/prices/vpc")
    rows = doc.get("prices") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise LayoutError(PROVIDER, "/prices/vpc: expected a list of prices or {'prices': [...]}")
    currency = doc.get("currency")
    return rows, currency.lower() if isinstance(currency, str) else "rub"


def _threshold(row: dict[str, Any]) -> float:
    value = row.get("threshold")
    if isinstance(value, bool) or not isinstance(value, int | float) or not abs(value) < 1e308:
        return 0.0
    return float(value)


def _cloud_gpu_rows(doc: Any, parsed: Parsed) -> dict[tuple[str, str], dict[str, Any]]:
    """(model token, pool) -> its base-price row, for every regular GPU resource in a home
    pool. Meter rows (`compute_cores_gpu_*`, `compute_ram_gpu_*`, ...) and other resources
    are neither offers nor skips: they are not GPUs."""
    rows, envelope_currency = _price_rows(doc)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("resource"), str):
            parsed.skip("a row without a resource name", f"row {index}")
            continue
        resource = row["resource"]
        if not resource.startswith(ASSUMED.cloud_gpu_prefix):
            continue
        model = resource.removeprefix(ASSUMED.cloud_gpu_prefix)
        pool = row.get("group")
        pool = pool.strip() if isinstance(pool, str) else ""
        if not pool:
            parsed.skip("no pool (group)", resource)
            continue
        if model.endswith(ASSUMED.cloud_preemptible_suffix):
            parsed.skip(
                "preemptible price (its own billing kind, not offered)", f"{resource} @ {pool}"
            )
            continue
        if not pool.startswith(ASSUMED.home_pool_prefix):
            parsed.skip("not a ru-* pool (abroad or private)", f"{resource} @ {pool}")
            continue
        currency = row.get("currency")
        currency = currency.lower() if isinstance(currency, str) else envelope_currency
        if currency != "rub":
            parsed.skip(f"priced in {currency}, not rub", f"{resource} @ {pool}")
            continue
        key = (model, pool)
        if key not in found or _threshold(row) < _threshold(found[key]):
            found[key] = row
    return found


def _cloud_gpu(model: str, parsed: Parsed) -> tuple[str, float | None]:
    """The GPU a model token names: from ASSUMED, else the token itself ("b200" -> "B200")."""
    known = ASSUMED.cloud_models.get(model)
    if known is not None:
        return known
    name = model.replace("_", " ").upper()
    parsed.warn(
        f"{ASSUMED.cloud_gpu_prefix}{model}: a model the table does not know, read as {name!r}"
    )
    return name, None


def _cloud_offer(model: str, pool: str, rub_per_hour: float, parsed: Parsed) -> Offer:
    gpu_raw, vram_hint = _cloud_gpu(model, parsed)
    gpu, known, vram = gpu_identity(gpu_raw, vram_hint)
    resource = ASSUMED.cloud_gpu_prefix + model
    return Offer(
        provider=PROVIDER,
        sku=f"cloud:{resource}:{pool}",
        location=pool,
        gpu=gpu,
        gpu_raw=resource,
        gpu_known=known,
        gpu_count=1,
        vram_gb=vram,
        price=Price.per_hour(rub_per_hour, "kopecks/hour per GPU"),
        stock=StockState.UNKNOWN,
        url=ASSUMED.cloud_url,
        vat=ASSUMED.cloud_vat,
        title=f"Cloud: 1× {gpu_raw} in {pool}, vCPU and RAM extra",
        note=CLOUD_NOTE,
    )


def parse_prices_vpc(doc: Any) -> Parsed:
    """`/prices/vpc?currency=rub` -> one price-only offer per GPU resource and home pool."""
    parsed = Parsed(CLOUD)
    for (model, pool), row in _cloud_gpu_rows(doc, parsed).items():
        kopecks = money(row.get("value"))
        if kopecks is None:
            parsed.skip("no price (value)", f"{ASSUMED.cloud_gpu_prefix}{model} @ {pool}")
            continue
        rub = kopecks / ASSUMED.cloud_value_divisor
        parsed.offers.append(_cloud_offer(model, pool, rub, parsed))
    return parsed
