"""blazar-ext-manage import-blazar from real upstream Blazar 18 databases.

The source is built by upstream Blazar's own code (see upstream_blazar) on
MariaDB and on PostgreSQL, filled with plain SQL, and imported by the real
command into the service's database; the service (API, manager, the real
python-blazarclient) then shows every row with the same ids and values,
and the pending lease starts when its time comes.
"""

import datetime
import json
import os
import subprocess
import sys

from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext import context
from blazar_ext.db.api import blazar_import
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import cli
from blazar_ext.tests.functional import upstream_blazar
from blazar_ext.tests import summaries

MANAGE = os.path.join(os.path.dirname(sys.executable), 'blazar-ext-manage')

H1 = '5d0d7cfa-2a5b-4f49-9ad4-6d0c3e0b7a11'
H2 = '2'  # hosts of old Blazars were numbered
H3 = 'b8f3a9f0-6c52-4a7e-9a4b-1f2e3d4c5b63'
H_NONAME = 'c0ffee00-0000-4000-8000-000000000004'
NET = 'e4b3a0d2-51c3-4c35-9b1e-2f0e3c4d5a66'
L_PENDING, L_ACTIVE, L_DONE, L_ERROR = (
    '11111111-1111-4111-8111-11111111111%d' % i for i in range(4))
L_INSTANCE = '22222222-2222-4222-8222-222222222222'
L_BADQUERY = '33333333-3333-4333-8333-333333333333'
R_BADQUERY = 'r-badquery'
SERVER_GROUP = '7a1e5c3b-0d2f-4e6a-9b8c-1d2e3f4a5b6c'
L_STARTING = '55555555-5555-4555-8555-555555555555'
L_FLAVOR_PENDING, L_FLAVOR_ACTIVE, L_FLAVOR_PINNED = (
    '44444444-4444-4444-8444-44444444444%d' % i for i in range(3))


def _nova_flavor(flavor_id: str, vcpus: int, ram: int, disk: int,
                 ephemeral: int, extra_specs: dict) -> str:
    """What upstream's flavor plugin stores in resource_properties: Nova's
    flavor (novaclient's to_dict(), links removed) with its extra specs."""
    return json.dumps({
        'id': flavor_id, 'name': flavor_id, 'ram': ram, 'disk': disk,
        'vcpus': vcpus, 'OS-FLV-EXT-DATA:ephemeral': ephemeral, 'swap': '',
        'rxtx_factor': 1.0, 'os-flavor-access:is_public': True,
        'OS-FLV-DISABLED:disabled': False, 'description': None,
        'extra_specs': extra_specs})


def _event_id(kind: str, lease_id: str) -> str:
    return '%s-%s' % (kind, lease_id[-12:])


