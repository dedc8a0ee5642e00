"""A real headless Chromium for the Mini App's tests: Debian's `chromium` and
`chromium-driver` (.ci/run installs them), driven by Selenium through the system chromedriver
(never Selenium Manager's downloads: CI has no network but the package registries).

Without them the browser tests skip, with one line in the report; in CI (CI=true) they fail.
Selenium's calls block: tests run them in a thread (`asyncio.to_thread`), so that the event
loop that serves the app to the browser keeps running.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver

from tests.ci import skip_or_fail

CHROMIUM = os.environ.get("GPURADAR_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GPURADAR_CHROMEDRIVER", "/usr/bin/chromedriver")
# The phone the issue names: an iPhone 12–15's CSS viewport.
PHONE = (390, 844)
# Where the screenshots of a run go (ignored by git): build/screenshots/ by default.
SCREENSHOTS = Path(os.environ.get("GPURADAR_SCREENSHOTS", "build/screenshots"))


def missing_reason() -> str | None:
    """Why no browser can run here, or None."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if shutil.which(path) is None:
            return f"no {path} (apt-get install {package})"
    return None


def require_browser() -> None:
    reason = missing_reason()
    if reason is None:
        return
    skip_or_fail(f"Mini App browser tests need Chromium: {reason}", "they must run")


@contextmanager
def chromium(size: tuple[int, int] = PHONE) -> Iterator[WebDriver]:
    """A headless Chromium window of `size` CSS pixels."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container has no user namespace for the sandbox
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        f"--window-size={size[0]},{size[1]}",
        "--force-device-scale-factor=1",
        "--lang=ru-RU",
        # No site but this machine's answers: the page's telegram-web-app.js (telegram.org)
        # fails at once, as in a browser outside Telegram, and a test reaches no network.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        resize(driver, size)
        yield driver
    finally:
        driver.quit()


def resize(driver: WebDriver, size: tuple[int, int]) -> None:
    """The page's viewport set exactly to `size` (the window's size includes its frame); a
    phone's when it is PHONE's width or narrower."""
    width, height = size
    mobile = width <= PHONE[0]
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
