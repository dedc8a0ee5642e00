"""The Mini App in a real headless Chromium (tests/browser.py), against the real ops server of
the running bot, which scrapes the fake provider sites, and a signed initData.

Selenium blocks, so each browser step runs in a thread (`browse`) while this event loop goes
on serving the app, the API and the fake sites. Screenshots of the table and the chart at
390×844 land in build/screenshots/ (GPURADAR_SCREENSHOTS).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import aiohttp
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from bot.miniapp.init_data import MAX_AGE
from bot.runtime import Application
from bot.views.prices import ranked
from estimator.sizing_text import to_plain
from tests.bot.conftest import CHAT, TOKEN, monitored_app, scraped_every_site
from tests.bot.test_e2e_alerts import refresh
from tests.bot.test_e2e_watch import reply, seed_history
from tests.browser import PHONE, SCREENSHOTS, chromium, require_browser, resize
from tests.fakes.init_data import signed_init_data
from tests.fakes.providers import FakeProviders, Mode
from tests.fakes.telegram import FakeTelegram
from tests.store_helpers import current_offers

PUBLIC_URL = "https://bot.example.test"
WAIT_S = 10.0
THEME = {"bg_color": "#ffffff", "text_color": "#000000", "button_color": "#2481cc"}
T = TypeVar("T")


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    require_browser()
    with chromium() as driver:
        yield driver


async def browse(step: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(step, *args)


@asynccontextmanager
async def served_sites(
    telegram: FakeTelegram, db_path: Path
) -> AsyncIterator[tuple[Application, FakeProviders]]:
    """The bot with its Mini App on, after its first scrape of every fake site, and the
    sites (a test may make one fail)."""
    await seed_history(db_path)
    since = datetime.now(UTC)
    async with monitored_app(telegram, db_path, public_url=PUBLIC_URL) as (application, sites):
        await scraped_every_site(application, since)
        yield application, sites


@asynccontextmanager
async def served_app(telegram: FakeTelegram, db_path: Path) -> AsyncIterator[Application]:
    async with served_sites(telegram, db_path) as (application, _):
        yield application


def origin(application: Application) -> str:
    assert application.ops is not None
    return f"http://127.0.0.1:{application.ops.port}"


def init_data(*, age: timedelta = timedelta(minutes=1), token: str = TOKEN) -> str:
    return signed_init_data(token, user_id=CHAT, auth_date=datetime.now(UTC) - age)


def app_url(application: Application, page: str, data: str, gpu: str = "") -> str:
    """The address Telegram opens: the button's URL, then its launch parameters in the
    fragment (core.telegram.org/bots/webapps, "Initializing Mini Apps")."""
    query = f"?page={page}" + (f"&gpu={gpu}" if gpu else "")
    fragment = f"tgWebAppData={quote(data, safe='')}&tgWebAppVersion=8.0&tgWebAppPlatform=ios"
    fragment += f"&tgWebAppThemeParams={quote(json.dumps(THEME), safe='')}"
    return f"{origin(application)}/app/{query}#{fragment}"


def open_page(driver: WebDriver, url: str, ready: str) -> None:
    driver.get(url)
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_elements(By.CSS_SELECTOR, ready))


def rows(driver: WebDriver, selector: str) -> list[dict[str, str]]:
    found: list[dict[str, str]] = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(r => ({...r.dataset}))",
        selector,
    )
    return found


def wait_rows(
    driver: WebDriver, selector: str, until: Callable[[list[dict[str, str]]], bool]
) -> list[dict[str, str]]:
    result: list[dict[str, str]] = []

    def settled(d: WebDriver) -> bool:
        nonlocal result
        result = rows(d, selector)
        return until(result)

    WebDriverWait(driver, WAIT_S).until(settled)
    return result


def screenshot(driver: WebDriver, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    assert driver.save_screenshot(str(path))
    return path


async def api(application: Application, path: str) -> Any:
    async with (
        aiohttp.ClientSession() as session,
        session.get(origin(application) + path) as response,
    ):
        assert response.status == 200
        return await response.json()


def offer_key(row: dict[str, str]) -> tuple[str, str, str]:
    return (row["provider"], row["sku"], row["location"])


# Each phone card's box and the boxes of what it must show, read in the page.
CARD_BOXES = """
const width = window.innerWidth;
const box = (el) => {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return {left: r.left, right: r.right, width: r.width, height: r.height,
          text: el.textContent.trim(),
          shown: style.visibility === 'visible' && style.display !== 'none'};
};
return {width, cards: [...document.querySelectorAll('#offers .offer')].map((card) => ({
  ...card.dataset,
  card: box(card),
  parts: Object.fromEntries(['price', 'billing', 'place', 'stock'].map(
    (part) => [part, box(card.querySelector('.card-' + part))])),
})), chips: [...document.querySelectorAll('.filters.chips > *')].map(
    (chip) => chip.getBoundingClientRect().top)};
