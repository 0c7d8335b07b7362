"""The calendar page in a real browser (headless Chromium, selenium)
against a running blazar-ext-all-in-one (the base class and helpers:
calendar_browser)."""

import datetime
import os

import fixtures
from oslo_utils import timeutils
import testtools

try:
    from selenium import webdriver
except ImportError:  # The tests skip, saying why (browser.unavailable).
    webdriver = None

from blazar_ext.tests.functional import browser
from blazar_ext.tests.functional import calendar_browser
from blazar_ext.tests.functional import keystone as ks

CalendarBrowserTestCase = calendar_browser.CalendarBrowserTestCase
FMT = calendar_browser.FMT
SCREENSHOT_DIR = calendar_browser.SCREENSHOT_DIR
_hour = calendar_browser.hour
_minute = calendar_browser.minute


class TestCalendarBars(CalendarBrowserTestCase):

    def setUp(self):
        super().setUp()
        for name in ('node-1', 'node-2', 'node-3'):
            self.add_host(name)
        self.admin_lease = self.lease('admin-lease', 2, 6)
        self.alice_lease = self.lease('alice-lease', 3, 9,
                                      token='alice:proj-a')
        self.bob_lease = self.lease('bob-secret-lease', 10, 20,
                                    token='bob:proj-b', min=2, max=2)

    def expected_bars(self) -> list:
        """(lease id, host id, start, end, name) from the v1 API."""
        leases = {lease['id']: lease for lease in
                  self.call('GET', '/v1/leases').json()['leases']}
        out = []
        for host in self.call('GET', '/v1/os-hosts/allocations').json()[
                'allocations']:
            for reservation in host['reservations']:
                lease = leases[reservation['lease_id']]
                out.append((lease['id'], host['resource_id'],
                            _minute(lease['start_date']),
                            _minute(lease['end_date']), lease['name']))
        return sorted(out)

    def test_bars_match_the_apis_leases(self):
        self.open_page('admin')
        drawn = sorted((b['lease'], b['resource'], b['start'], b['end'],
                        b['name']) for b in self.bars())
        expected = self.expected_bars()
        self.assertEqual(4, len(expected))
        self.assertEqual(expected, drawn)
        self.assertIn('3 hosts', self.text('status'))
        # Pointing at a bar tells its lease.
        browser.hover(self.driver, 'rect.bar[data-lease="%s"]'
                      % self.admin_lease['id'])
        browser.wait_until(self.driver,
                           '!document.getElementById("tooltip").hidden')
        self.assertEqual('admin-lease (PENDING)\nproject admin\n%s → %s UTC'
                         % (self.at(2), self.at(6)), self.driver.find_element(
                             'id', 'tooltip').get_attribute('textContent'))

    def bar_box(self, lease_id: str) -> dict:
        # A zoom or a jump redraws once its window is fetched: wait for it.
        browser.wait_until(
            self.driver, 'document.querySelector('
            '"rect.bar[data-lease=\'" + arguments[0] + "\']") !== null',
            30.0, lease_id)
        return self.driver.execute_script(
            'const b = document.querySelector('
            '"rect.bar[data-lease=\'" + arguments[0] + "\']");'
            'return {x: +b.getAttribute("x"), '
            'width: +b.getAttribute("width")};', lease_id)

    def test_zoom_and_now_line(self):
        self.open_page('admin')
        week = self.bar_box(self.admin_lease['id'])
        browser.settle(self.driver,
                       lambda: self.click('.zoom [data-span="1d"]'))
        # Zooming keeps the middle of the view; Now brings today back.
        browser.settle(self.driver, lambda: self.click('#go-now'))
        day = self.bar_box(self.admin_lease['id'])
        # Four hours: a seventh of the width in a week's view as in a
        # day's.
        self.assertAlmostEqual(7.0, day['width'] / week['width'], delta=0.1)
        now_x = float(self.driver.find_element(
            'id', 'now-line').get_attribute('x1'))
        # Right of the now-line by the time until the lease starts, on
        # the scale of its four hours.
        until = (datetime.datetime.strptime(self.at(2), FMT)
                 - timeutils.utcnow()).total_seconds()
        self.assertAlmostEqual(day['width'] * until / (4 * 3600),
                               day['x'] - now_x, delta=3)
        self.assertEqual('active', self.driver.find_element(
            'css selector', '.zoom [data-span="1d"]').get_attribute('class'))

    def test_grid_lines_crossing_a_bar_keep_its_tooltip(self):
        # Where a day's tick or the now-line crosses a bar, hovering
        # there still shows the bar (which tick crosses which bar depends
        # on the time of day: put one across the bar's middle).
        self.open_page('admin')
        bar = self.driver.find_element(
            'css selector', 'rect.bar[data-lease="%s"]'
            % self.admin_lease['id'])
        for line in ('line.tick', '#now-line'):
            hit = self.driver.execute_script("""
                const bar = arguments[0], line = document.querySelector(
                    arguments[1]);
                const x = +bar.getAttribute('x') +
                    bar.getAttribute('width') / 2;
                line.setAttribute('x1', x); line.setAttribute('x2', x);
                line.setAttribute('y1', 0);
                line.setAttribute('y2', 100000);
                const box = bar.getBoundingClientRect();
                const at = document.elementFromPoint(
                    box.left + box.width / 2, box.top + box.height / 2);
                return at && at.closest('rect.bar') === bar;""", bar, line)
            self.assertTrue(hit, line)
        webdriver.ActionChains(self.driver).move_to_element(bar).perform()
        browser.wait_until(self.driver,
                           '!document.getElementById("tooltip").hidden')

    def test_other_projects_leases_are_only_reserved(self):
        self.open_page('alice:proj-a')
        bars = self.bars()
        mine = [b for b in bars if b['lease']]
        self.assertEqual([('alice-lease', self.alice_lease['id'])],
                         [(b['name'], b['lease']) for b in mine])
        others = sorted((b['name'], b['start'], b['end'])
                        for b in bars if not b['lease'])
        self.assertEqual([('reserved', self.at(2), self.at(6)),
                          ('reserved', self.at(10), self.at(20)),
                          ('reserved', self.at(10), self.at(20))], others)
        browser.hover(self.driver,
                      'rect.bar[data-start="%s"]:not([data-lease="%s"])'
                      % (self.at(10), self.alice_lease['id']))
        browser.wait_until(self.driver,
                           '!document.getElementById("tooltip").hidden')
        tip = self.driver.find_element('id', 'tooltip')
        self.assertEqual('reserved by another project\n%s → %s UTC'
                         % (self.at(10), self.at(20)),
                         tip.get_attribute('textContent'))
        self.assert_no_secrets()
        # Another identity in the token field: its view, and nothing of
        # the previous one once back.
        self.use_token('admin')
        self.assertIn('bob-secret-lease', [b['name'] for b in self.bars()])
        self.use_token('alice:proj-a')
        self.assertEqual(['alice-lease', 'reserved', 'reserved', 'reserved'],
                         sorted(b['name'] for b in self.bars()))
        self.assert_no_secrets()

    def use_token(self, token: str) -> None:
        field = self.driver.find_element('id', 'token')
        field.clear()
        field.send_keys(token)
        browser.settle(self.driver, lambda: self.click('#auth button'))

    def assert_no_secrets(self) -> None:
        source = self.driver.page_source
        for secret in ('admin-lease', 'bob-secret-lease',
                       self.bob_lease['id'], self.admin_lease['id']):
            self.assertNotIn(secret, source)

    def test_out_of_service_host_and_floating_ips_tab(self):
        host = self.call('GET', '/v1/os-hosts').json()['hosts'][2]
        self.call('PUT', '/v1/os-hosts/%s' % host['id'],
                  {'reservable': False, 'reservable_reason': 'disk'})
        for address in ('172.24.4.10', '172.24.4.11'):
            self.call('POST', '/v1/floatingips', {
                'floating_network_id': 'public',
                'floating_ip_address': address}, expected=201)
        fip_lease = self.call('POST', '/v1/leases', {
            'name': 'fip-lease', 'start_date': self.at(1),
            'end_date': self.at(4),
            'reservations': [{'resource_type': 'virtual:floatingip',
                              'network_id': 'public', 'amount': 1}],
            'events': []}, expected=201).json()['lease']
        self.open_page('admin')
        out = self.driver.execute_script(
            'return Array.from(document.querySelectorAll("#labels '
            '.out-label")).map(e => e.textContent);')
        self.assertEqual(['out of servicedisk'], out)
        # The tabs come from the enabled plugins (tabs.json), in order.
        self.assertEqual([['hosts', 'Hosts', 'true'],
                          ['floatingips', 'Floating IPs', 'false']],
                         self.tabs())
        browser.settle(self.driver, lambda: self.click('#tab-floatingips'))
        self.assertEqual('false', self.tabs()[0][2])
        self.assertIn('2 floating IPs', self.text('status'))
        self.assertEqual([('fip-lease', fip_lease['id'])],
                         [(b['name'], b['lease']) for b in self.bars()])
        labels = self.driver.execute_script(
            'return Array.from(document.querySelectorAll('
            '"#labels text[data-resource]"))'
            '.map(e => e.textContent);')
        self.assertEqual(['172.24.4.10', '172.24.4.11'], labels)


