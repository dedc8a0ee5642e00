"""immers.cloud: pure parsers from the server-rendered HTML to Offers (no I/O, easy to fuzz).

There is no public API (docs/providers.md §immers.cloud): the `/gpu/` index links one page per
GPU model, `/gpu/<slug>/`, and each page has a tariff table with one row per OpenStack flavor.
The flavor name `<gpu>-<n>.<vcpu>.<ramGB>.<diskGB>` is the one reliably known thing, so tables
are read by header text (never by column position) and every row is cross-checked against its
flavor name: a contradiction means the layout changed, which is a LayoutError, not a skip.

Every fact that a live check still has to confirm sits in the ASSUMED block below.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from estimator.gpus import get as gpu_spec
from monitor.offers import Offer, Price, StockState, Vat
from monitor.providers import IMMERS
from monitor.scrape import LayoutError, Skip
from scrapers.gpu_names import canonical_gpu

PROVIDER = IMMERS.id
PUBLIC_URL = IMMERS.public_url  # where the pages a user opens live
PRICE_SOURCE = "RUB/hour"  # the table quotes ₽ per hour, billed per second (seen)


# --- ASSUMED (confirm against the live site) --------------------------------------------------
@dataclass(frozen=True)
class GpuHint:
    """What a flavor's text cannot say about its GPU (docs/providers.md has only hints)."""

    form: str = ""  # "PCIe": the form factor, added to the name
    vram_gb: float | None = None  # per GPU, used when the page heading does not state it


@dataclass(frozen=True)
class Assumed:
    # One region; the site names none, so the offers carry this one.
    location: str = "ru"
    # Nothing seen says whether the ₽ prices include VAT.
    vat: Vat = Vat.UNKNOWN
    # The GPU is read from the flavor's own text: a brand word, then the model
    # (`teslaa10-…`, `teslah100-…`, `rtx4090-…`: seen). Brand word -> how the name spells it.
    flavor_brands: Mapping[str, str] = field(
        default_factory=lambda: {"tesla": "Tesla", "rtx": "RTX", "gtx": "GTX", "nvidia": ""}
    )
    # Model -> what the text cannot say. The A100's and H100's form factor (PCIe: the H100 is
    # quoted as "H100 PCIe" at about 342 ₽/h) and the 3080's 10 GB are assumed; the A100's
    # 40/80 GB must come from the page heading.
    model_hints: Mapping[str, GpuHint] = field(
        default_factory=lambda: {
            "a100": GpuHint(form="PCIe"),
            "h100": GpuHint(form="PCIe", vram_gb=80),
            "3080": GpuHint(vram_gb=10),
        }
    )
    # More model pages than this on the index is not the catalogue (a dozen GPU models today):
    # the scrape refuses it rather than fetching them all.
    max_model_pages: int = 40
    # Stock is not published. A row is out of stock only when it carries one of these texts
    # (a badge) or a disabled order button; otherwise it is priced with stock unknown.
    sold_out_texts: tuple[str, ...] = ("нет в наличии",)
    disabled_controls: frozenset[str] = frozenset({"button", "input"})
    # A heading names the model and its memory ("NVIDIA A100 80 ГБ"): a table takes the last one
    # before it that states GB, else the last one before it.
    heading_tags: frozenset[str] = frozenset({"h1", "h2", "h3"})
    # Header words per column (casefolded, matched as substrings; the first field that matches
    # wins, in this order). Only the column order «Конфигурация | vCPU | RAM, МБ | Диск, ГБ |
    # GPU | Цена за час» and MB values are seen; the exact header texts are not.
    price_words: tuple[str, ...] = ("цена", "стоимость", "price")
    gpu_memory_words: tuple[str, ...] = ("видеопамят", "vram")
    ram_words: tuple[str, ...] = ("ram", "озу", "память")
    disk_words: tuple[str, ...] = ("диск", "disk", "ssd", "nvme")
    gpu_words: tuple[str, ...] = ("gpu", "видеокарт")
    vcpu_words: tuple[str, ...] = ("vcpu", "cpu", "ядр")
    flavor_words: tuple[str, ...] = ("конфигурац", "flavor", "тариф", "название")
    # Every `/gpu/<slug>/` link on the index is a model page with a tariff table, except these
    # (a model page without a table fails the whole scrape, so a non-model page must be here).
    ignored_slugs: frozenset[str] = frozenset()
    # A whole page ends with </html>; a body without it was cut off (the server never omits it).
    page_end_tag: str = "html"


