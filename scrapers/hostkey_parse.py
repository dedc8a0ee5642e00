"""HOSTKEY InvAPI bodies to offers: pure functions, decoded JSON in, offers and warnings out.

Three bodies feed a scrape (all answered by POST form requests, see scrapers/hostkey.py):
* presets.php action=info: prices per preset, per location, per currency (monthly);
* presets.php action=list, one per location: which presets that location lists and `active`;
* stocks.php action=list group=GPU, one per location: one-off physical servers, one unit each.

Only the list bodies make offers; info only prices them, and says which locations sell GPUs at
all (`gpu_locations`): those are the scrape's parts, one per location, plus one for the stock
servers. A location whose list is empty has no offers, whatever info says: an empty part, which
the monitor treats as an error, never as "everything sold out". Every function here raises only
ScrapeError subclasses, whatever JSON it gets: individual bad rows are skipped (with the reason,
for the `--check` report), a bad body is a LayoutError, and an error body inside a 200
(`result: "ERROR"`, `{"code": -1, "message": …}`, `{"result": -1, "error": …}`) is an ApiError.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from estimator.gpus import get as gpu_spec
from estimator.gpus import resolve
from monitor.offers import Offer, Price, StockState, Vat
from monitor.providers import HOSTKEY
from monitor.scrape import ApiError, LayoutError, Skip
from scrapers.gpu_names import canonical_gpu

PROVIDER = HOSTKEY.id
STOCK = "stock"  # the part of the stock servers (every location's list together)


# --- ASSUMED (confirm against the live site) -------------------------------------------------
# Everything below comes from assumed or second-hand facts (docs/providers.md §HOSTKEY: no
# real HOSTKEY capture exists). Correct it here; nothing else in the module hard-codes it.
@dataclass(frozen=True)
class Assumed:
    # RU is the .ru portal's own location; the rest are the .com API's list. Whether
    # invapi.hostkey.ru answers `location=US` etc. (and not result ERROR) is unconfirmed.
    locations: tuple[str, ...] = (
        "RU", "NL", "US", "FI", "DE", "IS", "TR", "UK", "ES", "IT", "PL", "CH",
    )  # fmt: skip
    info_currencies: str = "RUB,EUR"  # presets.php action=info `currencies`
    stock_group: str = "GPU"  # stocks.php `group`; third-party code also sends lower-case "gpu"
    # Preset name prefixes that are GPU products; everything else (vm., vds., bm.) is dropped.
    gpu_prefixes: tuple[str, ...] = ("gpu.", "vgpu.")
    # `active` in a presets list: 1 = orderable now, 0 = sold out; active 0 with no price is a
    # retired preset and is dropped. Presence-only stock: the API publishes no counts.
    # Stock servers: a missing status means available (the list holds available entries);
    # any other word is reported as a warning and the stock shown as unknown.
    available_statuses: frozenset[str] = frozenset({"available", ""})
    unavailable_statuses: frozenset[str] = frozenset({"reserved"})
    # Flat fallback prices when a preset has no per-location price, in this order: third-party
    # client code reads `monthly_ru` as RUB and `monthly_com` as EUR.
    flat_prices: tuple[tuple[str, str], ...] = (("monthly_ru", "RUB"), ("monthly_com", "EUR"))
    # Currency preference: roubles need no conversion, so they win wherever the API gives them.
    # Third-party client code reads the price under "RUR" before "RUB"; both are roubles.
    currency_order: tuple[str, ...] = ("RUR", "RUB", "EUR", "USD")
    # A preset's `available` integer (read by third-party code, never seen in a body): how many
    # servers are ready. When present it decides the stock and gives the count; without it,
    # `active` decides and no count is known.
    available_key: str = "available"
    vat: Vat = Vat.UNKNOWN  # no page says "с НДС" / "без НДС"
    dedicated_url: str = f"{HOSTKEY.public_url}/gpu-dedicated-servers/"
    vgpu_url: str = f"{HOSTKEY.public_url}/gpu-dedicated-servers/vm/"


ASSUMED = Assumed()
# --- end ASSUMED ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rates:
    """₽ per unit of a foreign currency; prices in it are converted and flagged."""

    eur_rub: float = 100.0
    usd_rub: float = 90.0

    def rub(self, currency: str) -> float | None:
        return {"RUB": 1.0, "RUR": 1.0, "EUR": self.eur_rub, "USD": self.usd_rub}.get(currency)


@dataclass
class Parsed:
    """Offers from some bodies of one part, the rows skipped (with reasons and in words), and
    how many of them were broken GPU rows rather than rows that are simply not offers."""

    part: str = ""
    offers: list[Offer] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # each skip, in words
    broken: int = 0

    def skip(self, message: str, *, reason: str, item: str) -> None:
        """A GPU row that should have been an offer and could not be read."""
        self.broken += 1
        self.drop(message, reason=reason, item=item)

    def drop(self, message: str, *, reason: str, item: str) -> None:
        """A row that is, rightly, no offer. `message` says it in full; the report groups
        skips by reason, so the message is kept only for the error a broken part raises."""
        self.skips.append(Skip(self.part, reason, item))
        self.messages.append(message)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def extend(self, other: Parsed) -> None:
        self.offers.extend(other.offers)
        self.warnings.extend(other.warnings)
        self.skips.extend(other.skips)
        self.messages.extend(other.messages)
        self.broken += other.broken


def require_readable(parsed: Parsed, what: str) -> None:
    """One odd row is skipped; when every GPU row was broken, the layout changed."""
    if parsed.broken and not parsed.offers:
        said = "; ".join(parsed.messages[:3])
        raise LayoutError(
            PROVIDER, f"{what}: none of {parsed.broken} GPU rows could be read: {said}"[:500]
        )


# Preset name -> its presets.php action=info row.
PriceBook = Mapping[str, Mapping[str, Any]]


# ----------------------------------------------------------------------------- bodies


def checked_body(body: Any, what: str, key: str) -> list[Any]:
    """The row list under `key` of an InvAPI answer; ApiError for an error body: `result`
    "ERROR" or -1, or no `result` at all beside a `code`, `message` or `error` (the public docs
    show `{"code": -1, "message": …}`, a terraform mock `{"result": -1, "error": …}`)."""
    if not isinstance(body, dict):
        raise LayoutError(PROVIDER, f"{what}: expected a JSON object, got {type(body).__name__}")
    result = body.get("result")
    said = {"code", "message", "error"} & body.keys()
    if result in ("ERROR", -1, "-1") or ("result" not in body and said):
        message = body.get("message") or body.get("error") or "no message"
        raise ApiError(PROVIDER, f"{what}: {str(message)[:200]} (code {body.get('code')})")
    if result != "OK":
        raise LayoutError(PROVIDER, f"{what}: result is {result!r}, not OK")
    rows = body.get(key)
    if not isinstance(rows, list):
        raise LayoutError(PROVIDER, f"{what}: no {key!r} list")
    return rows


def parse_info(body: Any) -> dict[str, Mapping[str, Any]]:
    """presets.php action=info -> {preset name: row}. Rows without a name cannot be joined."""
    rows = checked_body(body, "presets info", "presets")
    book: dict[str, Mapping[str, Any]] = {
        _text(row.get("name")): row
        for row in rows
        if isinstance(row, dict) and _text(row.get("name"))
    }
    if rows and not book:
        raise LayoutError(PROVIDER, f"presets info: none of {len(rows)} rows has a name")
    return book


def gpu_locations(book: PriceBook) -> set[str]:
    """The locations where info prices or lists a GPU preset: the ones worth asking, and the
    parts of a scrape (a location that sells no GPU is no part, so never an "empty" one)."""
    found: set[str] = set()
    for name, row in book.items():
        if not name.startswith(ASSUMED.gpu_prefixes):
            continue
        table = row.get("price")
        if isinstance(table, dict):
            found.update(str(place) for place in table)
        listed = row.get("locations")
        if isinstance(listed, str):
            found.update(part.strip() for part in listed.split(",") if part.strip())
    return found


def parse_presets(body: Any, location: str, book: PriceBook, rates: Rates) -> Parsed:
    """presets.php action=list&location=… -> one offer per GPU preset the location lists."""
    what = f"presets {location}"
    rows = checked_body(body, what, "presets")
    parsed = Parsed(location)
    for index, row in enumerate(rows):
        name = _text(row.get("name")) if isinstance(row, dict) else ""
        if name and not name.startswith(ASSUMED.gpu_prefixes):
            continue  # vm.*, vds.*, bm.*: not a GPU product
        if not isinstance(row, dict) or not name:
            parsed.skip(
                f"{what}: row {index} has no preset name, skipped",
                reason="row without a preset name",
                item=f"row {index}",
            )
            continue
        if not _sold_in(row, location):
            parsed.drop(
                f"{what}: {name} is listed but not sold in {location}, skipped",
                reason="listed for a location its `locations` does not name",
                item=name,
            )
            continue
        offer = _preset_offer(row, location, book.get(name, {}), rates, parsed)
        if offer is not None:
            parsed.offers.append(offer)
    unknown = [o.sku for o in parsed.offers if o.stock is StockState.UNKNOWN]
    if unknown:
        parsed.warn(f"{what}: no active flag on {', '.join(unknown)}, stock unknown")
    return parsed


def parse_stocks(body: Any, location: str, rates: Rates) -> Parsed:
    """stocks.php action=list&group=GPU&location=… -> one offer per server (one unit each)."""
    what = f"stocks {location}"
    rows = checked_body(body, what, "servers")
    parsed = Parsed(STOCK)
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not _text(row.get("id")):
            parsed.skip(
                f"{what}: row {index} has no server id, skipped",
                reason="row without a server id",
                item=f"{location} row {index}",
            )
            continue
        offer = _stock_offer(row, location, rates, parsed)
        if offer is not None:
            parsed.offers.append(offer)
    return parsed


# ----------------------------------------------------------------------------- presets


def _preset_offer(
    row: Mapping[str, Any],
    location: str,
    info: Mapping[str, Any],
    rates: Rates,
    parsed: Parsed,
) -> Offer | None:
    sku = str(row["name"])
    stock, count = _preset_stock(row.get("active"), row.get(ASSUMED.available_key))
    price = _preset_price(row, info, location, rates)
    if price is None:
        if stock is not StockState.OUT_OF_STOCK:  # an orderable preset must have a price
            parsed.skip(
                f"presets {location}: {sku}: no price for {location}, skipped",
                reason="no price",
                item=sku,
            )
        else:  # inactive and unpriced: a retired preset, nothing to show or warn about
            parsed.skips.append(Skip(parsed.part, "retired (inactive and unpriced)", sku))
        return None
    gpu_text = _preset_gpu_text(row, info)
    gpu = parse_gpu(gpu_text) if gpu_text else None
    if gpu is None:
        said = gpu_text or _text(_first(row, info, "description"))
        parsed.skip(
            f"presets {location}: {sku}: no GPU named in {said!r}, skipped",
            reason="no GPU named",
            item=sku,
        )
        return None
    return _offer(
        sku,
        location,
        gpu,
        price,
        (stock, count),
        ASSUMED.vgpu_url if sku.startswith("vgpu.") else ASSUMED.dedicated_url,
        vcpu=_size(_int(_first(row, info, "cpu"))),
        ram_gb=_size(_number(_first(row, info, "ram"))),
        disk_gb=_size(parse_disk(_first(row, info, "hdd"))),
        title=_text(_first(row, info, "description")),
    )


def _preset_stock(active: Any, available: Any) -> tuple[StockState, int | None]:
    """`available` (a count) when the row has it, else `active` 1 or 0 (presence only);
    without either the row says nothing about stock, and a vanished field must not turn every
    preset into a "sold out" alert."""
    units = _int(available)
    if units is not None and 0 <= units < 10**6:
        return (StockState.IN_STOCK, units) if units else (StockState.OUT_OF_STOCK, 0)
    flag = _number(active)
    if flag == 1:
        return StockState.IN_STOCK, None
    if flag == 0:
        return StockState.OUT_OF_STOCK, None
    return StockState.UNKNOWN, None


def _sold_in(row: Mapping[str, Any], location: str) -> bool:
    """A row's own `locations` ("RU,NL,FI") must name the location it was listed for: if the
    API ever ignored `location=`, every preset would look in stock everywhere."""
    locations = row.get("locations")
    if not isinstance(locations, str) or not locations.strip():
        return True  # not said: trust the per-location list
    return location in {part.strip() for part in locations.split(",")}


def _first(row: Mapping[str, Any], info: Mapping[str, Any], key: str) -> Any:
    """The list row's field, else the info row's: either may carry the hardware."""
    value = row.get(key)
    return info.get(key) if value is None or value == "" else value


def _preset_gpu_text(row: Mapping[str, Any], info: Mapping[str, Any]) -> str:
    """Where the GPU and its count are spelled: a counted `gpu` field ("2× RTX 3090"), else
    the counted part of the description ("1× RTX A5000, Xeon E-2288G, …"), else the bare
    `gpu` field (one card)."""
    explicit = _text(_first(row, info, "gpu"))
    if _COUNTED.match(explicit):
        return explicit
    parts = [part.strip() for part in _text(_first(row, info, "description")).split(",")]
    counted = [part for part in parts if _COUNTED.match(part)]
    # A part the catalog pins wins over "2×EPYC"; else the first "N× …" part, kept raw.
    for part in counted:
        if resolve(_COUNTED.sub(r"\2", part)) is not None:
            return part
    return counted[0] if counted else explicit


def _preset_price(
    row: Mapping[str, Any], info: Mapping[str, Any], location: str, rates: Rates
) -> Price | None:
    """info's price[location], else the list row's, else a flat monthly_ru / monthly_com."""
    for source in (info, row):
        table = source.get("price")
        prices = table.get(location) if isinstance(table, dict) else None
        if isinstance(prices, dict):
            price = _pick_price(prices, "month", rates)
            if price is not None:
                return price
    for key, currency in ASSUMED.flat_prices:
        for source in (info, row):
            amount = parse_amount(source.get(key))
            if amount is not None:
                return _price(amount, currency, "month", rates)
    return None


# ----------------------------------------------------------------------------- stock servers


def _stock_offer(
    row: Mapping[str, Any], location: str, rates: Rates, parsed: Parsed
) -> Offer | None:
    sku = f"stock:{_text(row['id'])}"
    where = f"stocks {location}: {sku}"
    hardware = _dict(row.get("hardware"))
    specs = _dict(row.get("specs"))
    gpu_text = _text(hardware.get("gpu_name")) or _text(specs.get("gpu"))
    gpu = parse_gpu(gpu_text) if gpu_text else None
    if gpu is None:
        parsed.skip(
            f"{where}: no GPU in hardware.gpu_name / specs.gpu ({gpu_text!r}), skipped",
            reason="no GPU named",
            item=sku,
        )
        return None
    price = _stock_price(row, rates)
    if price is None:
        parsed.skip(f"{where}: no price, skipped", reason="no price", item=sku)
        return None
    return _offer(
        sku,
        _text(row.get("location")) or location,
        gpu,
        price,
        _stock_state(row.get("status"), where, parsed),
        ASSUMED.dedicated_url,
        ram_gb=_size(_number(hardware.get("ram")) or _number(specs.get("ram"))),
        disk_gb=_size(_hdd_groups(hardware.get("hdd_groups")) or parse_disk(specs.get("disk"))),
        title=" ".join(
            filter(None, (_text(row.get("name")), _text(hardware.get("cpu_name")), gpu_text))
        ),
    )


def _offer(
    sku: str,
    location: str,
    gpu: Gpu,
    price: Price,
    stock: tuple[StockState, int | None],
    url: str,
    *,
    vcpu: int | None = None,
    ram_gb: float | None,
    disk_gb: float | None,
    title: str,
) -> Offer:
    """What a preset and a stock server have in common as an offer."""
    state, count = stock
    return Offer(
        provider=PROVIDER,
        sku=sku,
        location=location,
        gpu=gpu.id,
        gpu_raw=gpu.raw,
        gpu_known=gpu.known,
        gpu_count=gpu.count,
        vram_gb=gpu.vram_gb,
        price=price,
        stock=state,
        url=url,
        stock_count=count,
        vat=ASSUMED.vat,
        vcpu=vcpu,
        ram_gb=ram_gb,
        disk_gb=disk_gb,
        title=title,
    )


def _stock_state(status: Any, where: str, parsed: Parsed) -> tuple[StockState, int | None]:
    """A listed server is one unit; "reserved" is taken; an unknown word is not guessed."""
    word = _text(status).lower()
    if word in ASSUMED.available_statuses:
        return StockState.IN_STOCK, 1
    if word in ASSUMED.unavailable_statuses:
        return StockState.OUT_OF_STOCK, 0
    parsed.warn(f"{where}: unknown status {status!r}, stock unknown")
    return StockState.UNKNOWN, None


def _stock_price(row: Mapping[str, Any], rates: Rates) -> Price | None:
    """Per currency (RUB first), the hourly billing plan, else the monthly price."""
    plans = _dict(row.get("billing_plan"))
    monthly = _dict(row.get("price"))
    for currency in ASSUMED.currency_order:
        hourly = parse_amount(_dict(plans.get(currency)).get("hourly"))
        if hourly is not None:
            return _price(hourly, currency, "hour", rates)
        month = parse_amount(monthly.get(currency))
        if month is not None:
            return _price(month, currency, "month", rates)
    return None


def _hdd_groups(groups: Any) -> float | None:
    if not isinstance(groups, list):
        return None
    sizes = [
        (_number(g.get("size")) or 0) * (_number(g.get("count")) or 1)
        for g in groups
        if isinstance(g, dict)
    ]
    return sum(sizes) or None


# ----------------------------------------------------------------------------- GPUs


@dataclass(frozen=True)
class Gpu:
    id: str
    raw: str
    known: bool
    count: int
    vram_gb: float | None


# "1× RTX A4000 16GB", "2x RTX 3090", "8 × A100": the count, then the name.
_COUNTED = re.compile(r"^\s*(\d{1,2})\s*[×xX*]\s*([A-Za-z].*?)\s*$")
_VRAM = re.compile(r"(\d{1,3}(?:[.,]\d+)?)\s*(?:GB|GiB|G|ГБ)\b", re.IGNORECASE)


def parse_gpu(text: str) -> Gpu | None:
    """Count, name and VRAM per GPU from a HOSTKEY GPU spelling; None if it names nothing."""
    match = _COUNTED.match(text)
    count, name = (int(match.group(1)), match.group(2)) if match else (1, text.strip())
    # A GPU name has a letter and a digit ("T4", "RTX 4090"); "N/A" or "Individual" is none.
    if count < 1 or not re.search(r"[A-Za-z]", name) or not re.search(r"\d", name):
        return None
    vram_match = _VRAM.search(name)
    vram = float(vram_match.group(1).replace(",", ".")) if vram_match else None
    gpu_id, known = canonical_gpu(name, vram)
    if known and vram is None:
        vram = gpu_spec(gpu_id).vram_gb  # the catalog pins the card, so its memory is known
    return Gpu(gpu_id, name, known, count, vram)


# ----------------------------------------------------------------------------- values


def _pick_price(prices: Mapping[str, Any], unit: str, rates: Rates) -> Price | None:
    for currency in ASSUMED.currency_order:
        amount = parse_amount(prices.get(currency))
        if amount is not None:
            return _price(amount, currency, unit, rates)
    return None


def _price(amount: float, currency: str, unit: str, rates: Rates) -> Price | None:
    rate = rates.rub(currency)
    if rate is None:
        return None
    make = Price.per_hour if unit == "hour" else Price.per_month
    if currency in ("RUB", "RUR"):
        return make(amount, f"{currency}/{unit}")
    return make(amount * rate, f"{currency}/{unit} @ {rate} ₽/{currency}", converted=True)


def parse_amount(value: Any) -> float | None:
    """A positive price: a number, or a string like "2 986,90", "1,690.00" or "7490 ₽"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value) if abs(value) < 1e308 else math.inf  # a JSON int past float
    elif isinstance(value, str):
        text = re.sub(r"[\s\u00a0\u202f₽€$]|RUB|EUR|USD", "", value, flags=re.IGNORECASE)
        if "," in text and "." in text:
            text = text.replace(",", "")  # "1,690.00": the comma groups thousands
        text = text.replace(",", ".")  # "2986,90": a decimal comma
        try:
            number = float(text)
        except ValueError:
            return None
    else:
        return None
    return number if 0 < number < 1e9 else None  # also rejects nan and inf


def parse_disk(value: Any) -> float | None:
    """`hdd` is a number (1000) or a string ("2x960", "960"): total GB, None when unreadable."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) if 0 < value < 1e308 else None
    match = re.fullmatch(r"\s*(?:(\d{1,2})\s*[xX×*]\s*)?(\d+(?:\.\d+)?)\s*(?:GB)?\s*", _text(value))
    if not match:
        return None
    return int(match.group(1) or 1) * float(match.group(2)) or None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value) if abs(value) < 1e308 else math.inf  # a JSON int past float
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


_Size = TypeVar("_Size", int, float)


def _size(value: _Size | None) -> _Size | None:
    """A hardware size (cores, GB) only when it is a sensible positive number."""
    return value if value is not None and 0 < value < 1e9 else None


def _int(value: Any) -> int | None:
    number = _number(value)
    return int(number) if number is not None and number.is_integer() else None


def _text(value: Any) -> str:
    """A string or an integer id as text; "" for anything else (None, lists, booleans)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return ""
    return str(value).strip()


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}