class TestFindASlot(CalendarBrowserTestCase):

    def setUp(self):
        super().setUp()
        self.gpu_traited = self.add_host('node-1', gpu='true')
        self.gpu_plain = self.add_host('node-2', gpu='true')
        self.add_host('node-3', gpu='false')
        self.call('PATCH', '/v1/physical:host/properties/gpu',
                  {'private': False}, expected=204)
        self.set_traits('node-1', 'CUSTOM_GPU')
        # node-2 is busy in the next hours: the slot comes after.
        self.lease('busy', 1, 5, resource_properties='["==", "$gpu", '
                   '"true"]', traits='!CUSTOM_GPU')

    def choose(self, property_name: str, value: str) -> None:
        self.driver.find_element(
            'css selector', '.prop[data-property="%s"] select'
            % property_name).send_keys(value)

    def find(self) -> str:
        self.driver.execute_script(
            'document.getElementById("result").textContent = "";')
        self.click('#find')
        browser.wait_until(
            self.driver, 'document.getElementById("slot-list") || '
            'document.getElementById("no-slot") || '
            'document.getElementById("find-error")')
        return self.text('result')

    def set_value(self, element_id: str, value: str) -> None:
        element = self.driver.find_element('id', element_id)
        element.clear()
        element.send_keys(value)

    def test_filter_forbid_a_trait_and_lease_the_slot(self):
        self.open_page('admin')
        browser.wait_until(self.driver, 'document.querySelector('
                           '".prop[data-property=gpu]")')
        self.choose('gpu', 'true')
        self.assertIn('1 host for 4 h can start:', self.find())
        chip = '#trait-chips [data-trait="CUSTOM_GPU"]'
        self.click(chip)
        self.click(chip)
        self.assertEqual('forbidden', self.driver.find_element(
            'css selector', chip).get_attribute('data-mode'))
        self.set_value('duration', '2')
        # One GPU host without the trait: two are never free.
        self.set_value('count', '2')
        self.assertIn('No slot of 2 h for 2 hosts', self.find())
        self.set_value('count', '1')
        result = self.find()
        self.assertIn('1 host for 2 h can start:', result)
        earliest = self.driver.find_element(
            'css selector', '#slot-list li:first-child button'
        ).get_attribute('data-start')
        self.assertEqual(self.at(5), earliest)
        self.screenshot('slot')
        self.set_value('lease-name', 'from-the-calendar')
        browser.settle(self.driver, lambda: self.click('#reserve'))
        browser.wait_until(self.driver, 'document.getElementById('
                           '"lease-message").dataset.lease')
        browser.settle(self.driver)
        created = [lease for lease in
                   self.call('GET', '/v1/leases').json()['leases']
                   if lease['name'] == 'from-the-calendar']
        self.assertEqual(1, len(created))
        lease = created[0]
        self.assertEqual((self.at(5), self.at(7)),
                         (_minute(lease['start_date']),
                          _minute(lease['end_date'])))
        self.assertEqual('!CUSTOM_GPU', lease['reservations'][0]['traits'])
        self.assertEqual([(lease['id'], self.gpu_plain['id'], self.at(5),
                           self.at(7))],
                         [(b['lease'], b['resource'], b['start'], b['end'])
                          for b in self.bars()
                          if b['name'] == 'from-the-calendar'])

    def test_hosts_and_floating_ips_together_book_the_second_option(self):
        self.call('POST', '/v1/floatingips', {
            'floating_network_id': 'public',
            'floating_ip_address': '172.24.4.10'}, expected=201)
        for start, end in ((1, 3), (4.5, 8)):
            self.call('POST', '/v1/leases', {
                'name': 'fip-%s' % start, 'start_date': self.at(start),
                'end_date': self.at(end), 'events': [],
                'reservations': [{'resource_type': 'virtual:floatingip',
                                  'network_id': 'public', 'amount': 1}],
            }, expected=201)
        self.open_page('admin')
        browser.wait_until(self.driver, 'document.querySelector('
                           '"#networks option[value=public]")')
        self.set_value('fip-amount', '1')
        self.set_value('duration', '1')
        self.assertIn('1 host, 1 floating IP for 1 h can start:',
                      self.find())
        starts = self.driver.execute_script(
            'return Array.from(document.querySelectorAll("#slot-list '
            'button")).map(b => b.dataset.start);')
        # The floating IP is free from hour 3 to 4:30, then from hour 8.
        self.assertEqual([self.at(3), self.at(8)], starts)
        self.assertEqual(2, self.driver.execute_script(
            'return document.querySelectorAll("#slots rect.slot:not('
            '#chosen-slot)").length;'))
        self.click('#slot-list li:nth-child(2) button')
        self.set_value('lease-name', 'both')
        browser.settle(self.driver, lambda: self.click('#reserve'))
        browser.wait_until(self.driver, 'document.getElementById('
                           '"lease-message").dataset.lease')
        [lease] = [lease for lease in
                   self.call('GET', '/v1/leases').json()['leases']
                   if lease['name'] == 'both']
        self.assertEqual((self.at(8), self.at(9)),
                         (_minute(lease['start_date']),
                          _minute(lease['end_date'])))
        self.assertEqual(['physical:host', 'virtual:floatingip'],
                         sorted(r['resource_type']
                                for r in lease['reservations']))

    def test_refused_lease_shows_the_apis_message(self):
        self.open_page('alice:proj-a')
        self.set_value('duration', '2')
        self.driver.find_element('id', 'duration-unit').send_keys('days')
        self.assertIn('1 host for 2 d can start:', self.find())
        self.set_value('lease-name', 'too-long')
        self.click('#reserve')
        browser.wait_until(self.driver, 'document.getElementById('
                           '"lease-error").textContent')
        # The same request straight to the API: the page shows its words.
        body = {'name': 'too-long', 'start_date': self.at(30),
                'end_date': self.at(30 + 48), 'events': [],
                'reservations': [{'resource_type': 'physical:host',
                                  'min': 1, 'max': 1,
                                  'hypervisor_properties': '',
                                  'resource_properties': ''}]}
        refused = self.call('POST', '/v1/leases', body,
                            token='alice:proj-a', expected=None)
        self.assertEqual(403, refused.status_code, refused.text)
        self.assertEqual(refused.json()['error_message'],
                         self.text('lease-error'))
        self.assertIn('exceeds the maximum', self.text('lease-error'))
        self.assertEqual([], [b for b in self.bars()
                              if b['name'] == 'too-long'])


