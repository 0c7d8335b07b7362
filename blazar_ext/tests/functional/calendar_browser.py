"""The calendar page's browser test base: a fresh all-in-one and a fresh
headless Chromium per test (test_calendar_browser, and a resource type's
own tab tests).

Screenshots of every test go to $BLAZAR_EXT_SCREENSHOT_DIR, by default
.stestr/screenshots/ beside the test run's results.
"""

import datetime
import os

import fixtures
from oslo_utils import timeutils
import requests
import testtools

from blazar_ext.tests.functional import browser
from blazar_ext.tests.functional import services

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}
FMT = '%Y-%m-%d %H:%M'
MAX_LEASE_SECONDS = 86400
SCREENSHOT_DIR = os.environ.get(
    'BLAZAR_EXT_SCREENSHOT_DIR',
    os.path.join(os.getcwd(), '.stestr', 'screenshots'))


def hour() -> datetime.datetime:
    return timeutils.utcnow().replace(minute=0, second=0, microsecond=0)


def minute(api_date: str) -> str:
    """'2030-01-01T10:00:00.000000' as the calendar shows it."""
    return api_date[:16].replace('T', ' ')


class CalendarBrowserTestCase(testtools.TestCase):
    """A fresh all-in-one (with a maximum lease length, so enforcement
    refuses long leases) and a fresh headless Chromium per test."""

    # More [manager] options for the all-in-one (a subclass enabling
    # other resource plugins, say).
    MANAGER_OPTIONS = ''

    def setUp(self):
        super().setUp()
        reason = browser.unavailable()
        if reason:
            self.skipTest(reason)
        # Dates from one base for the whole test: an hour may turn.
        self.base = hour()
        self.state = self.useFixture(fixtures.TempDir()).path
        service = self.useFixture(services.AllInOne(
            self.state, '[manager]\nevent_interval = 3600\n%s'
            '[enforcement]\nreservation_max_length = %d\n'
            % (self.MANAGER_OPTIONS, MAX_LEASE_SECONDS)))
        self.url, self.process = service.url, service.process
        self.driver = browser.start_chrome(
            os.path.join(self.state, 'chrome-profile'))
        self.addCleanup(self.driver.quit)
        # Cleanups run last-in first-out: the screenshot before quitting.
        self.addCleanup(self.screenshot, 'end')

    def at(self, hours: float) -> str:
        return (self.base + datetime.timedelta(hours=hours)).strftime(FMT)

    def screenshot(self, label: str) -> None:
        os.makedirs(SCREENSHOT_DIR, exist_ok=True)
        self.driver.save_screenshot(os.path.join(
            SCREENSHOT_DIR, '%s-%s.png' % (
                '.'.join(self.id().split('.')[-2:]), label)))

    def call(self, method: str, path: str, body=None, token='admin',
             expected: int | None = 200, headers=None):
        headers = dict(headers or {}, **{'X-Auth-Token': token})
        resp = requests.request(method, self.url + path, json=body,
                                headers=headers, timeout=30)
        if expected is not None:
            self.assertEqual(expected, resp.status_code, resp.text)
        return resp

    def add_host(self, name: str, **capabilities) -> dict:
        return self.call('POST', '/v1/os-hosts', dict(
            capabilities, name=name), expected=201).json()['host']

    def lease(self, name: str, start: float, end: float, token='admin',
              **reservation) -> dict:
        spec = {'resource_type': 'physical:host', 'min': 1, 'max': 1,
                'hypervisor_properties': '', 'resource_properties': ''}
        spec.update(reservation)
        return self.call('POST', '/v1/leases', {
            'name': name, 'start_date': self.at(start),
            'end_date': self.at(end),
            'reservations': [spec], 'events': []}, token=token,
            expected=201).json()['lease']

    def set_traits(self, host_name: str, *traits: str) -> None:
        for trait in traits:
            self.call('PUT', '/placement/traits/%s' % trait,
                      headers=PLACEMENT, expected=None)
        provider = self.call(
            'GET', '/placement/resource_providers?name=%s' % host_name,
            headers=PLACEMENT).json()['resource_providers'][0]
        self.call('PUT', '/placement/resource_providers/%s/traits'
                  % provider['uuid'],
                  {'traits': list(traits),
                   'resource_provider_generation': provider['generation']},
                  headers=PLACEMENT)

    def open_page(self, token: str = 'admin') -> None:
        self.driver.get(self.url + '/calendar/')
        self.driver.execute_script(
            'localStorage.setItem("blazar-calendar-token", arguments[0]);',
            token)
        self.driver.get(self.url + '/calendar/')
        browser.wait_rendered(self.driver)
        browser.settle(self.driver)

    def bars(self) -> list:
        """The lease bars drawn, as dicts of their data attributes."""
        return self.driver.execute_script("""
            return Array.from(document.querySelectorAll('#bars rect.bar'))
              .map(b => ({lease: b.dataset.lease, name: b.dataset.name,
                          resource: b.dataset.resource,
                          start: b.dataset.start, end: b.dataset.end}));""")

    def text(self, element_id: str) -> str:
        return self.driver.execute_script(
            'const e = document.getElementById(arguments[0]);'
            'return e ? e.textContent : null;', element_id)

    def tabs(self) -> list:
        """[key, label, aria-selected] of the tab buttons."""
        return self.driver.execute_script(
            'return Array.from(document.querySelectorAll(".tabs '
            '[role=tab]")).map(b => [b.dataset.tab, b.textContent, '
            'b.getAttribute("aria-selected")]);')

    def click(self, selector: str) -> None:
        self.driver.find_element('css selector', selector).click()
