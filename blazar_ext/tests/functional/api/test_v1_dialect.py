"""Where blazar_ext's v1 answers as upstream Blazar 18 does: error names,
unknown paths, the version document, validation messages."""

from blazar_ext.api.v1 import errors
from blazar_ext.tests.functional.api import test_leases


class TestErrorShape(test_leases.LeaseTestCase):

    def test_domain_errors_name_their_status(self):
        resp = self.request('GET', '/v1/leases/nope')
        self.assertEqual(404, resp.status)
        self.assertEqual({'error_code': 404, 'error_name': 404,
                          'error_message': 'Lease nope could not be found.'},
                         resp.json())
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h1', 'x': []})
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual(400, resp.json()['error_name'])
        resp = self.request('DELETE', '/v1/leases')
        self.assertEqual(405, resp.status, resp.text)
        self.assertEqual(405, resp.json()['error_name'])

    def test_unknown_paths_answer_as_upstream(self):
        for path in ('/v1/nothing', '/v1/leases/x/y', '/v1/leases//',
                     '/nothing'):
            resp = self.request('GET', path)
            self.assertEqual(404, resp.status, path)
            body = resp.json()
            self.assertEqual(404, body['error'], path)
            self.assertEqual(errors.UNKNOWN_PATH, body['error_message'])
            self.assertEqual((404, 404), (body['error_code'],
                                          body['error_name']))


class TestVersionDocument(test_leases.LeaseTestCase):

    def test_min_and_max_version(self):
        resp = self.request('GET', '/', token=None)
        self.assertEqual(300, resp.status)
        [version] = resp.json()['versions']
        self.assertEqual(('v1.0', '1.0', '1.0'),
                         (version['id'], version['min_version'],
                          version['max_version']))
        self.assertEqual('http://localhost/v1', version['links'][0]['href'])
        for path in ('/v1', '/v1/'):
            resp = self.request('GET', path, token=None)
            self.assertEqual(200, resp.status, path)
            self.assertEqual(version, resp.json())
