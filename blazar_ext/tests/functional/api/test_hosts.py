"""/v1/os-hosts through the whole service (API, RPC, manager, SQLite)."""

import fixtures as fixtures_lib

from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends


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
        for body, reason in (
                ({}, "'name' is a required property"),
                ({'name': ''}, "'name': '' should be non-empty"),
                ({'name': 'h', 'vcpus': -1},
                 "'vcpus': -1 is less than the minimum of 0"),
                ({'name': 'h', 'vcpus': 'many'},
                 "'vcpus': 'many' does not match '^[0-9]{1,10}$'"),
                ({'name': 'h', 'vcpus': 99999999999},
                 "'vcpus': 99999999999 is greater than the maximum of "
                 "2147483647"),
                ({'name': 'h', 'memory_mb': '9999999999'},
                 "'memory_mb': 9999999999 is greater than the maximum of "
                 "2147483647"),
                ({'name': 'h', 'nested': {'a': 1}},
                 "'nested': {'a': 1} is not of type 'string', 'number', "
                 "'boolean'"),
                ([], "[] is not of type 'object'")):
            resp = self.request('POST', '/v1/os-hosts', body)
            self.assertEqual(400, resp.status, body)
            self.assertEqual('Invalid input: ' + reason,
                             resp.json()['error_message'])
        resp = self.request('POST', '/v1/os-hosts', raw=b'{not json')
        self.assertEqual(400, resp.status)
        self.assertIn('not valid JSON', resp.json()['error_message'])
        # A host is a Placement provider of the same name too: up to 200
        # characters (a longer one was a 500 on MariaDB).
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h' * 201})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('is too long', resp.json()['error_message'])
        resp = self.request('POST', '/v1/os-hosts', {'name': 'h' * 200})
        self.assertEqual(201, resp.status, resp.text)

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


class TestHostList(base.APITestCase):
    """GET /v1/os-hosts: streamed, with limit/marker and fields."""

    def setUp(self):
        super().setUp()
        self.hosts = []
        for number in range(5):
            resp = self.request('POST', '/v1/os-hosts', {
                'name': 'host-%d' % number, 'vcpus': number,
                'rack': 'r%d' % (number % 2), 'gpu': number % 2 == 0})
            self.assertEqual(201, resp.status, resp.text)
            self.hosts.append(resp.json()['host'])
        # A capability value can be removed; the listing follows.
        resp = self.request('PUT', '/v1/os-hosts/%s' % self.hosts[1]['id'],
                            {'gpu': None})
        self.assertEqual(200, resp.status, resp.text)
        # As stored (MySQL keeps whole seconds of the timestamps).
        self.hosts = [self.request('GET', '/v1/os-hosts/%s' % host['id'])
                      .json()['host'] for host in self.hosts]
        # Listed by id (UUIDs, so not in creation order).
        self.hosts.sort(key=lambda host: host['id'])

    def list(self, query='', status=200):
        resp = self.request('GET', '/v1/os-hosts' + query)
        self.assertEqual(status, resp.status, resp.text)
        return resp.json()

    def test_every_host_as_shown_one_by_one(self):
        listed = self.list()
        self.assertEqual(['hosts'], list(listed))
        self.assertEqual(self.hosts, listed['hosts'])
        [host_1] = [h for h in listed['hosts']
                    if h['hypervisor_hostname'] == 'host-1']
        self.assertNotIn('gpu', host_1)

    def test_pages_of_one_make_the_whole_list(self):
        # Pages smaller than the limit: every page boundary is crossed.
        self.useFixture(fixtures_lib.MockPatch(
            'blazar_ext.db.api.host.PAGE_SIZE', 2))
        self.assertEqual(self.hosts, self.list()['hosts'])
        self.assertEqual(self.hosts[:3], self.list('?limit=3')['hosts'])

    def test_limit_and_marker(self):
        first = self.list('?limit=2')
        self.assertEqual(self.hosts[:2], first['hosts'])
        link = first['hosts_links'][0]
        self.assertEqual('next', link['rel'])
        self.assertIn('marker=%s' % self.hosts[1]['id'], link['href'])
        self.assertIn('limit=2', link['href'])
        second = self.list('?limit=2&marker=%s' % self.hosts[1]['id'])
        self.assertEqual(self.hosts[2:4], second['hosts'])
        last = self.list('?limit=2&marker=%s' % self.hosts[3]['id'])
        self.assertEqual(self.hosts[4:], last['hosts'])
        self.assertNotIn('hosts_links', last)
        self.assertEqual([], self.list(
            '?marker=%s' % self.hosts[4]['id'])['hosts'])
        self.assertEqual(self.hosts[3:], self.list(
            '?marker=%s' % self.hosts[2]['id'])['hosts'])

    def test_fields(self):
        listed = self.list('?fields=id,hypervisor_hostname')['hosts']
        self.assertEqual(
            [{'id': h['id'], 'hypervisor_hostname': h['hypervisor_hostname']}
             for h in self.hosts], listed)
        listed = self.list('?fields=id,gpu&limit=3')['hosts']
        self.assertEqual([dict({'id': h['id']},
                               **({'gpu': h['gpu']} if 'gpu' in h else {}))
                          for h in self.hosts[:3]], listed)
        self.assertIn('gpu', str(self.hosts))

    def test_fields_of_capabilities_alone_and_a_host_without_any(self):
        # The database writes each host's JSON: an object of capabilities
        # only, an empty one, and a host with no capability at all.
        self.assertEqual([{'gpu': h['gpu']} if 'gpu' in h else {}
                          for h in self.hosts],
                         self.list('?fields=gpu')['hosts'])
        resp = self.request('POST', '/v1/os-hosts', {'name': 'bare'})
        self.assertEqual(201, resp.status, resp.text)
        bare = self.request('GET', '/v1/os-hosts/%s' %
                            resp.json()['host']['id']).json()['host']
        self.assertIn(bare, self.list()['hosts'])
        self.assertIn({'id': bare['id']},
                      self.list('?fields=id,gpu')['hosts'])

    def test_bad_query_is_400(self):
        limit = "does not match '^[1-9][0-9]{0,8}$'"
        for query, reason in (
                ('?limit=0', "'limit': '0' " + limit),
                ('?limit=-1', "'limit': '-1' " + limit),
                ('?limit=x', "'limit': 'x' " + limit),
                ('?limit=1&limit=2',
                 "'limit': ['1', '2'] is not of type 'string'"),
                ('?marker=', "'marker': '' should be non-empty"),
                ('?fields=', "'fields': '' should be non-empty"),
                ('?fields=a,,b',
                 "'fields': 'a,,b' does not match '^[^,]+(,[^,]+)*$'"),
                ('?marker=no-such-host', 'marker no-such-host: no such host'),
                ('?marker=999999', 'marker 999999: no such host')):
            body = self.list(query, status=400)
            self.assertEqual('Invalid input: ' + reason,
                             body['error_message'], query)
        # Other parameters are ignored, as upstream ignores them.
        self.assertEqual(self.hosts, self.list('?sort=id')['hosts'])


class TestHostListMySQL(backends.OnBackend, TestHostList):
    BACKEND = 'mysql'


class TestHostListPostgreSQL(backends.OnBackend, TestHostList):
    BACKEND = 'postgresql'