def _rows(now: datetime.datetime) -> list:
    """(table, row) in insertion order: everything a Blazar 18 holds."""
    hour = datetime.timedelta(hours=1)
    host = {'cpu_info': '{"arch": "x86_64"}', 'hypervisor_type': 'QEMU',
            'hypervisor_version': 8002000, 'availability_zone': 'nova',
            'trust_id': 'trust-hosts', 'created_at': now - 100 * hour}
    rows = [
        ('computehosts', dict(host, id=H1, hypervisor_hostname='compute-1',
                              service_name='compute-1', vcpus=32,
                              memory_mb=131072, local_gb=800,
                              reservable=True)),
        ('computehosts', dict(host, id=H2, hypervisor_hostname='compute-2',
                              service_name='compute-2', vcpus=16,
                              memory_mb=65536, local_gb=400,
                              reservable=True)),
        ('computehosts', dict(host, id=H3, hypervisor_hostname='compute-3',
                              service_name='compute-3', vcpus=8,
                              memory_mb=8192, local_gb=100,
                              reservable=False)),
        ('computehosts', dict(host, id=H_NONAME, hypervisor_hostname=None,
                              vcpus=1, memory_mb=1, local_gb=1,
                              reservable=True)),
    ]
    for prop_id, name, private in (('p-gpu', 'gpu', False),
                                   ('p-rack', 'rack', False),
                                   ('p-secret', 'secret', True),
                                   ('p-vcpus', 'vcpus', False)):
        rows.append(('resource_properties', {
            'id': prop_id, 'resource_type': 'physical:host',
            'property_name': name, 'private': private}))
    for cap_id, host_id, prop_id, value in (
            ('c1', H1, 'p-gpu', 'true'), ('c2', H1, 'p-rack', 'r1'),
            ('c3', H1, 'p-secret', 's3cr3t'), ('c4', H1, 'p-vcpus', '99'),
            ('c5', H2, 'p-gpu', 'false'), ('c6', H2, 'p-rack', 'r2'),
            ('c7', H3, 'p-rack', 'r1')):
        rows.append(('computehost_extra_capabilities', {
            'id': cap_id, 'computehost_id': host_id, 'property_id': prop_id,
            'capability_value': value}))
    # Upstream's copy of each host's Placement traits and inventory.
    for trait_id, host_id, trait in (('t1', H1, 'HW_CPU_X86_AVX2'),
                                     ('t2', H1, 'CUSTOM_GPU_A100'),
                                     ('t-bad', H2, 'not-a-trait')):
        rows.append(('computehost_trait', {
            'id': trait_id, 'computehost_id': host_id, 'trait': trait}))
    for inv_id, name, total, reserved, ratio in (
            ('i1', 'VCPU', 32, 2, 4.0), ('i2', 'CUSTOM_FPGA', 2, 0, 1.0)):
        rows.append(('computehost_resource_inventory', {
            'id': inv_id, 'computehost_id': H1, 'resource_class': name,
            'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': ratio}))
    for fip_id, address in (('f1', '172.24.4.10'), ('f2', '172.24.4.11')):
        rows.append(('floatingips', {
            'id': fip_id, 'floating_network_id': NET, 'subnet_id': 'sub-1',
            'floating_ip_address': address, 'reservable': True}))

    def lease(lease_id, status, start, end, degraded=False):
        rows.append(('leases', {
            'id': lease_id, 'name': 'lease-' + status.lower(),
            'user_id': 'user-1', 'project_id': 'project-1',
            'start_date': start, 'end_date': end, 'trust_id': 'trust-1',
            'status': status, 'degraded': degraded}))

    def host_res(res_id, lease_id, status, count_range, res_props='',
                 hyp_props='', before_end='default'):
        rows.append(('reservations', {
            'id': res_id, 'lease_id': lease_id, 'resource_id': 'd-' + res_id,
            'resource_type': 'physical:host', 'status': status,
            'missing_resources': False, 'resources_changed': False}))
        rows.append(('computehost_reservations', {
            'id': 'd-' + res_id, 'reservation_id': res_id,
            'count_range': count_range, 'resource_properties': res_props,
            'hypervisor_properties': hyp_props, 'before_end': before_end}))

    def events(lease_id, start, end, start_status, end_status,
               claimed=None):
        for kind, time, status in (
                ('start_lease', start, start_status),
                ('before_end_lease', end - hour, end_status),
                ('end_lease', end, end_status)):
            rows.append(('events', {
                'id': _event_id(kind, lease_id), 'lease_id': lease_id,
                'event_type': kind, 'time': time, 'status': status,
                'updated_at': claimed if status == 'IN_PROGRESS' else None}))

    # Pending: a host (gpu) and a floating IP, starting in an hour.
    lease(L_PENDING, 'PENDING', now + hour, now + 3 * hour)
    host_res('r-pending', L_PENDING, 'pending', '1-1',
             res_props='["==", "$gpu", "true"]')
    rows.append(('reservations', {
        'id': 'r-fip', 'lease_id': L_PENDING, 'resource_id': 'd-r-fip',
        'resource_type': 'virtual:floatingip', 'status': 'pending',
        'missing_resources': False, 'resources_changed': False}))
    rows.append(('floatingip_reservations', {
        'id': 'd-r-fip', 'reservation_id': 'r-fip', 'network_id': NET,
        'amount': 1}))
    rows.append(('required_floatingips', {
        'id': 'req-1', 'floatingip_reservation_id': 'd-r-fip',
        'address': '172.24.4.10'}))
    rows.append(('computehost_allocations', {
        'id': 'a-pending', 'compute_host_id': H1,
        'reservation_id': 'r-pending'}))
    rows.append(('floatingip_allocations', {
        'id': 'fa-pending', 'floatingip_id': 'f1', 'reservation_id': 'r-fip'}))
    events(L_PENDING, now + hour, now + 3 * hour, 'UNDONE', 'UNDONE')
    # Active and degraded, on the numbered host.
    lease(L_ACTIVE, 'ACTIVE', now - hour, now + 2 * hour, degraded=True)
    host_res('r-active', L_ACTIVE, 'active', '1-2',
             hyp_props='[">=", "$memory_mb", "4096"]')
    rows.append(('computehost_allocations', {
        'id': 'a-active', 'compute_host_id': H2,
        'reservation_id': 'r-active'}))
    events(L_ACTIVE, now - hour, now + 2 * hour, 'DONE', 'UNDONE')
    # Over, and failed.
    lease(L_DONE, 'TERMINATED', now - 10 * hour, now - 8 * hour)
    host_res('r-done', L_DONE, 'deleted', '1-1', before_end='snapshot')
    events(L_DONE, now - 10 * hour, now - 8 * hour, 'DONE', 'DONE')
    lease(L_ERROR, 'ERROR', now + 5 * hour, now + 6 * hour)
    host_res('r-error', L_ERROR, 'error', '3-3')
    events(L_ERROR, now + 5 * hour, now + 6 * hour, 'ERROR', 'UNDONE')
    # Upstream's manager was stopped while starting this one: its start
    # event is left IN_PROGRESS (claimed 20 minutes ago).
    lease(L_STARTING, 'STARTING', now - hour / 2, now + 3 * hour)
    rows.append(('reservations', {
        'id': 'r-starting', 'lease_id': L_STARTING,
        'resource_id': 'd-r-starting', 'resource_type': 'virtual:floatingip',
        'status': 'pending', 'missing_resources': False,
        'resources_changed': False}))
    rows.append(('floatingip_reservations', {
        'id': 'd-r-starting', 'reservation_id': 'r-starting',
        'network_id': NET, 'amount': 1}))
    rows.append(('floatingip_allocations', {
        'id': 'fa-starting', 'floatingip_id': 'f2',
        'reservation_id': 'r-starting'}))
    events(L_STARTING, now - hour / 2, now + 3 * hour, 'IN_PROGRESS',
           'UNDONE', claimed=now - hour / 3)
    # Two instances of one reservation on one host.
    lease(L_INSTANCE, 'PENDING', now + hour, now + 2 * hour)
    rows.append(('reservations', {
        'id': 'r-instance', 'lease_id': L_INSTANCE,
        'resource_type': 'virtual:instance', 'status': 'pending',
        'missing_resources': False, 'resources_changed': False}))
    rows.append(('instance_reservations', {
        'id': 'd-r-instance', 'reservation_id': 'r-instance', 'vcpus': 2,
        'memory_mb': 2048, 'disk_gb': 20, 'amount': 2, 'affinity': True,
        'resource_properties': '["==", "$rack", "r1"]',
        # The Nova objects upstream made for it.
        'flavor_id': 'r-instance', 'server_group_id': SERVER_GROUP}))
    for slot in range(2):
        rows.append(('computehost_allocations', {
            'id': 'a-instance-%d' % slot, 'compute_host_id': H1,
            'reservation_id': 'r-instance'}))
    events(L_INSTANCE, now + hour, now + 2 * hour, 'UNDONE', 'UNDONE')

    # flavor:instance, as upstream's flavor plugin leaves them: the size
    # shown in the columns, the flavor only as its JSON copy, and
    # flavor_id the private flavor it made (named after the reservation).
    def flavor_res(res_id, lease_id, status, amount, flavor, host_id):
        rows.append(('reservations', {
            'id': res_id, 'lease_id': lease_id, 'resource_id': 'd-' + res_id,
            'resource_type': 'flavor:instance', 'status': status,
            'missing_resources': False, 'resources_changed': False}))
        shown = json.loads(flavor)
        rows.append(('instance_reservations', {
            'id': 'd-' + res_id, 'reservation_id': res_id,
            'vcpus': shown['vcpus'], 'memory_mb': shown['ram'],
            'disk_gb': shown['disk'], 'amount': amount, 'affinity': None,
            'resource_properties': flavor, 'flavor_id': res_id,
            'aggregate_id': 7}))
        for slot in range(amount):
            rows.append(('computehost_allocations', {
                'id': 'a-%s-%d' % (res_id, slot), 'compute_host_id': host_id,
                'reservation_id': res_id}))

    lease(L_FLAVOR_PENDING, 'PENDING', now + hour, now + 4 * hour)
    flavor_res('r-flavor-pending', L_FLAVOR_PENDING, 'pending', 2,
               _nova_flavor('m1.gpu', 4, 8192, 40, 10, {
                   'trait:CUSTOM_GPU_A100': 'required',
                   'hw:mem_page_size': 'large'}), H1)
    events(L_FLAVOR_PENDING, now + hour, now + 4 * hour, 'UNDONE', 'UNDONE')
    lease(L_FLAVOR_ACTIVE, 'ACTIVE', now - hour, now + hour)
    flavor_res('r-flavor-active', L_FLAVOR_ACTIVE, 'active', 1,
               _nova_flavor('m1.small', 1, 2048, 20, 0, {
                   'resources:MEMORY_MB': '1024'}), H2)
    events(L_FLAVOR_ACTIVE, now - hour, now + hour, 'DONE', 'UNDONE')
    # Left out, saying why: dedicated CPUs (upstream reserves PCPU).
    lease(L_FLAVOR_PINNED, 'PENDING', now + hour, now + 2 * hour)
    flavor_res('r-flavor-pinned', L_FLAVOR_PINNED, 'pending', 1,
               _nova_flavor('m1.pinned', 2, 2048, 20, 0, {
                   'hw:cpu_policy': 'dedicated'}), H1)
    events(L_FLAVOR_PINNED, now + hour, now + 2 * hour, 'UNDONE', 'UNDONE')
    # Left out: an unparsable query.
    lease(L_BADQUERY, 'PENDING', now + hour, now + 2 * hour)
    host_res(R_BADQUERY, L_BADQUERY, 'pending', '1-1',
             res_props='["=~", "$gpu"')
    return rows