class TestCalendarUnderKeystone(testtools.TestCase):
    """Under Keystone the page asks for a token, then sends it as
    X-Auth-Token: a real Keystone (tools/keystone/setup-venv.sh) and an
    all-in-one validating tokens against it."""

    def setUp(self):
        super().setUp()
        reason = (browser.unavailable()
                  or ks.keystone_unavailable())
        if reason:
            self.skipTest(reason)
        self.base = _hour()
        keystone = self.useFixture(ks.Keystone())
        keystone.project('service')
        keystone.user('blazar', 'service', ['admin', 'service'],
                      password=ks.SERVICE_PASSWORD)
        keystone.project('alpha')
        keystone.user('alice', 'alpha', ['member'])
        self.admin = keystone.admin_token
        self.alice = keystone.token('alice', ks.PASSWORD,
                                    'alpha')
        self.service = self.useFixture(ks.BlazarExt(keystone))
        self.driver = browser.start_chrome(
            os.path.join(self.useFixture(fixtures.TempDir()).path,
                         'chrome-profile'))
        self.addCleanup(self.driver.quit)
        self.addCleanup(lambda: self.driver.save_screenshot(os.path.join(
            SCREENSHOT_DIR, '%s-end.png'
            % '.'.join(self.id().split('.')[-2:]))))
        os.makedirs(SCREENSHOT_DIR, exist_ok=True)

    def at(self, hours: float) -> str:
        return (self.base + datetime.timedelta(hours=hours)).strftime(FMT)

    def lease(self, name: str, token: str, start: float, end: float):
        resp = self.service.request('POST', '/v1/leases', token, {
            'name': name, 'start_date': self.at(start),
            'end_date': self.at(end),
            'reservations': [{'resource_type': 'physical:host', 'min': 1,
                              'max': 1, 'hypervisor_properties': '',
                              'resource_properties': ''}], 'events': []})
        self.assertEqual(201, resp.status_code, resp.text)
        return resp.json()['lease']

    def test_asks_for_a_token_then_uses_it(self):
        resp = self.service.request('POST', '/v1/os-hosts', self.admin,
                                    {'name': 'node-1'})
        self.assertEqual(201, resp.status_code, resp.text)
        self.lease('operators-lease', self.admin, 2, 4)
        mine = self.lease('alices-lease', self.alice, 6, 9)
        self.driver.get(self.service.url + '/calendar/')
        browser.wait_until(self.driver, 'document.getElementById("auth")'
                           '.classList.contains("needed")')
        self.assertIn('enter a token', self.driver.find_element(
            'id', 'status').text)
        token = self.driver.find_element('id', 'token')
        token.send_keys(self.alice)
        browser.settle(self.driver, lambda: self.driver.find_element(
            'css selector', '#auth button').click())
        bars = self.driver.execute_script("""
            return Array.from(document.querySelectorAll('#bars rect.bar'))
              .map(b => [b.dataset.name, b.dataset.lease]);""")
        self.assertEqual(sorted([['alices-lease', mine['id']],
                                 ['reserved', '']]), sorted(bars))
        self.assertNotIn('operators-lease', self.driver.page_source)


