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
        for name, content_type in (('calendar.js', 'text/javascript'),
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

    def test_errors_in_the_reservation_api_shape(self):
        resp = self.get('/calendar/nope.js')
        self.assertEqual({'error_code': 404, 'error_name': 404,
                          'error_message': 'No such file in the calendar.'},
                         resp.json())
        resp = self.get('/calendar/', 'POST')
        self.assertEqual(405, resp.json()['error_code'])
        self.assertEqual('GET, HEAD', resp.headers['Allow'])
