"""/v1/os-hosts through the whole service (API, RPC, manager, SQLite)."""

from blazar_ext.tests import base
from blazar_ext.tests import fixtures


class TestHosts(base.APITestCase):

    def _create(self, **values):
        values.setdefault('name', 'host-1')
        resp = self.request('POST', '/v1/os-hosts', values)
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['host']

    def test_create_show_list(self):
        host = self._create(vcpus=8, memory_mb=16384, gpu=True,
                            cpu_model='Haswell')
        self.assertEqual('host-1', host['hypervisor_hostname'])
        self.assertEqual(8, host['vcpus'])
        self.assertEqual('true', host['gpu'])
        self.assertEqual('Haswell', host['cpu_model'])
        shown = self.request('GET', '/v1/os-hosts/%s' % host['id']).json()
        self.assertEqual(host, shown['host'])
        listed = self.request('GET', '/v1/os-hosts').json()['hosts']
        self.assertEqual([host], listed)

    def test_update_sets_and_removes_capabilities(self):
        host = self._create(gpu='true', rack='r1')
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'gpu': None, 'rack': 'r2', 'nic': 25})
        self.assertEqual(200, resp.status, resp.text)
        updated = resp.json()['host']
        self.assertNotIn('gpu', updated)
        self.assertEqual('r2', updated['rack'])
        self.assertEqual('25', updated['nic'])

    def test_delete(self):
        host = self._create()
        resp = self.request('DELETE', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(204, resp.status)
        self.assertEqual(b'', resp.body)
        resp = self.request('GET', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(404, resp.status)

    def test_duplicate_name_is_409(self):
        self._create()
        resp = self.request('POST', '/v1/os-hosts', {'name': 'host-1'})
        self.assertEqual(409, resp.status)
        self.assertIn('host-1', resp.json()['error_message'])

    def test_bad_input_is_400_with_message(self):
        for body in ({}, {'name': ''}, {'name': 'h', 'vcpus': -1},
                     {'name': 'h', 'vcpus': 'many'},
                     {'name': 'h', 'vcpus': 99999999999},
                     {'name': 'h', 'memory_mb': '9999999999'},
                     {'name': 'h', 'nested': {'a': 1}}, []):
            resp = self.request('POST', '/v1/os-hosts', body)
            self.assertEqual(400, resp.status, body)
            self.assertTrue(resp.json()['error_message'])
        resp = self.request('POST', '/v1/os-hosts', raw=b'{not json')
        self.assertEqual(400, resp.status)
        self.assertIn('not valid JSON', resp.json()['error_message'])

    def test_update_rejects_host_columns(self):
        host = self._create()
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'vcpus': 3})
        self.assertEqual(400, resp.status)

    def test_unknown_host_is_404(self):
        for method in ('GET', 'DELETE'):
            resp = self.request(method, '/v1/os-hosts/42')
            self.assertEqual(404, resp.status)
            self.assertIn('42', resp.json()['error_message'])
        resp = self.request('PUT', '/v1/os-hosts/nope', {'a': 'b'})
        self.assertEqual(404, resp.status)

    def test_non_admin_is_403(self):
        resp = self.request('GET', '/v1/os-hosts', token=None,
                            headers=fixtures.user_headers())
        self.assertEqual(403, resp.status)
        self.assertIn('blazar:oshosts:get', resp.json()['error_message'])

    def test_routing_errors_are_json(self):
        resp = self.request('GET', '/v1/no-such-thing')
        self.assertEqual(404, resp.status)
        self.assertEqual(404, resp.json()['error_code'])
        resp = self.request('PATCH', '/v1/os-hosts/1', {})
        self.assertEqual(405, resp.status)
        self.assertEqual(405, resp.json()['error_code'])

    def test_odd_accept_and_content_type_are_not_500(self):
        resp = self.request('GET', '/v1/os-hosts',
                            headers={'Accept': 'text/plain'})
        self.assertEqual(200, resp.status)
        resp = self.request('POST', '/v1/os-hosts', raw=b'name=x',
                            headers={'Content-Type': 'text/plain'})
        self.assertEqual(400, resp.status)

    def test_versions_document(self):
        resp = self.request('GET', '/', token=None)
        self.assertEqual(300, resp.status)
        self.assertEqual('v1.0', resp.json()['versions'][0]['id'])
