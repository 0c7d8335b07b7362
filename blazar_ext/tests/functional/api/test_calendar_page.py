"""/calendar/: the page's static files, served by the API app itself."""

import os

from blazar_ext.api import calendar
from blazar_ext.tests import base


class TestCalendarPage(base.APITestCase):

    def get(self, path: str, method: str = 'GET'):
        # No token: the files hold no data and need no authentication.
        return self.request(method, path, token=None)

    def test_page_and_its_files(self):
        resp = self.get('/calendar/')
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual('text/html; charset=UTF-8',
                         resp.headers['Content-Type'])
        self.assertIn('<script src="calendar.js" defer></script>', resp.text)
        # The finder across resource types, after calendar.js.
        self.assertIn('<script src="slots.js" defer></script>', resp.text)
        self.assertLess(resp.text.index('calendar.js'),
                        resp.text.index('slots.js'))
        for name, content_type in (('calendar.js', 'text/javascript'),
                                   ('slots.js', 'text/javascript'),
                                   ('calendar.css', 'text/css'),
                                   ('favicon.svg', 'image/svg+xml')):
            resp = self.get('/calendar/' + name)
            self.assertEqual(200, resp.status, name)
            self.assertTrue(resp.headers['Content-Type'].startswith(
                content_type), resp.headers['Content-Type'])
            with open(os.path.join(calendar.STATIC_DIR, name), 'rb') as f:
                self.assertEqual(f.read(), resp.body)

    def test_no_script_but_its_own(self):
        resp = self.get('/calendar/')
        self.assertIn("default-src 'self'",
                      resp.headers['Content-Security-Policy'])
        self.assertEqual('nosniff', resp.headers['X-Content-Type-Options'])

    def test_without_slash_redirects(self):
        resp = self.get('/calendar')
        self.assertEqual(301, resp.status)
        self.assertTrue(resp.headers['Location'].endswith('/calendar/'))

    def test_only_its_files(self):
        for path in ('/calendar/nope.js', '/calendar/../setup.py',
                     '/calendar/%2e%2e/__init__.py', '/calendar/__init__.py',
                     '/calendar/static/index.html'):
            self.assertEqual(404, self.get(path).status, path)
        self.assertEqual(405, self.get('/calendar/', 'POST').status)

    def test_series_script_and_its_style(self):
        resp = self.get('/calendar/')
        self.assertIn('<script src="series.js" defer></script>', resp.text)
        # After calendar.js: its tooltip is written before series.js adds
        # to it.
        self.assertLess(resp.text.index('calendar.js'),
                        resp.text.index('series.js'))
        for name, content_type in (('series.js', 'text/javascript'),
                                   ('series.css', 'text/css')):
            resp = self.get('/calendar/' + name)
            self.assertEqual(200, resp.status, name)
            self.assertTrue(resp.headers['Content-Type'].startswith(
                content_type), resp.headers['Content-Type'])

    def test_errors_in_the_reservation_api_shape(self):
        resp = self.get('/calendar/nope.js')
        self.assertEqual({'error_code': 404, 'error_name': 404,
                          'error_message': 'No such file in the calendar.'},
                         resp.json())
        resp = self.get('/calendar/', 'POST')
        self.assertEqual(405, resp.json()['error_code'])
        self.assertEqual('GET, HEAD', resp.headers['Allow'])


class TestCalendarTabs(base.APITestCase):
    """tabs.json: the calendar's tabs, from the enabled resource plugins'
    calendar_tab (api/calendar)."""

    def tabs(self) -> list:
        resp = self.request('GET', '/calendar/tabs.json', token=None)
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual('application/json', resp.headers['Content-Type'])
        return resp.json()['tabs']

    def test_one_tab_per_enabled_type_in_plugin_order(self):
        # virtual:instance and flavor:instance have no calendar.
        self.assertEqual(
            [{'key': 'hosts', 'label': 'Hosts', 'column': 'Host',
              'noun': 'hosts', 'path': '/v1/os-hosts/calendar',
              'resource_type': 'physical:host'},
             {'key': 'floatingips', 'label': 'Floating IPs',
              'column': 'Floating IP', 'noun': 'floating IPs',
              'path': '/v1/floatingips/calendar',
              'resource_type': 'virtual:floatingip'}], self.tabs())
        self.conf.set_override('plugins', ['virtual.floatingip.plugin',
                                           'physical.host.plugin'],
                               group='manager')
        self.assertEqual(['floatingips', 'hosts'],
                         [tab['key'] for tab in self.tabs()])
        self.conf.set_override('plugins', ['virtual.instance.plugin'],
                               group='manager')
        self.assertEqual([], self.tabs())

    def test_each_tab_path_answers_the_calendar_shape(self):
        for tab in self.tabs():
            resp = self.request('GET', tab['path'] + '?start=2030-01-01+'
                                '00:00&end=2030-01-02+00:00')
            self.assertEqual(200, resp.status, (tab, resp.text))
            self.assertIn('resources', resp.json()['calendar'])

    def test_the_page_has_no_tab_of_its_own(self):
        # Every tab comes from tabs.json.
        page = self.request('GET', '/calendar/', token=None).text
        self.assertIn('id="tabs"', page)
        self.assertNotIn('data-tab=', page)