ASSUMED = Assumed()
# -----------------------------------------------------------------------------------------------

_MONTH_WORDS = ("мес", "month")
_GB_WORDS = ("гб", "gb", "гиб", "gib")
_MB_WORDS = ("мб", "mb", "миб", "mib")
_NO_PRICE = frozenset({"", "—", "–", "-", "−"})
# A Russian number: digits in groups of three separated by (NB/thin) spaces, decimal comma.
_NUMBER = re.compile(r"(\d{1,3}(?: \d{3})+|\d+)(?:[,.](\d+))?")
_CURRENCY = re.compile(r"\s*(₽|руб\.?|р\.)?\s*(/\s*(час|ч)\.?)?\s*$", re.IGNORECASE)
_FLAVOR = re.compile(r"(?<![\w.-])([a-z][a-z0-9_-]*?)-(\d+)\.(\d+)\.(\d+)\.(\d+)(?![\w.-])")
_CPU_FLAVOR = re.compile(r"(?<![\w.-])[a-z][a-z0-9_-]*\.\d+\.\d+\.\d+(?![\w.-])")
_HEADING_VRAM = re.compile(r"(\d+(?:[.,]\d+)?)\s*(?:гб|gb)(?!\w)", re.IGNORECASE)
_SLUG_PATH = re.compile(r"^/gpu/([a-z0-9][a-z0-9_-]*)/?$", re.IGNORECASE)
_SPACED = frozenset({"br", "p", "div", "li", "button", "span"})  # words either side stay apart
_MODEL = re.compile(r"[a-z]{0,2}\d{1,4}[a-z0-9]*")  # "t4", "a100", "h100", "4090", "3090ti"


@dataclass(frozen=True)
class PageOffers:
    """What one model page gave: offers, the rows it skipped (with reasons), and notes."""

    offers: tuple[Offer, ...]
    warnings: tuple[str, ...] = ()
    skips: tuple[Skip, ...] = ()


def model_url(slug: str, public_url: str = PUBLIC_URL) -> str:
    return f"{public_url.rstrip('/')}/gpu/{slug}/"


def parse_ru_number(text: str) -> float | None:
    """`1 045,10 ₽` (NBSP or thin space), `82,76`, `38 ₽`, `16384` -> float; else None.

    A run of digits too long for a float (a page's garbage) is None too, never `inf`."""
    flat = " ".join(text.split())  # NBSP, U+2009, U+202F all count as whitespace here
    flat = _CURRENCY.sub("", flat).strip()
    match = _NUMBER.fullmatch(flat)
    if match is None:
        return None
    whole, fraction = match.group(1).replace(" ", ""), match.group(2)
    value = float(f"{whole}.{fraction}" if fraction else whole)
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------- HTML extraction


@dataclass
class _Row:
    cells: list[str] = field(default_factory=list)
    disabled: bool = False  # a disabled order control in the row

    @property
    def text(self) -> str:
        return " ".join(self.cells)


@dataclass
class _Table:
    heading: str
    rows: list[_Row] = field(default_factory=list)
    _row: _Row | None = None
    _cell: list[str] | None = None

    def close_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row.cells.append(" ".join("".join(self._cell).split()))
        self._cell = None

    def close_row(self) -> None:
        self.close_cell()
        if self._row is not None and self._row.cells:
            self.rows.append(self._row)
        self._row = None


class _Extractor(HTMLParser):
    """Tables (with the heading before each), links, and whether the page ended properly."""

    def __init__(self, assumed: Assumed) -> None:
        super().__init__(convert_charrefs=True)
        self._assumed = assumed
        self.tables: list[_Table] = []
        self.links: list[str] = []
        self.ended = False
        self._open: list[_Table] = []
        self._heading: list[str] | None = None
        self._last_heading = ""
        self._model_heading = ""  # the last heading that states GPU memory
        self._skip = 0  # inside <script>/<style>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in self._assumed.heading_tags:
            self._heading = []
        elif tag == "table":
            self._open.append(_Table(self._model_heading or self._last_heading))
        elif tag == "a":
            self.links.extend(value for name, value in attrs if name == "href" and value)
        if not self._open:
            return
        table = self._open[-1]
        if tag == "tr":
            table.close_row()
            table._row = _Row()
        elif tag in ("td", "th"):
            table.close_cell()
            table._row = table._row or _Row()
            table._cell = []
        elif tag in self._assumed.disabled_controls and table._row and _is_disabled(attrs):
            table._row.disabled = True
        if tag in _SPACED and table._cell is not None:
            table._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag in self._assumed.heading_tags and self._heading is not None:
            self._last_heading = " ".join("".join(self._heading).split())
            self._heading = None
            if heading_vram(self._last_heading) is not None:
                self._model_heading = self._last_heading
        elif tag == self._assumed.page_end_tag:
            self.ended = True
        if not self._open:
            return
        table = self._open[-1]
        if tag in ("td", "th"):
            table.close_cell()
        elif tag == "tr":
            table.close_row()
        elif tag == "table":
            table.close_row()
            self.tables.append(self._open.pop())
        if tag in _SPACED and table._cell is not None:
            table._cell.append(" ")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._heading is not None:
            self._heading.append(data)
        if self._open and self._open[-1]._cell is not None:
            self._open[-1]._cell.append(data)

    @property
    def unclosed_tables(self) -> int:
        return len(self._open)