class TestCalendarSeries(CalendarBrowserTestCase):
    """series.js: a lease series listed once with its occurrences, its
    bars marked as one, and a maintenance window's hold marked."""

    def setUp(self):
        super().setUp()
        self.add_host('node-1')
        node_2 = self.add_host('node-2')
        self.series = self.call('POST', '/v1/leases', {
            'name': 'lab', 'start_date': self.at(2), 'end_date': self.at(4),
            'recurrence': 'FREQ=DAILY;COUNT=3',
            'reservations': [{'resource_type': 'physical:host',
                              'min': 1, 'max': 1,
                              'hypervisor_properties': '',
                              'resource_properties': ''}]},
            expected=201).json()['lease']
        self.other = self.lease('one-off', 6, 8)
        self.window = self.call(
            'POST', '/v1/os-hosts/%s/maintenance' % node_2['id'],
            {'start_date': self.at(30), 'end_date': self.at(34),
             'reason': 'new disks'}, expected=201).json()['maintenance']

    def marked(self, css: str) -> list:
        return self.driver.execute_script(
            'return Array.from(document.querySelectorAll('
            '"#bars rect.bar" + arguments[0])).map(b => [b.dataset.lease, '
            'b.dataset.series || null]);', css)

    def test_series_listed_once_with_its_occurrences(self):
        self.open_page('admin')
        browser.wait_until(self.driver,
                           'document.documentElement.dataset.series === "1"')
        browser.settle(self.driver)
        occurrences = self.call('GET', '/v1/lease-series/%s'
                                % self.series['series_id']).json()[
            'lease_series']['occurrences']
        items = self.driver.execute_script(
            'return Array.from(document.querySelectorAll('
            '"#series-list li.series")).map(li => [li.dataset.series, '
            'li.querySelector(".series-name").textContent, '
            'Array.from(li.querySelectorAll(".occurrences li"))'
            '.map(o => o.dataset.lease)]);')
        self.assertEqual([[self.series['series_id'], 'lab',
                           [o['lease_id'] for o in occurrences]]], items)
        self.assertIn('FREQ=DAILY;COUNT=3', self.text('series-panel'))
        # Three bars, one series; the one-off lease is not in it.
        self.assertEqual(sorted([o['lease_id'], self.series['series_id']]
                                for o in occurrences),
                         sorted(self.marked('.in-series')))
        self.assertEqual([], self.marked('.series-chosen'))
        self.click('#series-list .series-name')
        browser.wait_until(self.driver, 'document.querySelectorAll('
                           '"#bars rect.series-chosen").length === 3')
        browser.hover(self.driver, 'rect.bar[data-lease="%s"]'
                      % occurrences[1]['lease_id'])
        browser.wait_until(self.driver,
                           '!document.getElementById("tooltip").hidden')
        self.assertIn('series lab: occurrence 2 of 3 (FREQ=DAILY;COUNT=3, '
                      'UTC)', self.driver.find_element(
                          'id', 'tooltip').get_attribute('textContent'))
        # Scrolling redraws the bars: they stay marked.
        browser.settle(self.driver, lambda: self.driver.execute_script(
            'document.getElementById("scroller").scrollLeft += 40;'))
        self.assertEqual(3, len(self.marked('.series-chosen')))

    def test_maintenance_hold_is_marked(self):
        self.open_page('admin')
        browser.wait_until(self.driver,
                           'document.documentElement.dataset.series === "1"')
        browser.settle(self.driver)
        self.assertEqual([[self.window['lease_id'], None]],
                         self.marked('.maintenance'))
        browser.hover(self.driver, 'rect.bar.maintenance')
        browser.wait_until(self.driver,
                           '!document.getElementById("tooltip").hidden')
        self.assertIn('maintenance scheduled: new disks',
                      self.driver.find_element(
                          'id', 'tooltip').get_attribute('textContent'))

    def test_a_user_without_series(self):
        self.open_page('alice:proj-a')
        browser.wait_until(self.driver,
                           'document.documentElement.dataset.series === "0"')
        self.assertIn('No lease series.', self.text('series-panel'))
        self.assertEqual([], self.marked('.maintenance'))