"""
WIDE = (1024, 768)


def off_screen(card: dict[str, Any], width: float) -> list[str]:
    """What of a card is not on a `width`-wide screen: the card itself, or a part missing,
    hidden, empty or past an edge."""
    problems = [] if card["card"]["left"] >= 0 and card["card"]["right"] <= width else ["card"]
    for name, part in card["parts"].items():
        seen = part is not None and part["shown"] and part["text"] and part["height"] > 0
        if not (seen and part["left"] >= 0 and part["width"] > 0 and part["right"] <= width):
            problems.append(name)
    return problems


def table_steps(driver: WebDriver, url: str, count: int) -> dict[str, Any]:
    """On the phone: every offer a card, in the API's order; then «≥ 48 GB»; then on a wide
    screen the table, its price column sorted both ways."""
    open_page(driver, url, "#offers .offer")
    every = wait_rows(driver, "#offers .offer", lambda found: len(found) == count)
    assert driver.execute_script("return window.innerWidth") == 390
    # The phone's page does not scroll sideways.
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
    boxes = driver.execute_script(CARD_BOXES)
    shot = screenshot(driver, "table")
    Select(driver.find_element(By.ID, "filter-vram")).select_by_value("48")
    large = wait_rows(driver, "#offers .offer", lambda found: 0 < len(found) < count)
    resize(driver, WIDE)
    try:
        wait_rows(driver, "#offers tr.offer", lambda found: len(found) == len(large))
        prices = []
        for direction in ("ascending", "descending"):
            driver.find_element(By.CSS_SELECTOR, 'th[data-sort="price"] button').click()
            until(
                driver,
                f"document.querySelector('th[data-sort=\"price\"]')"
                f".getAttribute('aria-sort') === '{direction}'",
            )
            sorted_rows = rows(driver, "#offers tr.offer")
            prices.append([float(row["price"]) for row in sorted_rows])
    finally:
        resize(driver, PHONE)
        Select(driver.find_element(By.ID, "filter-vram")).select_by_value("")
    return {
        "every": every,
        "boxes": boxes,
        "large": large,
        "ascending": prices[0],
        "descending": prices[1],
        "shot": shot,
    }


async def test_the_phone_lists_every_offer_as_a_card_in_the_prices_order(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    """At 390×844 each offer is a card whose price, billing kind, place and stock are on
    screen, in the order /prices shows; «≥ 48 GB» filters; a wide screen gets the table."""
    async with served_app(telegram, db_path) as application:
        # /prices lists the store's current offers; the table must show each of them.
        offers = await current_offers(application.store)
        in_prices = ranked(await application.store.observed_offers())
        url = app_url(application, "table", init_data())
        seen = await browse(table_steps, browser, url, len(offers))
        api_large = await api(application, "/api/v1/offers?min_vram=48")
    assert [offer_key(row) for row in seen["every"]] == [item.offer.key for item in in_prices]
    boxes = seen["boxes"]
    assert len(boxes["cards"]) == len(offers)
    assert [(card["sku"], off_screen(card, boxes["width"])) for card in boxes["cards"]] == [
        (card["sku"], []) for card in boxes["cards"]
    ]
    # A monthly-only server says so beside its month price.
    monthly = [card for card in boxes["cards"] if card["billing"] == "monthly"]
    assert monthly
    assert {card["parts"]["billing"]["text"] for card in monthly} == {"только помесячно"}
    assert all("/мес" in card["parts"]["price"]["text"] for card in monthly)
    # The filters fold into one line of chips.
    assert len(boxes["chips"]) >= 7
    assert len(set(boxes["chips"])) == 1
    large = seen["large"]
    assert all(float(row["vram"]) >= 48 for row in large)
    expected = {(o.provider, o.sku, o.location) for o in offers if (o.vram_gb or 0) >= 48}
    assert {offer_key(row) for row in large} == expected
    assert [offer_key(row) for row in api_large["offers"]] == [offer_key(row) for row in large]
    assert seen["ascending"] == sorted(seen["ascending"])
    assert seen["descending"] == sorted(seen["ascending"], reverse=True)
    assert seen["shot"].stat().st_size > 0


def stale_steps(driver: WebDriver, url: str, count: int) -> dict[str, Any]:
    """Every row, each with whether it is marked stale, its freshness cell and its colour."""
    open_page(driver, url, "#offers .offer")
    wait_rows(driver, "#offers .offer", lambda found: len(found) == count)
    cells: list[dict[str, Any]] = driver.execute_script(
        """return [...document.querySelectorAll('#offers .offer')].map(r => ({
            ...r.dataset,
            dimmed: r.classList.contains('stale'),
            fresh: r.querySelector('.fresh').textContent,
            colour: getComputedStyle(r.querySelector('.gpu')).color}));"""
    )
    return {"rows": cells, "shot": screenshot(driver, "table-stale")}


async def test_a_failing_parts_rows_are_marked_stale_within_one_refresh(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    """Selectel's cloud prices answer 500 for one refresh: the table marks exactly the rows
    the API calls stale, dimmed, with the time their part last answered."""
    async with served_sites(telegram, db_path) as (application, sites):
        sites["selectel"].path_modes["/prices/vpc"] = Mode.ERROR_500
        await refresh(application)
        listed = await api(application, "/api/v1/offers")
        url = app_url(application, "table", init_data())
        seen = await browse(stale_steps, browser, url, listed["count"])
    stale = {offer_key(row) for row in listed["offers"] if row["stale"]}
    assert stale
    assert {key[0] for key in stale} == {"selectel"}
    marked = [row for row in seen["rows"] if row["stale"] == "true"]
    assert {offer_key(row) for row in marked} == stale
    assert all(row["dimmed"] for row in marked)
    # The cloud part's rows say when it last answered, on the browser's clock (the machine's).
    cloud = [row for row in listed["offers"] if row["stale"] and row["sku"].startswith("cloud:")]
    assert cloud
    times = {datetime.fromisoformat(row["observed_at"]).astimezone() for row in cloud}
    (when,) = {moment.strftime("%H:%M") for moment in times}
    shown = {row["fresh"] for row in marked if row["sku"].startswith("cloud:")}
    assert shown == {f"данные от {when}, источник не отвечает"}
    fresh = [row for row in seen["rows"] if row["stale"] == "false"]
    assert fresh
    assert not any("источник не отвечает" in row["fresh"] for row in fresh)
    # Dimmed: a stale row's text is another colour than a fresh row in stock.
    in_stock = next(row for row in fresh if row["stock"] == "in_stock")
    assert {row["colour"] for row in marked} != {in_stock["colour"]}
    assert seen["shot"].stat().st_size > 0


def chart_steps(driver: WebDriver, url: str) -> dict[str, Any]:
    open_page(driver, url, "#history-chart[data-points]")
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#history-low[data-price]")
    )
    drawn = driver.execute_script(
        """const chart = document.getElementById('history-chart');
        const low = document.getElementById('history-low');
        return {points: Number(chart.dataset.points),
                series: chart.uplot.data.slice(1).map(s => s.filter(v => v != null)),
                low: {price: Number(low.dataset.price), at: low.dataset.at}};"""
    )
    drawn["rows"] = rows(driver, "#history-points tr.point")
    drawn["shot"] = screenshot(driver, "chart")
    return dict(drawn)


async def test_the_chart_draws_the_points_and_the_low_of_the_history_api(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    async with served_app(telegram, db_path) as application:
        history = await api(application, "/api/v1/history?gpu=h100&days=30")
        url = app_url(application, "history", init_data(), gpu="h100")
        drawn = await browse(chart_steps, browser, url)
    points = history["points"]
    assert len(points) >= 3
    assert drawn["points"] == len(points)
    assert [(row["at"], float(row["price"])) for row in drawn["rows"]] == [
        (point["at"], point["price_gpu_hour_rub"]) for point in points
    ]
    # Every price the API gave is drawn, and nothing else.
    assert {v for series in drawn["series"] for v in series} == {
        point["price_gpu_hour_rub"] for point in points
    }
    low = history["low"]
    assert drawn["low"] == {"price": low["price_gpu_hour_rub"], "at": low["at"]}
    assert drawn["shot"].stat().st_size > 0


def calculator_steps(driver: WebDriver, url: str) -> tuple[str, str]:
    open_page(driver, url, "#fit-model")
    model = driver.find_element(By.ID, "fit-model")
    model.clear()
    model.send_keys("13b")
    Select(driver.find_element(By.ID, "fit-method")).select_by_visible_text("qlora")
    for field, value in (("fit-ctx", "4096"), ("fit-bs", "2"), ("fit-gpu", "4090")):
        element = driver.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    driver.find_element(By.ID, "fit-submit").click()
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_elements(By.ID, "fit-answer"))
    command = driver.find_element(By.ID, "fit-command").get_attribute("textContent")
    answer = driver.find_element(By.ID, "fit-answer").get_attribute("textContent")
    return str(command), str(answer)


async def test_the_calculator_answers_what_fit_answers_in_the_chat(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    async with served_app(telegram, db_path) as application:
        await reply(telegram, "/start")  # the user exists, with the language the chat uses
        url = app_url(application, "fit", init_data())
        command, answer = await browse(calculator_steps, browser, url)
        in_chat = await reply(telegram, f"/fit {command}")
    assert command == "13b qlora ctx=4096 bs=2 gpu=RTX-4090"  # the card as the catalog names it
    assert answer == to_plain(in_chat)


def natural_words_steps(driver: WebDriver, table: str, fit: str) -> dict[str, Any]:
    """The chat's words in the app's fields: the card filter takes «a100 80gb» and «rtx 4090»,
    the calculator «Llama 3 8B», «2 гб» of text and «rtx 4090»."""
    open_page(driver, table, "#offers .offer")
    every = len(rows(driver, "#offers .offer"))
    filtered: dict[str, list[dict[str, str]]] = {}
    for words, card in (("a100 80gb", "A100 80GB"), ("rtx 4090", "RTX 4090")):
        box = driver.find_element(By.ID, "filter-gpu")
        box.clear()
        box.send_keys(words)

        def only(found: list[dict[str, str]], card: str = card) -> bool:
            return 0 < len(found) < every and all(row["gpu"].startswith(card) for row in found)

        filtered[words] = wait_rows(driver, "#offers .offer", only)
    open_page(driver, fit, "#fit-model")
    for field, value in (
        ("fit-model", "Llama 3 8B"),
        ("fit-dataset", "2 гб"),
        ("fit-gpu", "rtx 4090"),
    ):
        element = driver.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    driver.find_element(By.ID, "fit-submit").click()
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_elements(By.ID, "fit-answer") or d.find_elements(By.ID, "fit-error")
    )
    errors = driver.find_elements(By.ID, "fit-error")
    command = driver.find_element(By.ID, "fit-command").get_attribute("textContent")
    return {
        "filtered": filtered,
        "error": errors[0].get_attribute("textContent") if errors else None,
        "command": command,
    }


async def test_the_filter_and_the_calculator_take_the_words_the_chat_takes(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    async with served_app(telegram, db_path) as application:
        await reply(telegram, "/start")
        table = app_url(application, "table", init_data())
        fit = app_url(application, "fit", init_data())
        seen = await browse(natural_words_steps, browser, table, fit)
    assert seen["error"] is None
    assert all(seen["filtered"].values())
    # The model, the text's size as its tokens and the card, as the chat reads them.
    assert seen["command"].startswith("Llama-3.1-8B")
    assert "gpu=RTX-4090" in seen["command"]
    assert " ds=" in seen["command"]  # 2 GB of text, as its tokens


def pause_steps(driver: WebDriver, url: str) -> list[dict[str, str]]:
    open_page(driver, url, "#watches li.watch")
    driver.find_element(By.CSS_SELECTOR, "#watches li.watch .watch-pause").click()
    return wait_rows(
        driver, "#watches li.watch", lambda found: [w["paused"] for w in found] == ["true"]
    )


async def test_a_watch_paused_in_the_app_is_paused_in_subs(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    async with served_app(telegram, db_path) as application:
        await reply(telegram, "/watch h100 max=650")
        before = await reply(telegram, "/subs")
        url = app_url(application, "watches", init_data())
        [watch] = await browse(pause_steps, browser, url)
        after = await reply(telegram, "/subs")
        [stored] = await application.store.subscriptions_of(CHAT)
    assert stored.paused
    assert int(watch["id"]) == stored.id
    assert "на паузе" not in before
    assert "на паузе" in after


def refused_steps(driver: WebDriver, url: str, data: str) -> dict[str, Any]:
    open_page(driver, url, "#auth-error")
    status: int = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        fetch('/app/api/watches', {headers: {Authorization: 'tma ' + arguments[0]}})
          .then(r => done(r.status), () => done(-1));""",
        data,
    )
    shown = driver.find_element(By.ID, "auth-error").text
    listed = rows(driver, "#watches li.watch")
    return {"status": status, "shown": shown, "listed": listed}