def _is_disabled(attrs: list[tuple[str, str | None]]) -> bool:
    values = dict(attrs)
    return "disabled" in values or (values.get("aria-disabled") or "").lower() == "true"


def _extract(body: bytes | str, what: str, assumed: Assumed) -> _Extractor:
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    parser = _Extractor(assumed)
    try:
        parser.feed(text)
        parser.close()
    except AssertionError as error:
        # html.parser's markup base asserts on some malformed declarations ("<![\x00CDATA[");
        # that is the page's garbage, not our bug.
        raise LayoutError(PROVIDER, f"{what}: malformed markup: {error}") from None
    # A cut-off body parses "fine" with fewer rows; it must not pass for a smaller catalogue.
    if parser.unclosed_tables or not parser.ended:
        raise LayoutError(PROVIDER, f"{what}: the page is cut off (no </html> or open <table>)")
    return parser


# --------------------------------------------------------------------------- index


def parse_index(body: bytes | str, assumed: Assumed = ASSUMED) -> list[str]:
    """The model slugs the `/gpu/` index links to, in page order, each once (linear in the
    number of links), and never more than `max_model_pages` of them."""
    links = _extract(body, "/gpu/", assumed).links
    slugs: dict[str, None] = {}  # an ordered set
    for href in links:
        match = _SLUG_PATH.match(_path_of(href))
        slug = match.group(1).lower() if match else ""
        if slug and slug not in assumed.ignored_slugs:
            slugs.setdefault(slug)
    if not slugs:
        raise LayoutError(PROVIDER, "/gpu/: the index links no GPU model pages")
    if len(slugs) > assumed.max_model_pages:
        raise LayoutError(
            PROVIDER,
            f"/gpu/: the index links {len(slugs)} model pages, more than the"
            f" {assumed.max_model_pages} a catalogue has",
        )
    return list(slugs)


def _path_of(href: str) -> str:
    try:
        return urlsplit(href).path
    except ValueError:  # "http://[" and the like: not a link we follow
        return ""


# --------------------------------------------------------------------------- columns


@dataclass(frozen=True)
class _Columns:
    flavor: int
    vcpu: int
    ram: int
    disk: int
    gpu: int
    price: int
    ram_in_gb: bool

    @property
    def width(self) -> int:
        return max(self.flavor, self.vcpu, self.ram, self.disk, self.gpu, self.price) + 1


def _field_of(header: str, assumed: Assumed) -> str | None:
    """Which column a header names; `price_month` is kept apart to refuse it."""
    if any(word in header for word in assumed.price_words):
        if any(word in header for word in _MONTH_WORDS):
            return "price_month"
        return "price"
    has_gb = any(word in header for word in _GB_WORDS)
    # "GPU, ГБ" or "Видеопамять" is memory per card: neither the count nor the RAM.
    if any(word in header for word in assumed.gpu_memory_words) or (
        has_gb and any(word in header for word in assumed.gpu_words)
    ):
        return "gpu_memory"
    for name, words in (("ram", assumed.ram_words), ("disk", assumed.disk_words)):
        if any(word in header for word in words):
            return name
    if any(word in header for word in assumed.gpu_words):
        return "gpu"
    if any(word in header for word in assumed.vcpu_words):
        return "vcpu"
    if any(word in header for word in assumed.flavor_words):
        return "flavor"
    return None


