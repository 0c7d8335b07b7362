"""physical:device's tab of the calendar page in a real browser (headless
Chromium) against an all-in-one with the device plugin enabled."""

from blazar_ext.tests.functional import browser
from blazar_ext.tests.functional import calendar_browser as calendar

PLUGINS = 'physical.host.plugin,virtual.floatingip.plugin,' \
          'physical.device.plugin'


class TestDeviceTab(calendar.CalendarBrowserTestCase):

    MANAGER_OPTIONS = 'plugins = %s\n' % PLUGINS

    def add_device(self, name: str, **values) -> dict:
        return self.call('POST', '/v1/devices', dict(
            values, name=name, device_type='jetson'),
            expected=201).json()['device']

    def test_device_allocations_drawn_on_their_tab(self):
        self.add_host('node-1')
        edge_1 = self.add_device('edge-1')
        edge_2 = self.add_device('edge-2')
        self.call('PUT', '/v1/devices/%s' % edge_2['id'],
                  {'reservable': False, 'reservable_reason': 'fan'})
        lease = self.call('POST', '/v1/leases', {
            'name': 'edge-lease', 'start_date': self.at(1),
            'end_date': self.at(5),
            'reservations': [{'resource_type': 'physical:device',
                              'min': 1, 'max': 1}],
            'events': []}, expected=201).json()['lease']
        self.open_page('admin')
        self.assertEqual([['hosts', 'Hosts', 'true'],
                          ['floatingips', 'Floating IPs', 'false'],
                          ['devices', 'Devices', 'false']], self.tabs())
        browser.settle(self.driver, lambda: self.click('#tab-devices'))
        self.assertEqual('true', self.tabs()[2][2])
        # The bars are /v1/devices/allocations' reservations.
        held = [(r['lease_id'], a['resource_id']) for a in self.call(
            'GET', '/v1/devices/allocations').json()['allocations']
            for r in a['reservations']]
        self.assertEqual([(lease['id'], edge_1['id'])], held)
        self.assertEqual(
            [(lease['id'], edge_1['id'], self.at(1), self.at(5),
              'edge-lease')],
            [(b['lease'], b['resource'], b['start'], b['end'], b['name'])
             for b in self.bars()])
        labels = self.driver.execute_script(
            'return Array.from(document.querySelectorAll('
            '"#labels text[data-resource]")).map(e => e.textContent);')
        self.assertEqual(['edge-1', 'edge-2'], labels)
        self.assertIn('Device (2)', self.text('labels'))
        self.assertIn('2 devices (1 out of service)', self.text('status'))
        # The slot finder is the hosts' only.
        self.assertFalse(self.driver.find_element(
            'id', 'finder').is_displayed())
