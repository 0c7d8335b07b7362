"""Headless Chromium through selenium, for the calendar's browser tests
and its benchmark (tools/bench/calendar_page.py).

Debian's chromium and chromium-driver (tools/test-setup.sh installs them)
and selenium from PyPI (test-requirements.txt).
"""

import shutil
import time

from blazar_ext.tests.functional import services

free_port = services.free_port

CHROMIUM_NAMES = ('chromium', 'chromium-browser', 'google-chrome')
DRIVER_NAMES = ('chromedriver', 'chromium-driver')
# A fresh profile and no traffic of the browser's own: nothing but the
# page under test reaches the network.
CHROME_ARGS = ('--headless', '--no-sandbox', '--disable-gpu',
               '--disable-quic', '--no-first-run',
               '--disable-background-networking',
               '--disable-component-update', '--disable-sync',
               '--disable-dev-shm-usage', '--hide-scrollbars')


def _which(names) -> str | None:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def unavailable() -> str | None:
    """Why no browser test can run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return 'selenium is not installed (pip install -r ' \
               'test-requirements.txt)'
    if not _which(CHROMIUM_NAMES):
        return 'chromium is not installed (tools/test-setup.sh)'
    if not _which(DRIVER_NAMES):
        return 'chromium-driver is not installed (tools/test-setup.sh)'
    return None


def start_chrome(profile_dir: str, width: int = 1400, height: int = 900):
    """A headless Chromium WebDriver with a fresh profile in
    ``profile_dir``."""
    from selenium import webdriver
    from selenium.webdriver.chrome import service

    options = webdriver.ChromeOptions()
    options.binary_location = _which(CHROMIUM_NAMES)
    for arg in CHROME_ARGS:
        options.add_argument(arg)
    options.add_argument('--user-data-dir=%s' % profile_dir)
    options.add_argument('--window-size=%d,%d' % (width, height))
    driver = webdriver.Chrome(
        options=options,
        service=service.Service(executable_path=_which(DRIVER_NAMES)))
    driver.set_script_timeout(60)
    return driver


def wait_until(driver, script: str, timeout: float = 30.0, *args):
    """Poll a JavaScript expression until it is truthy; its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script('return (%s);' % script, *args)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError('timed out after %ss waiting for %s'
                                 % (timeout, script))
        time.sleep(0.05)


def hover(driver, selector: str, attempts: int = 5):
    """Point at the element ``selector`` finds; the element.

    The calendar redraws its bars as its data arrives (each view's
    answer, the series panel's): an element found just before a redraw
    is gone when the pointer moves to it (selenium's "stale element").
    It is then found again, up to ``attempts`` times.
    """
    from selenium.common import exceptions
    from selenium import webdriver

    for attempt in range(attempts):
        element = driver.find_element('css selector', selector)
        try:
            webdriver.ActionChains(driver).move_to_element(
                element).perform()
            return element
        except exceptions.StaleElementReferenceException:
            if attempt == attempts - 1:
                raise
            time.sleep(0.1)


def wait_rendered(driver, timeout: float = 60.0) -> None:
    """Until the calendar has drawn its first data."""
    wait_until(driver, 'document.documentElement.dataset.rendered',
               timeout)


def settle(driver, action=None, timeout: float = 60.0) -> None:
    """Run ``action()`` (if any), then wait until the calendar has drawn
    the data of its view (after the next frame)."""
    driver.execute_script(
        'document.documentElement.dataset.idle = "waiting";')
    if action is not None:
        action()
    driver.execute_script(
        'requestAnimationFrame(() => { const e = document.getElementById('
        '"scroller"); e.dispatchEvent(new Event("scroll")); });')
    wait_until(driver, 'document.documentElement.dataset.idle === "true"',
               timeout)
