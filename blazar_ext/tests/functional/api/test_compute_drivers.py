"""The nova compute driver against a small real HTTP server that answers
as Nova does and records the calls."""

import http.server
import json
import threading

import fixtures
import sqlalchemy as sa

from blazar_ext.drivers import compute
from blazar_ext import exceptions
from blazar_ext.plugins import loader
from blazar_ext.tests import base


class _Handler(http.server.BaseHTTPRequestHandler):

    def log_message(self, *args):  # quiet test output
        pass

    def _answer(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.server.calls.append((self.command, self.path, body))
        status, answer = self.server.answer(self.command, self.path, body)
        data = json.dumps(answer).encode() if answer is not None else b''
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _answer


class FakeNova(fixtures.Fixture):
    """Flavors and server groups, kept in memory."""

    def _setUp(self):
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      _Handler)
        self.server.calls = self.calls = []
        self.server.answer = self.answer
        self.groups = {}
        # Ids of flavors made before (by upstream Blazar): a 409 on POST.
        self.existing = set()
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_port
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    FLAVORS = {'big': ({'id': 'big', 'vcpus': 6, 'ram': 2048,
                        'disk': 5}, {'resources:VCPU': '3'})}

    def answer(self, method, path, body):
        parts = path.strip('/').split('/')
        if method == 'GET' and parts[0] == 'flavors' and len(parts) > 1:
            flavor = self.FLAVORS.get(parts[1])
            if flavor is None:
                return 404, {'itemNotFound': {'code': 404}}
            if parts[-1] == 'os-extra_specs':
                return 200, {'extra_specs': flavor[1]}
            return 200, {'flavor': flavor[0]}
        if (method == 'POST' and path == '/flavors'
                and body['flavor']['id'] in self.existing):
            return 409, {'conflictingRequest': {
                'code': 409, 'message': 'Flavor with ID %s already exists.'
                % body['flavor']['id']}}
        if method == 'POST' and path == '/os-server-groups':
            group = dict(body['server_group'], id='sg-%d' % len(self.groups))
            self.groups[group['id']] = group
            return 200, {'server_group': group}
        if method == 'GET' and path.startswith('/os-server-groups'):
            return 200, {'server_groups': list(self.groups.values())}
        if method == 'DELETE' and path.startswith('/os-server-groups/'):
            self.groups.pop(path.rsplit('/', 1)[1], None)
            return 204, None
        if method == 'POST':
            return 200, body
        return 202, None


class TestNovaDriver(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.nova = self.useFixture(FakeNova())
        self.conf.set_override('compute_driver', 'nova', group='manager')
        self.conf.set_override('auth_type', 'none', group='nova')
        self.conf.set_override('endpoint_override', self.nova.endpoint,
                               group='nova')
        # The plugins (and the compute driver with its Nova adapter) are
        # loaded once per process: this test's Nova is on a new port.
        loader._load.cache_clear()
        self.addCleanup(loader._load.cache_clear)

    def test_flavor_and_server_group_for_the_lease(self):
        self.add_host('h1', vcpus=8, memory_mb=16384, local_gb=100)
        lease = self.create(reservations=[{
            'resource_type': 'virtual:instance', 'amount': 2, 'vcpus': 2,
            'memory_mb': 2048, 'disk_gb': 10, 'affinity': True}])
        [reservation] = lease['reservations']
        rid = reservation['id']
        self.assertEqual([], self.nova.calls)
        self.run_events(minutes=61)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        calls = [(m, p) for m, p, _b in self.nova.calls]
        self.assertEqual([('POST', '/flavors'),
                          ('POST', '/flavors/%s/os-extra_specs' % rid),
                          ('POST', '/flavors/%s/action' % rid),
                          ('POST', '/os-server-groups')], calls)
        flavor = self.nova.calls[0][2]['flavor']
        self.assertEqual(
            {'id': rid, 'name': 'reservation:%s' % rid, 'vcpus': 2,
             'ram': 2048, 'disk': 10, 'os-flavor-access:is_public': False},
            flavor)
        self.assertEqual(reservation['flavor']['extra_specs'],
                         self.nova.calls[1][2]['extra_specs'])
        self.assertEqual({'addTenantAccess': {'tenant': 'admin'}},
                         self.nova.calls[2][2])
        self.assertEqual(['affinity'],
                         self.nova.calls[3][2]['server_group']['policies'])

        del self.nova.calls[:]
        self.run_events(minutes=121)
        calls = [(m, p) for m, p, _b in self.nova.calls]
        self.assertEqual(('DELETE', '/flavors/%s' % rid), calls[0])
        self.assertIn(('DELETE', '/os-server-groups/sg-0'), calls)
        self.assertEqual({}, self.nova.groups)

    def test_a_reservation_imported_from_upstream_blazar_starts(self):
        # Upstream Blazar made the flavor and server group when the
        # reservation was made; import-blazar keeps the group's id.
        self.add_host('h1', vcpus=8, memory_mb=16384, local_gb=100)
        lease = self.create(reservations=[{
            'resource_type': 'virtual:instance', 'amount': 2, 'vcpus': 2,
            'memory_mb': 2048, 'disk_gb': 10, 'affinity': True}])
        rid = lease['reservations'][0]['id']
        self.nova.existing.add(rid)
        with self.db.engine.begin() as conn:
            conn.execute(sa.text(
                "UPDATE instance_reservations SET flavor_id = :r, "
                "server_group_id = 'sg-upstream' WHERE reservation_id = :r"),
                {'r': rid})
        self.run_events(minutes=61)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        self.assertEqual([('POST', '/flavors'),
                          ('POST', '/flavors/%s/os-extra_specs' % rid),
                          ('POST', '/flavors/%s/action' % rid)],
                         [(m, p) for m, p, _b in self.nova.calls])
        self.assertEqual({}, self.nova.groups)

    def test_nova_flavor_source(self):
        self.conf.set_override('flavor_source', 'nova', group='manager')
        self.add_host('h1', vcpus=8, memory_mb=16384, local_gb=100)
        lease = self.create(reservations=[{
            'resource_type': 'flavor:instance', 'flavor_id': 'big',
            'amount': 2}])
        [reservation] = lease['reservations']
        # resources:VCPU=3 overrides the flavor's 6.
        self.assertEqual((3, 2048, 5), (reservation['vcpus'],
                                        reservation['memory_mb'],
                                        reservation['disk_gb']))
        self.assertIn(('GET', '/flavors/big/os-extra_specs', None),
                      self.nova.calls)
        resp = self.request('POST', '/v1/leases', {
            'name': 'x', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120), 'reservations': [{
                'resource_type': 'flavor:instance', 'flavor_id': 'nope'}]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn("flavor 'nope' is not known", resp.text)

    def test_unknown_driver_is_a_configuration_error(self):
        exc = self.assertRaises(exceptions.ConfigurationError,
                                compute.load, 'no-such-driver')
        self.assertIn('no-such-driver', str(exc))
        self.assertIsInstance(compute.load('none'), compute.NoCompute)
