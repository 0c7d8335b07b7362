"""python-blazarclient's lease commands against a real HTTP server.

The API runs in this process under cheroot on an ephemeral port with the
manager in process over fake://; the ``openstack`` CLI runs as a subprocess
in token-endpoint mode (noauth: the token "admin" is an admin).
"""

import datetime
import json

from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext import context
from blazar_ext.db.api import host as host_api
from blazar_ext.tests import base
from blazar_ext.tests.functional import cli


class TestBlazarClientLeases(cli.ReservationCommands, base.APITestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('event_interval', 3600, group='manager')
        self.start_server()

    def test_lease_create_show_list_update_delete(self):
        for i in range(2):
            self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
                'name': 'h%d' % i, 'memory_mb': 8192,
                'gpu': 'true'}).status)
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        end = start + datetime.timedelta(hours=2)
        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=physical:host,min=1,max=2,'
            'resource_properties=["==", "$gpu", "true"]',
            '--start-date', start.strftime(cli.FMT),
            '--end-date', end.strftime(cli.FMT), '-f', 'json', 'my-lease')
        # "Created a new lease:" precedes the JSON document.
        lease = json.loads(proc.stdout[proc.stdout.index('{'):])
        self.assertEqual('my-lease', lease['name'])
        self.assertEqual('PENDING', lease['status'])
        lease_id = lease['id']

        shown = json.loads(self.openstack('lease', 'show', lease_id, '-f',
                                          'json').stdout)
        self.assertEqual(lease_id, shown['id'])
        listed = json.loads(self.openstack('lease', 'list', '-f',
                                           'json').stdout)
        self.assertEqual([lease_id], [x['id'] for x in listed])

        self.openstack('lease', 'set', '--name', 'renamed',
                       '--prolong-for', '1h', lease_id)
        updated = self.request('GET', '/v1/leases/%s' % lease_id).json()[
            'lease']
        self.assertEqual('renamed', updated['name'])
        self.assertEqual((end + datetime.timedelta(hours=1)).strftime(
            '%Y-%m-%dT%H:%M'), updated['end_date'][:16])

        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=physical:host,min=3,max=3',
            '--start-date', start.strftime(cli.FMT),
            '--end-date', end.strftime(cli.FMT), 'too-big', ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('at least 3 host', proc.stderr)

        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=physical:host,min=1,max=1',
            '--start-date', '2001-01-01 00:00',
            '--end-date', '2001-01-02 00:00', 'past', ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('start_date', proc.stderr)

        self.openstack('lease', 'delete', lease_id)
        self.assertEqual(404, self.request(
            'GET', '/v1/leases/%s' % lease_id).status)

    def test_instance_lease_create_show_update_delete(self):
        for i in range(3):
            self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
                'name': 'c%d' % i, 'vcpus': 4, 'memory_mb': 8192,
                'local_gb': 100}).status)
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        end = start + datetime.timedelta(hours=2)
        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=virtual:instance,vcpus=2,memory_mb=4096,'
            'disk_gb=20,amount=3,affinity=False',
            '--start-date', start.strftime(cli.FMT),
            '--end-date', end.strftime(cli.FMT), '-f', 'json', 'vm-lease')
        lease = json.loads(proc.stdout[proc.stdout.index('{'):])
        lease_id = lease['id']
        shown = self.request('GET', '/v1/leases/%s' % lease_id).json()[
            'lease']
        [reservation] = shown['reservations']
        self.assertEqual((3, 2, 4096, 20, False), tuple(
            reservation[k] for k in ('amount', 'vcpus', 'memory_mb',
                                     'disk_gb', 'affinity')))
        self.openstack('lease', 'show', lease_id, '-f', 'json')

        self.openstack('lease', 'set', '--reservation',
                       'id=%s,amount=4,affinity=None' % reservation['id'],
                       lease_id)
        updated = self.request('GET', '/v1/leases/%s' % lease_id).json()[
            'lease']['reservations'][0]
        self.assertEqual((4, None), (updated['amount'],
                                     updated['affinity']))
        # 12 VCPU in all, 8 held: the client shows the 409's reason.
        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=virtual:instance,vcpus=4,memory_mb=1024,'
            'disk_gb=1,amount=2',
            '--start-date', start.strftime(cli.FMT),
            '--end-date', end.strftime(cli.FMT), 'too-big', ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('VCPU (8 needed, 4 free)', proc.stderr)

        self.openstack('lease', 'delete', lease_id)
        self.assertEqual(404, self.request(
            'GET', '/v1/leases/%s' % lease_id).status)

    def test_host_create_with_sizes_as_extras(self):
        # The client sends every --extra as a string; sizes still land in
        # the host's columns and its resource provider's inventory.
        self.openstack('host', 'create', '--extra', 'vcpus=16', '--extra',
                       'memory_mb=65536', '--extra', 'local_gb=500',
                       '--extra', 'gpu=true', 'node-1')
        host = json.loads(self.openstack('host', 'show', 'node-1', '-f',
                                         'json').stdout)
        self.assertEqual((16, 65536, 500),
                         (host['vcpus'], host['memory_mb'],
                          host['local_gb']))
        placement = {'OpenStack-API-Version': 'placement 1.39'}
        [provider] = self.request(
            'GET', '/placement/resource_providers?name=node-1',
            headers=placement).json()['resource_providers']
        inventories = self.request(
            'GET', '/placement/resource_providers/%s/inventories'
            % provider['uuid'], headers=placement).json()['inventories']
        self.assertEqual(16, inventories['VCPU']['total'])
        # Sizes come from the registration: host set refuses them in one
        # plain sentence, not JSON-schema text.
        proc = self.openstack('host', 'set', '--extra', 'vcpus=12', 'node-1',
                              ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('vcpus cannot be changed on a registered host',
                      proc.stderr)
        self.assertNotIn('should not be valid', proc.stderr)
        proc = self.openstack('host', 'create', '--extra', 'vcpus=many',
                              'node-2', ok=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('vcpus', proc.stderr)

    def test_host_commands_by_id_and_by_name(self):
        created = self.request('POST', '/v1/os-hosts', {
            'name': 'new-node', 'gpu': 'true'}).json()['host']
        # New hosts get a UUID, as upstream Blazar's.
        self.assertTrue(uuidutils.is_uuid_like(created['id']))
        # A host numbered before host ids became strings keeps its number.
        host_api.host_create(
            context.get_admin_context(),
            {'id': '7', 'hypervisor_hostname': 'old-node', 'vcpus': 2,
             'cpu_info': '{}', 'hypervisor_type': 'QEMU',
             'hypervisor_version': 1, 'memory_mb': 1024, 'local_gb': 10},
            {'rack': 'r1'})

        listed = json.loads(self.openstack('host', 'list', '-f',
                                           'json').stdout)
        self.assertEqual({'7': 'old-node', created['id']: 'new-node'},
                         {h['id']: h['hypervisor_hostname'] for h in listed})
        for ref, host_id in (('7', '7'), ('old-node', '7'),
                             ('new-node', created['id'])):
            shown = json.loads(self.openstack('host', 'show', ref, '-f',
                                              'json').stdout)
            self.assertEqual(host_id, shown['id'], ref)
        self.openstack('host', 'set', '--extra', 'rack=r2', '7')
        self.openstack('host', 'set', '--extra', 'rack=r3', 'new-node')
        self.assertEqual(
            ('r2', 'r3'),
            (self.request('GET', '/v1/os-hosts/7').json()['host']['rack'],
             self.request('GET', '/v1/os-hosts/%s' % created['id'])
             .json()['host']['rack']))
        self.openstack('host', 'delete', 'new-node')
        self.openstack('host', 'delete', '7')
        self.assertEqual([], self.request('GET', '/v1/os-hosts')
                         .json()['hosts'])

    def test_lease_with_forbidden_trait(self):
        # The client passes resource_properties as is: "$traits" asks for
        # or forbids traits without a key the client does not know.
        placement = {'OpenStack-API-Version': 'placement 1.39'}
        self.assertEqual(201, self.request(
            'PUT', '/placement/traits/CUSTOM_GPU', headers=placement).status)
        for name in ('gpu-node', 'plain-node'):
            self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
                'name': name}).status)
        [provider] = self.request(
            'GET', '/placement/resource_providers?name=gpu-node',
            headers=placement).json()['resource_providers']
        self.assertEqual(200, self.request(
            'PUT', '/placement/resource_providers/%s/traits'
            % provider['uuid'], {'traits': ['CUSTOM_GPU'],
                                 'resource_provider_generation':
                                 provider['generation']},
            headers=placement).status)
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        end = start + datetime.timedelta(hours=2)
        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=physical:host,min=1,max=2,'
            'resource_properties=["not", ["==", "$traits", "CUSTOM_GPU"]]',
            '--start-date', start.strftime(cli.FMT),
            '--end-date', end.strftime(cli.FMT), '-f', 'json', 'no-gpu')
        lease = json.loads(proc.stdout[proc.stdout.index('{'):])
        allocations = self.request(
            'GET', '/v1/os-hosts/allocations?lease_id=%s'
            % lease['id']).json()['allocations']
        hosts = self.request('GET', '/v1/os-hosts').json()['hosts']
        names = {h['id']: h['hypervisor_hostname'] for h in hosts}
        self.assertEqual(['plain-node'],
                         [names[a['resource_id']] for a in allocations
                          if a['reservations']])

    def test_allocation_list_and_show_host(self):
        for name in ('busy-node', 'idle-node'):
            self.assertEqual(201, self.request('POST', '/v1/os-hosts', {
                'name': name}).status)
        start = timeutils.utcnow() + datetime.timedelta(hours=1)
        end = start + datetime.timedelta(hours=2)
        proc = self.openstack(
            'lease', 'create', '--reservation',
            'resource_type=physical:host,min=1,max=1',
            '--start-date', start.strftime(cli.FMT),
            '--end-date', end.strftime(cli.FMT), '-f', 'json', 'one')
        lease = json.loads(proc.stdout[proc.stdout.index('{'):])
        hosts = {h['hypervisor_hostname']: h['id'] for h in self.request(
            'GET', '/v1/os-hosts').json()['hosts']}
        listed = json.loads(self.openstack('allocation', 'list', 'host',
                                           '-f', 'json').stdout)
        # Every host, the idle one with no reservations, as upstream.
        by_host = {str(a['resource_id']): a['reservations'] for a in listed}
        self.assertEqual(sorted(hosts.values()), sorted(by_host))
        busy = [h for h, r in by_host.items() if r]
        self.assertEqual(1, len(busy))
        [held] = by_host[busy[0]]
        self.assertEqual(lease['id'], held['lease_id'])
        [reservation] = self.request('GET', '/v1/leases/%s' % lease[
            'id']).json()['lease']['reservations']
        self.assertEqual(reservation['id'], held['id'])
        self.assertEqual(start.strftime('%Y-%m-%dT%H:%M'),
                         held['start_date'][:16])
        self.assertEqual(end.strftime('%Y-%m-%dT%H:%M'),
                         held['end_date'][:16])
        idle = [h for h in by_host if h not in busy][0]
        # The client takes only a number for an id: UUID ids go by name.
        names = {host_id: name for name, host_id in hosts.items()}
        shown = json.loads(self.openstack('allocation', 'show', 'host',
                                          names[idle], '-f', 'json').stdout)
        # The client prints the list flattened: empty for an idle host.
        self.assertEqual('', shown['reservations'])
        shown = json.loads(self.openstack(
            'allocation', 'show', 'host', names[busy[0]], '--lease-id',
            lease['id'],
            '-f', 'json').stdout)
        for value in held.values():
            self.assertIn(value, str(shown['reservations']))