def _map_columns(header_cells: Sequence[str], where: str, assumed: Assumed) -> _Columns | None:
    """Column positions by header text; None when the table is not a tariff table."""
    found: dict[str, int] = {}
    ram_header = ""
    for index, cell in enumerate(header_cells):
        header = " ".join(cell.casefold().split())
        name = _field_of(header, assumed)
        if name is None:
            continue  # an action or note column
        if name in found:
            raise LayoutError(PROVIDER, f"{where}: two columns read as {name!r}: {header_cells}")
        found[name] = index
        ram_header = header if name == "ram" else ram_header
    if "flavor" not in found:
        return None
    if "price" not in found and "price_month" in found:
        raise LayoutError(PROVIDER, f"{where}: prices are per month now: {header_cells}")
    missing = [n for n in ("vcpu", "ram", "disk", "gpu", "price") if n not in found]
    if missing:
        raise LayoutError(PROVIDER, f"{where}: no {', '.join(missing)} column in {header_cells}")
    in_gb = any(w in ram_header for w in _GB_WORDS)
    if in_gb and any(w in ram_header for w in _MB_WORDS):
        raise LayoutError(PROVIDER, f"{where}: RAM header names two units: {ram_header!r}")
    return _Columns(
        found["flavor"],
        found["vcpu"],
        found["ram"],
        found["disk"],
        found["gpu"],
        found["price"],
        ram_in_gb=in_gb,
    )


# --------------------------------------------------------------------------- rows


class _SkipRowError(Exception):
    """A row that makes no offer: `reason` says why and `item` which row (reason None:
    silently not a GPU row)."""

    def __init__(self, reason: str | None, item: str = "", malformed: bool = True) -> None:
        super().__init__(f"{item}: {reason}" if reason else "")
        self.reason = reason
        self.item = item
        self.malformed = malformed


@dataclass(frozen=True)
class _Flavor:
    sku: str
    prefix: str
    gpus: int
    vcpu: int
    ram_gb: int
    disk_gb: int


@dataclass(frozen=True)
class _Context:
    url: str
    heading: str
    assumed: Assumed


def _flavor(cell: str, where: str) -> _Flavor:
    text = cell.casefold()
    match = _FLAVOR.search(text)
    if match is None:
        if _CPU_FLAVOR.search(text):
            raise _SkipRowError(None, malformed=False)  # a CPU-only flavor: not our business
        raise _SkipRowError("no flavor name", cell[:80])
    prefix, gpus, vcpu, ram, disk = match.groups()
    return _Flavor(match.group(0), prefix, int(gpus), int(vcpu), int(ram), int(disk))


def _number(row: _Row, index: int, column: str, sku: str, where: str) -> float:
    value = parse_ru_number(row.cells[index])
    if value is None:
        raise _SkipRowError(f"unreadable {column} {row.cells[index][:40]!r}", sku)
    return value


def _cross_check(flavor: _Flavor, row: _Row, cols: _Columns, where: str) -> None:
    """The table must say what the flavor name says; otherwise the columns moved."""
    ram = _number(row, cols.ram, "RAM", flavor.sku, where)
    ram_gb = ram if cols.ram_in_gb else ram / 1024
    pairs = (
        ("vCPU", _number(row, cols.vcpu, "vCPU", flavor.sku, where), flavor.vcpu),
        ("RAM GB", ram_gb, flavor.ram_gb),
        ("disk GB", _number(row, cols.disk, "disk", flavor.sku, where), flavor.disk_gb),
        ("GPU", _number(row, cols.gpu, "GPU", flavor.sku, where), flavor.gpus),
    )
    for column, table_value, name_value in pairs:
        if abs(table_value - name_value) > 1e-6:
            raise LayoutError(
                PROVIDER,
                f"{where}: {flavor.sku}: {column} is {table_value:g} in the table but "
                f"{name_value} in the flavor name: the columns changed",
            )


def _price(row: _Row, cols: _Columns, sku: str, where: str) -> float:
    cell = row.cells[cols.price]
    if cell.strip() in _NO_PRICE:
        raise _SkipRowError("no price", sku, malformed=False)
    value = parse_ru_number(cell)
    if value is None or value <= 0:
        raise _SkipRowError(f"unreadable price {cell[:40]!r}", sku)
    return value


def _stock(row: _Row, assumed: Assumed) -> StockState:
    text = row.text.casefold()
    if row.disabled or any(word in text for word in assumed.sold_out_texts):
        return StockState.OUT_OF_STOCK
    return StockState.UNKNOWN  # priced; the site publishes no stock


def heading_vram(heading: str) -> float | None:
    match = _HEADING_VRAM.search(heading)
    return float(match.group(1).replace(",", ".")) if match else None