@pytest.mark.parametrize("kind", ["forged", "stale"])
async def test_forged_or_stale_init_data_gets_401_and_shows_nothing(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver, kind: str
):
    async with served_app(telegram, db_path) as application:
        await reply(telegram, "/watch h100 max=650")
        data = {
            "forged": init_data(token="999:not-this-bot"),
            "stale": init_data(age=MAX_AGE + timedelta(minutes=5)),
        }[kind]
        url = app_url(application, "watches", data)
        seen = await browse(refused_steps, browser, url, data)
        [stored] = await application.store.subscriptions_of(CHAT)
    assert seen["status"] == 401
    assert "Откройте приложение из Telegram" in seen["shown"]
    assert seen["listed"] == []
    assert not stored.paused


# Telegram's own light and dark themes (the colours its apps send as themeParams).
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#2481cc",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
}
DARK = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "link_color": "#6ab3f3",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
    "destructive_text_color": "#ec3942",
}
FAKE_WEBAPP = Path(__file__).resolve().parents[2] / "fakes" / "telegram_webapp.js"


def rgb(hex_colour: str) -> str:
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def shoot_both_themes(driver: WebDriver, name: str) -> list[Path]:
    """`name`-light and `name`-dark, the dark one after Telegram switched its theme live."""
    shots = []
    for label, theme in (("light", LIGHT), ("dark", DARK)):
        driver.execute_script("window.__tg.setTheme(arguments[0])", theme)
        background = rgb(theme["bg_color"])
        until(driver, f"getComputedStyle(document.body).backgroundColor === '{background}'")
        shots.append(screenshot(driver, f"{name}-{label}"))
    driver.execute_script("window.__tg.setTheme(arguments[0])", LIGHT)
    return shots


