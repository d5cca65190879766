"""Headless Chromium for the browser tests: Debian's ``chromium`` and ``chromium-driver``, never a
downloaded browser or driver (selenium-manager is made to fail loudly if anything calls it)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _no_selenium_manager(*_: Any, **__: Any) -> Any:
    raise RuntimeError("selenium-manager must not run: the tests use /usr/bin/chromedriver")


@contextmanager
def chromium(
    folder: Path, width: int = 1280, height: int = 860, mobile: bool = False
) -> Iterator[Any]:
    """A headless Chromium with its own profile under ``folder``; quit whatever happens."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common import selenium_manager

    for path in (CHROMIUM, CHROMEDRIVER):
        if shutil.which(path) is None:  # CI installs both (.ci/run): missing is a failure
            raise RuntimeError(f"{path} is missing: apt-get install chromium chromium-driver")
    selenium_manager.SeleniumManager.binary_paths = _no_selenium_manager  # type: ignore[method-assign]
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--password-store=basic",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--window-size={width},{height}",
        f"--user-data-dir={folder}",
    ):
        options.add_argument(arg)
    if mobile:
        options.add_experimental_option(
            "mobileEmulation",
            {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2, "touch": True}},
        )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(
        executable_path=CHROMEDRIVER, log_output=str(folder.parent / "chromedriver.log")
    )
    driver = webdriver.Chrome(options=options, service=service)
    try:
        driver.set_page_load_timeout(20)
        yield driver
    finally:
        driver.quit()


def fit(driver: Any, width: int = 1280, height: int = 860, mobile: bool = False) -> None:
    """Give a running Chromium the window ``chromium`` would have started it with: the same
    viewport, pixel ratio and touch points as its ``--window-size`` or its mobile emulation
    (checked side by side), for a few milliseconds instead of a browser's start."""
    if mobile:
        metrics = {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        driver.execute_cdp_cmd(
            "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1}
        )
    else:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        driver.set_window_size(width, height)