def gpu_name(prefix: str, assumed: Assumed = ASSUMED) -> tuple[str, GpuHint]:
    """The GPU a flavor prefix spells ("teslah100" -> "Tesla H100 PCIe"), read from the text:
    a brand word, then the model; the hint adds what the text cannot say. A prefix without a
    brand word is kept as it is."""
    brands = sorted(assumed.flavor_brands.items(), key=lambda b: -len(b[0]))
    for word, brand in [*brands, ("", "")]:  # last: a bare model ("h100-…")
        model = prefix.removeprefix(word)
        if (model != prefix or not word) and _MODEL.fullmatch(model):
            hint = assumed.model_hints.get(model, GpuHint())
            return " ".join(filter(None, (brand, model.upper(), hint.form))), hint
    return prefix, GpuHint()


def _gpu(prefix: str, ctx: _Context) -> tuple[str, bool, float | None]:
    name, hint = gpu_name(prefix, ctx.assumed)
    vram = heading_vram(ctx.heading) or hint.vram_gb
    gpu, resolved = canonical_gpu(name, vram)  # unknown: the name as read, or the raw prefix
    if vram is None and resolved:
        vram = gpu_spec(gpu).vram_gb
    return gpu, resolved, vram


def _offer(row: _Row, cols: _Columns, ctx: _Context, where: str) -> Offer:
    if len(row.cells) < cols.width:
        raise _SkipRowError(f"a row with {len(row.cells)} of {cols.width} cells", row.text[:80])
    flavor = _flavor(row.cells[cols.flavor], where)
    _cross_check(flavor, row, cols, where)
    price = _price(row, cols, flavor.sku, where)
    gpu, known, vram = _gpu(flavor.prefix, ctx)
    return Offer(
        provider=PROVIDER,
        sku=flavor.sku,
        location=ctx.assumed.location,
        gpu=gpu,
        gpu_raw=flavor.prefix,
        gpu_known=known,
        gpu_count=flavor.gpus,
        vram_gb=vram,
        price=Price.per_hour(price, PRICE_SOURCE),
        stock=_stock(row, ctx.assumed),
        url=ctx.url,
        vat=ctx.assumed.vat,
        vcpu=flavor.vcpu,
        ram_gb=float(flavor.ram_gb),
        disk_gb=float(flavor.disk_gb),
        title=ctx.heading,
    )


# --------------------------------------------------------------------------- pages


def _table_offers(
    table: _Table, cols: _Columns, ctx: _Context, where: str, slug: str
) -> PageOffers:
    offers: list[Offer] = []
    skips: list[Skip] = []
    malformed = 0  # rows that should have been offers but could not be read
    for row in table.rows[1:]:
        try:
            offers.append(_offer(row, cols, ctx, where))
        except _SkipRowError as skip:
            malformed += skip.malformed
            if skip.reason:
                skips.append(Skip(slug, skip.reason, skip.item))
    # Some rows unreadable and none readable: the table changed, it did not sell out.
    if malformed and not offers:
        said = [f"{s.item}: {s.reason}" for s in skips[:3]]
        raise LayoutError(PROVIDER, f"{where}: no row of the tariff table reads: {said}")
    warnings = []
    unsized = [offer.sku for offer in offers if offer.vram_gb is None]
    if unsized:
        warnings.append(f"{where}: GPU memory unknown for {unsized} (heading {ctx.heading!r})")
    return PageOffers(tuple(offers), tuple(warnings), tuple(skips))


def parse_model_page(
    body: bytes | str,
    slug: str,
    *,
    public_url: str = PUBLIC_URL,
    assumed: Assumed = ASSUMED,
) -> PageOffers:
    """Offers from every tariff table on `/gpu/<slug>/`. A page without one is a LayoutError:
    a model page that lost its table is a changed layout, never "sold out"."""
    where = f"/gpu/{slug}/"
    offers: list[Offer] = []
    warnings: list[str] = []
    skips: list[Skip] = []
    tariff_tables = 0
    for table in _extract(body, where, assumed).tables:
        cols = _map_columns(table.rows[0].cells, where, assumed) if table.rows else None
        if cols is None:
            continue  # some other table (specs, FAQ)
        tariff_tables += 1
        ctx = _Context(model_url(slug, public_url), table.heading, assumed)
        found = _table_offers(table, cols, ctx, where, slug)
        offers.extend(found.offers)
        warnings.extend(found.warnings)
        skips.extend(found.skips)
    if not tariff_tables:
        raise LayoutError(PROVIDER, f"{where}: no tariff table on the model page")
    return PageOffers(tuple(offers), tuple(warnings), tuple(skips))