def tap(driver: WebDriver, selector: str) -> None:
    driver.find_element(By.CSS_SELECTOR, selector).click()


def telegram_state(driver: WebDriver) -> dict[str, Any]:
    state: dict[str, Any] = driver.execute_script(
        """const app = window.Telegram.WebApp;
        return {back: app.BackButton.isVisible, main: app.MainButton.isVisible,
                mainText: app.MainButton.text, calls: window.__tg.calls};"""
    )
    return state


def press(driver: WebDriver, button: str) -> None:
    driver.execute_script(f"window.Telegram.WebApp.{button}.press()")


def until(driver: WebDriver, script: str) -> None:
    WebDriverWait(driver, WAIT_S).until(lambda d: d.execute_script(f"return {script}"))


def telegram_steps(driver: WebDriver, url: str) -> dict[str, Any]:
    """Every page inside a stand-in Telegram, light and dark; the calculator and a watch's cap
    through the main button, the details and the pages closed by the back button."""
    source = FAKE_WEBAPP.read_text().replace("__THEME__", json.dumps(LIGHT))
    installed = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
    seen: dict[str, Any] = {"shots": []}
    try:
        open_page(driver, url, "#offers .offer")
        seen["start"] = telegram_state(driver)
        seen["shots"] += shoot_both_themes(driver, "table")
        tap(driver, "#offers .offer .card-place a")

        tap(driver, "#tab-history")
        open_page_ready(driver, "#history-chart .uplot")
        seen["history"] = telegram_state(driver)
        seen["shots"] += shoot_both_themes(driver, "chart")

        tap(driver, "#tab-fit")
        driver.find_element(By.ID, "fit-model").send_keys("13b")
        seen["fit"] = telegram_state(driver)
        seen["fit_button_shown"] = driver.find_element(By.ID, "fit-submit").is_displayed()
        press(driver, "MainButton")
        open_page_ready(driver, "#fit-answer")
        tap(driver, "#fit-details")
        until(driver, "document.getElementById('fit-answer').dataset.full === 'true'")
        seen["details"] = driver.find_element(By.ID, "fit-answer").get_attribute("textContent")
        press(driver, "BackButton")
        until(driver, "document.getElementById('fit-answer').dataset.full === 'false'")
        seen["shots"] += shoot_both_themes(driver, "calculator")

        tap(driver, "#tab-watches")
        open_page_ready(driver, "#watches li.watch")
        seen["shots"] += shoot_both_themes(driver, "watches")
        cap = driver.find_element(By.CSS_SELECTOR, "#watches li.watch:first-child .watch-cap")
        cap.clear()
        cap.send_keys("599,5")
        seen["cap"] = telegram_state(driver)
        press(driver, "MainButton")
        until(driver, "!window.Telegram.WebApp.MainButton.isVisible")
        tap(driver, "#watches li.watch:last-child .watch-delete")
        wait_rows(driver, "#watches li.watch", lambda found: len(found) == 1)
        press(driver, "BackButton")
        until(driver, "document.getElementById('tab-fit').getAttribute('aria-selected') === 'true'")
        seen["end"] = telegram_state(driver)
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", installed)
    return seen