def fill(url: str, rows: list) -> None:
    """Plain INSERTs, column by column as each row names them."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for table, row in rows:
                conn.execute(sa.text('INSERT INTO %s (%s) VALUES (%s)' % (
                    table, ', '.join(row),
                    ', '.join(':' + key for key in row))), row)
    finally:
        engine.dispose()


class _ImportMixin(cli.ReservationCommands):
    DIALECT = None

    def setUp(self):
        super().setUp()
        problem = upstream_blazar.missing()
        if problem:
            self.skipTest(problem)
        self.conf.set_override('event_interval', 3600, group='manager')
        # The import writes providers, inventories and traits in bulk.
        self.addCleanup(summaries.assert_kept, self.db.engine)
        self.source = upstream_blazar.SourceDatabase(self.DIALECT,
                                                     self.skipTest)
        self.addCleanup(self.source.drop)
        upstream_blazar.build_schema(self.source.url, self.DIALECT)
        self.now = timeutils.utcnow().replace(microsecond=0)

    def manage(self, *argv: str) -> subprocess.CompletedProcess:
        config = os.path.join(self.useFixture(
            fixtures.fixtures.TempDir()).path, 'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write('[database]\nconnection = %s\n' % self.db.url)
        return subprocess.run(
            [MANAGE, '--config-file', config, 'import-blazar',
             '--source-connection', self.source.url] + list(argv),
            capture_output=True, text=True, timeout=300)

    def test_import_keeps_everything_and_the_pending_lease_starts(self):
        fill(self.source.url, _rows(self.now))

        dry = self.manage('--dry-run')
        self.assertEqual(0, dry.returncode, dry.stdout + dry.stderr)
        for line in ('computehosts                     3',
                     'extra_capabilities               3',
                     'computehost_extra_capabilities   6',
                     'leases                           8',
                     'reservations                     9',
                     'instance_reservations            3',
                     'instance_allocations             3',
                     'events                           24',
                     'resource_provider_traits         2',
                     'inventories                      2'):
            self.assertIn(line, dry.stdout)
        for skipped in (
                'computehosts %s: no hypervisor_hostname' % H_NONAME,
                'resource_properties p-vcpus: capability name "vcpus" is '
                'a host field',
                'computehost_extra_capabilities c4: resource property '
                'p-vcpus was skipped',
                'leases %s: its reservation %s' % (L_BADQUERY, R_BADQUERY),
                "computehost_trait t-bad: trait 'not-a-trait' is neither",
                'reservations r-flavor-pinned: flavor:instance reservation: '
                'flavor m1.pinned asks for dedicated CPUs',
                'leases %s: its reservation r-flavor-pinned' % L_FLAVOR_PINNED,
                'computehost_allocations a-r-flavor-pinned-0: reservation '
                'r-flavor-pinned was skipped',
                'lease %s reservation %s: ' % (L_BADQUERY, R_BADQUERY)):
            self.assertIn(skipped, dry.stdout)
        self.assertEqual([], self.request('GET', '/v1/os-hosts').json()[
            'hosts'])

        done = self.manage()
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        again = self.manage()
        self.assertEqual(1, again.returncode, again.stdout)
        self.assertIn('already holds 3 computehosts', again.stdout)

        self._check_hosts_and_properties()
        self._check_leases()
        self._check_with_blazarclient()
        # The pending leases start when their time comes.
        self.manager.service.event_loop.run_once(
            self.now + datetime.timedelta(hours=1, seconds=1))
        for lease_id in (L_PENDING, L_INSTANCE, L_FLAVOR_PENDING,
                         L_STARTING):
            self.assertEqual('ACTIVE', self.lease(lease_id)['status'],
                             lease_id)
        # The imported flavor:instance one is shown in Placement as one
        # started here: its reservation provider on the host.
        placement = {'OpenStack-API-Version': 'placement 1.39'}
        usages = self.request(
            'GET', '/placement/resource_providers?resources='
            'CUSTOM_RESERVATION_R_FLAVOR_PENDING:1',
            headers=placement)
        self.assertEqual(200, usages.status, usages.text)
        self.assertEqual(['blazar_compute-1'], [
            p['name'] for p in usages.json()['resource_providers']])

    def test_all_or_nothing(self):
        fill(self.source.url, _rows(self.now))
        engine = sa.create_engine(self.source.url)
        try:
            source = blazar_import.read_source(engine)
        finally:
            engine.dispose()
        planned = blazar_import.plan(source, blazar_import.IMPORTABLE_TYPES)
        # The last table written fails (an event twice): hosts, their
        # providers, leases ... written before it go with it.
        planned.rows['events'].append(dict(planned.rows['events'][0]))
        self.assertRaises(blazar_import.AlreadyImported, blazar_import.write,
                          context.get_admin_context(), planned)
        self.assertEqual([], self.request('GET', '/v1/os-hosts').json()[
            'hosts'])
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])
        self.assertEqual([], self.request(
            'GET', '/placement/resource_providers',
            headers={'OpenStack-API-Version': 'placement 1.39'}).json()[
            'resource_providers'])
        # Nothing stands in the way of the import then.
        done = self.manage()
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        self.assertEqual(3, len(self.request('GET', '/v1/os-hosts').json()[
            'hosts']))

    def test_other_revision_is_refused_naming_both(self):
        upstream_blazar.stamp(self.source.url, '02e2f2186d98')
        proc = self.manage('--dry-run')
        self.assertEqual(2, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn('revision 02e2f2186d98', proc.stdout)
        self.assertIn('reads revision 553383923ca0 (Blazar 18.0.0)',
                      proc.stdout)

    def _check_hosts_and_properties(self):
        hosts = {h['id']: h for h in self.request(
            'GET', '/v1/os-hosts').json()['hosts']}
        self.assertEqual({H1, H2, H3}, set(hosts))
        self.assertEqual(
            ('compute-1', 32, 131072, 800, 'nova', 'true', 'r1', 's3cr3t'),
            tuple(hosts[H1][k] for k in (
                'hypervisor_hostname', 'vcpus', 'memory_mb', 'local_gb',
                'availability_zone', 'gpu', 'rack', 'secret')))
        self.assertNotIn('vcpus_capability', hosts[H1])
        self.assertEqual(('false', 'r2', True),
                         (hosts[H2]['gpu'], hosts[H2]['rack'],
                          hosts[H2]['reservable']))
        self.assertFalse(hosts[H3]['reservable'])
        properties = {p['property']: p['private'] for p in self.request(
            'GET', '/v1/physical:host/properties?detail=true&all=true'
        ).json()}
        self.assertEqual({'gpu': False, 'rack': False, 'secret': True},
                         properties)
        # Each host has its provider and inventory, as through the API.
        placement = {'OpenStack-API-Version': 'placement 1.39'}
        [provider] = self.request(
            'GET', '/placement/resource_providers?name=compute-2',
            headers=placement).json()['resource_providers']
        inventories = self.request(
            'GET', '/placement/resource_providers/%s/inventories'
            % provider['uuid'], headers=placement).json()['inventories']
        self.assertEqual({'VCPU': 16, 'MEMORY_MB': 65536, 'DISK_GB': 400},
                         {k: v['total'] for k, v in inventories.items()})
        # Upstream's copy of a host's Placement inventory and traits wins
        # over what the host's columns say.
        [provider] = self.request(
            'GET', '/placement/resource_providers?name=compute-1',
            headers=placement).json()['resource_providers']
        inventories = self.request(
            'GET', '/placement/resource_providers/%s/inventories'
            % provider['uuid'], headers=placement).json()['inventories']
        self.assertEqual(
            {'VCPU': (32, 2, 4.0), 'MEMORY_MB': (131072, 0, 1.0),
             'DISK_GB': (800, 0, 1.0), 'CUSTOM_FPGA': (2, 0, 1.0)},
            {k: (v['total'], v['reserved'], v['allocation_ratio'])
             for k, v in inventories.items()})
        # Instance reservations take the capacity those give: (32 - 2) x 4.
        with self.db.engine.connect() as conn:
            self.assertEqual((120, 131072, 800), tuple(conn.execute(sa.text(
                'SELECT c.vcpus, c.memory_mb, c.disk_gb '
                'FROM instance_capacities c JOIN resource_providers r '
                'ON r.id = c.resource_provider_id WHERE r.uuid = :u'),
                {'u': provider['uuid']}).one()))
        traits = self.request(
            'GET', '/placement/resource_providers/%s/traits'
            % provider['uuid'], headers=placement).json()
        self.assertEqual(['CUSTOM_GPU_A100', 'HW_CPU_X86_AVX2'],
                         sorted(traits['traits']))
        self.assertEqual(provider['generation'],
                         traits['resource_provider_generation'])
        fips = {f['id']: f['floating_ip_address'] for f in self.request(
            'GET', '/v1/floatingips').json()['floatingips']}
        self.assertEqual({'f1': '172.24.4.10', 'f2': '172.24.4.11'}, fips)

    def lease(self, lease_id: str) -> dict:
        resp = self.request('GET', '/v1/leases/%s' % lease_id)
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['lease']

    def _check_leases(self):
        listed = {x['id'] for x in self.request(
            'GET', '/v1/leases').json()['leases']}
        self.assertEqual({L_PENDING, L_ACTIVE, L_DONE, L_ERROR, L_INSTANCE,
                          L_FLAVOR_PENDING, L_FLAVOR_ACTIVE, L_STARTING},
                         listed)
        pending = self.lease(L_PENDING)
        self.assertEqual(('PENDING', False, 'trust-1', 'project-1', 'user-1'),
                         tuple(pending[k] for k in (
                             'status', 'degraded', 'trust_id', 'project_id',
                             'user_id')))
        reservations = {r['id']: r for r in pending['reservations']}
        self.assertEqual((1, 1, '["==", "$gpu", "true"]', 'pending',
                          'd-r-pending'),
                         tuple(reservations['r-pending'][k] for k in (
                             'min', 'max', 'resource_properties', 'status',
                             'resource_id')))
        self.assertEqual((NET, 1, ['172.24.4.10']),
                         tuple(reservations['r-fip'][k] for k in (
                             'network_id', 'amount',
                             'required_floatingips')))
        self.assertEqual(
            {(_event_id('start_lease', L_PENDING), 'start_lease', 'UNDONE'),
             (_event_id('before_end_lease', L_PENDING), 'before_end_lease',
              'UNDONE'),
             (_event_id('end_lease', L_PENDING), 'end_lease', 'UNDONE')},
            {(e['id'], e['event_type'], e['status'])
             for e in pending['events']})
        active = self.lease(L_ACTIVE)
        self.assertEqual(
            {('start_lease', 'DONE'), ('before_end_lease', 'UNDONE'),
             ('end_lease', 'UNDONE')},
            {(e['event_type'], e['status']) for e in active['events']})
        self.assertIn(('start_lease', 'ERROR'), {
            (e['event_type'], e['status'])
            for e in self.lease(L_ERROR)['events']})
        starting = self.lease(L_STARTING)
        self.assertEqual('STARTING', starting['status'])
        self.assertIn(('start_lease', 'IN_PROGRESS'), {
            (e['event_type'], e['status']) for e in starting['events']})
        self.assertEqual(('ACTIVE', True), (active['status'],
                                            active['degraded']))
        [res] = active['reservations']
        self.assertEqual((1, 2, '[">=", "$memory_mb", "4096"]'),
                         (res['min'], res['max'],
                          res['hypervisor_properties']))
        done = self.lease(L_DONE)
        self.assertEqual(('TERMINATED', 'deleted', 'snapshot'), (
            done['status'], done['reservations'][0]['status'],
            done['reservations'][0]['before_end']))
        self.assertEqual('ERROR', self.lease(L_ERROR)['status'])
        for lease_id, host in ((L_PENDING, H1), (L_ACTIVE, H2)):
            allocated = self.request(
                'GET', '/v1/os-hosts/allocations?lease_id=%s' % lease_id
            ).json()['allocations']
            self.assertEqual([host], [a['resource_id'] for a in allocated
                                      if a['reservations']])
        [instances] = self.lease(L_INSTANCE)['reservations']
        self.assertEqual(
            ('virtual:instance', 2, 2, 2048, 20, True,
             '["==", "$rack", "r1"]', 'r-instance', SERVER_GROUP),
            tuple(instances[k] for k in (
                'resource_type', 'amount', 'vcpus', 'memory_mb', 'disk_gb',
                'affinity', 'resource_properties', 'flavor_id',
                'server_group_id')))
        # Upstream's two allocation rows are two slots on the host.
        with db_session.reader.using(
                context.get_admin_context()) as session:
            alloc = instance_models.InstanceAllocation
            slots = session.execute(
                sa.select(alloc.compute_host_id, alloc.slots)
                .where(alloc.reservation_id == 'r-instance')).all()
        self.assertEqual([(H1, 2)], [tuple(row) for row in slots])
        self.assertEqual(404, self.request(
            'GET', '/v1/leases/%s' % L_BADQUERY).status)
        self._check_flavor_leases()

    def _check_flavor_leases(self):
        fields = ('resource_type', 'id', 'status', 'flavor_id', 'amount',
                  'vcpus', 'memory_mb', 'disk_gb', 'affinity',
                  'resource_properties')
        pending = self.lease(L_FLAVOR_PENDING)
        self.assertEqual(('PENDING', 'project-1', 'user-1', 'trust-1'),
                         tuple(pending[k] for k in (
                             'status', 'project_id', 'user_id',
                             'trust_id')))
        [res] = pending['reservations']
        # The flavor it was made from; its size as normalize makes it
        # (the ephemeral disk counted, as upstream reserves it); the
        # flavor's trait as the hosts' filter; upstream's private flavor
        # (named after the reservation) as ``flavor``.
        self.assertEqual(
            ('flavor:instance', 'r-flavor-pending', 'pending', 'm1.gpu', 2,
             4, 8192, 50, None, '["==", "$traits", "CUSTOM_GPU_A100"]'),
            tuple(res[k] for k in fields))
        self.assertEqual('r-flavor-pending', res['flavor']['id'])
        self.assertEqual(
            {('start_lease', 'UNDONE'), ('before_end_lease', 'UNDONE'),
             ('end_lease', 'UNDONE')},
            {(e['event_type'], e['status']) for e in pending['events']})
        active = self.lease(L_FLAVOR_ACTIVE)
        [res] = active['reservations']
        self.assertEqual(
            ('flavor:instance', 'r-flavor-active', 'active', 'm1.small', 1,
             1, 1024, 20, None, ''),
            tuple(res[k] for k in fields))
        self.assertEqual('ACTIVE', active['status'])
        self.assertEqual(404, self.request(
            'GET', '/v1/leases/%s' % L_FLAVOR_PINNED).status)
        # Upstream's allocations as slots of the size blazar_ext holds.
        with self.db.engine.connect() as conn:
            slots = conn.execute(sa.text(
                'SELECT reservation_id, compute_host_id, slots, vcpus, '
                'memory_mb, disk_gb FROM instance_allocations WHERE '
                'reservation_id LIKE :p ORDER BY reservation_id'),
                {'p': 'r-flavor-%'}).all()
        self.assertEqual(
            [('r-flavor-active', H2, 1, 1, 1024, 20),
             ('r-flavor-pending', H1, 2, 4, 8192, 50)],
            [tuple(row) for row in slots])

    def _check_with_blazarclient(self):
        self.start_server()
        openstack = self.json
        hosts = {h['id']: h['hypervisor_hostname']
                 for h in openstack('host', 'list')}
        self.assertEqual({H1: 'compute-1', H2: 'compute-2',
                          H3: 'compute-3'}, hosts)
        # By id (a number, as the client wants it) and by name.
        self.assertEqual(H2, openstack('host', 'show', H2)['id'])
        self.assertEqual(H1, openstack('host', 'show', 'compute-1')['id'])
        shown = openstack('lease', 'show', L_ACTIVE)
        self.assertEqual(('ACTIVE', True), (shown['status'],
                                            shown['degraded']))
        shown = openstack('lease', 'show', L_FLAVOR_PENDING)
        # The client prints each reservation as a JSON object.
        res = shown['reservations']
        if isinstance(res, str):
            res = json.loads(res)
        self.assertEqual(('r-flavor-pending', 'flavor:instance', 'm1.gpu',
                          2, 50), tuple(res[k] for k in (
                              'id', 'resource_type', 'flavor_id', 'amount',
                              'disk_gb')))


class TestImportFromMariaDB(_ImportMixin, base.APITestCase):
    DIALECT = 'mysql'


class TestImportFromPostgreSQL(_ImportMixin, base.APITestCase):
    DIALECT = 'postgresql'