def open_page_ready(driver: WebDriver, ready: str) -> None:
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_elements(By.CSS_SELECTOR, ready))


async def test_inside_telegram_the_app_follows_its_theme_and_uses_its_buttons(
    telegram: FakeTelegram, db_path: Path, browser: WebDriver
):
    """A stand-in window.Telegram.WebApp: the app calls ready and expand, redraws in the theme
    Telegram switches to (screenshots of every page, light and dark), submits the calculator
    and saves an edited cap «599,5» by the main button, opens the calculator's details in
    place, confirms a delete with showConfirm, opens links with openLink, and goes back."""
    async with served_app(telegram, db_path) as application:
        await reply(telegram, "/watch h100 max=650")
        await reply(telegram, "/watch a100")
        before = await reply(telegram, "/fit 13b")
        url = app_url(application, "table", init_data())
        seen = await browse(telegram_steps, browser, url)
        left = await application.store.subscriptions_of(CHAT)
    calls = [call[0] for call in seen["end"]["calls"]]
    assert calls[:2] == ["ready", "expand"]
    assert not seen["start"]["back"]
    assert seen["history"]["back"]
    # The calculator's own button gives way to Telegram's.
    assert (seen["fit"]["main"], seen["fit"]["mainText"]) == (True, "Рассчитать")
    assert not seen["fit_button_shown"]
    assert "Подробнее" in before  # the chat's answer points to its details; the app has them
    assert seen["details"].strip()
    assert (seen["cap"]["main"], seen["cap"]["mainText"]) == (True, "Сохранить")
    saved = [call for call in seen["end"]["calls"] if call[0] == "MainButton.press"]
    assert len(saved) == 2
    [confirm] = [call for call in seen["end"]["calls"] if call[0] == "showConfirm"]
    assert "Удалить подписку" in confirm[1]
    # «599,5» is read as the chat reads a price: 599.5, not 5 995; the other watch is gone.
    [kept] = left
    assert kept.filter.max_rub_per_gpu_hour == 599.5
    assert any(
        call[0] == "openLink" and call[1].startswith("http") for call in seen["end"]["calls"]
    )
    assert {"haptic"} <= set(calls)
    assert seen["end"]["back"]  # back on the calculator: the table is still behind it
    assert len(seen["shots"]) == 8
    assert all(shot.stat().st_size > 0 for shot in seen["shots"])
