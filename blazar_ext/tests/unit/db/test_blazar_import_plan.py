"""Planning an import: what is written and what is skipped, and why.

plan() does no I/O, so these run on plain rows as read_source() gives
them; the functional tests run the whole import on real databases.
"""

import datetime

from oslotest import base

from blazar_ext.db.api import blazar_import

START = datetime.datetime(2030, 1, 1)
END = START + datetime.timedelta(hours=2)
BOTH = ('physical:host', 'virtual:floatingip')


def _source(**tables) -> dict:
    source = {name: [] for name in blazar_import.SOURCE_TABLES}
    source.update(tables)
    return source


def _host(host_id, name='h', reservable=True):
    return {'id': host_id, 'hypervisor_hostname': name, 'vcpus': 1,
            'cpu_info': '', 'hypervisor_type': 'QEMU',
            'hypervisor_version': 1, 'service_name': name, 'memory_mb': 1,
            'local_gb': 1, 'status': None, 'availability_zone': 'nova',
            'trust_id': 't', 'reservable': reservable, 'created_at': None,
            'updated_at': None}


def _lease(lease_id):
    return {'id': lease_id, 'name': lease_id, 'user_id': 'u',
            'project_id': 'p', 'start_date': START, 'end_date': END,
            'trust_id': None, 'status': 'PENDING', 'degraded': False,
            'created_at': None, 'updated_at': None}


def _reservation(res_id, lease_id, kind='physical:host'):
    return {'id': res_id, 'lease_id': lease_id, 'resource_id': 'd-' + res_id,
            'resource_type': kind, 'status': 'pending',
            'missing_resources': False, 'resources_changed': False,
            'created_at': None, 'updated_at': None}


def _host_detail(res_id, count_range='1-1', properties=''):
    return {'id': 'd-' + res_id, 'reservation_id': res_id,
            'aggregate_id': None, 'resource_properties': properties,
            'count_range': count_range, 'hypervisor_properties': '',
            'before_end': 'default', 'created_at': None, 'updated_at': None}


def _skips(planned) -> dict:
    return {(s.table, s.row_id): s.reason for s in planned.skipped}


class TestPlan(base.BaseTestCase):

    def test_dangling_references_are_skipped_naming_them(self):
        planned = blazar_import.plan(_source(
            computehosts=[_host('h1')],
            leases=[_lease('l1')],
            reservations=[_reservation('r1', 'l1'),
                          _reservation('r-orphan', 'no-lease')],
            computehost_reservations=[_host_detail('r1')],
            computehost_allocations=[
                {'id': 'a1', 'compute_host_id': 'h1',
                 'reservation_id': 'r1'},
                {'id': 'a-gone', 'compute_host_id': 'gone',
                 'reservation_id': 'r1'}],
            events=[{'id': 'e-orphan', 'lease_id': 'no-lease',
                     'event_type': 'start_lease', 'time': START,
                     'status': 'UNDONE'}]), BOTH)
        skips = _skips(planned)
        self.assertEqual(
            'dangling reference: lease no-lease does not exist',
            skips[('reservations', 'r-orphan')])
        self.assertEqual('dangling reference: host gone does not exist',
                         skips[('computehost_allocations', 'a-gone')])
        self.assertEqual('dangling reference: lease no-lease does not exist',
                         skips[('events', 'e-orphan')])
        # The allocation kept takes its lease's window.
        [kept] = planned.rows['computehost_allocations']
        self.assertEqual(('a1', START, END), (kept['id'], kept['start_date'],
                                              kept['end_date']))
        self.assertEqual(1, planned.counts()['leases'])

    def test_disabled_type_skips_the_whole_lease(self):
        planned = blazar_import.plan(_source(
            leases=[_lease('l1')],
            reservations=[_reservation('r1', 'l1', 'virtual:floatingip')],
            floatingip_reservations=[{
                'id': 'd-r1', 'reservation_id': 'r1', 'network_id': 'n',
                'amount': 1, 'created_at': None, 'updated_at': None}],
            events=[{'id': 'e1', 'lease_id': 'l1',
                     'event_type': 'start_lease', 'time': START,
                     'status': 'UNDONE'}]), ('physical:host',))
        skips = _skips(planned)
        self.assertIn('plugin is disabled', skips[('reservations', 'r1')])
        self.assertIn('its reservation r1 was skipped',
                      skips[('leases', 'l1')])
        self.assertEqual('lease l1 was skipped', skips[('events', 'e1')])
        self.assertEqual(0, sum(planned.counts().values()))

    def test_bad_query_is_reported_by_lease_and_reservation(self):
        planned = blazar_import.plan(_source(
            leases=[_lease('l1'), _lease('l2')],
            reservations=[_reservation('r1', 'l1'),
                          _reservation('r2', 'l2')],
            computehost_reservations=[
                _host_detail('r1', properties='["==", "$gpu"'),
                _host_detail('r2', properties='["==", "$gpu", "true"]')]),
            BOTH)
        [failure] = planned.query_failures
        self.assertEqual(('l1', 'r1'), (failure.lease_id,
                                        failure.reservation_id))
        self.assertIn('resource_properties', failure.message)
        self.assertEqual(['l2'], [r['id'] for r in planned.rows['leases']])

    def test_capability_names_breaking_the_rules(self):
        planned = blazar_import.plan(_source(
            computehosts=[_host('h1')],
            resource_properties=[
                {'id': p, 'resource_type': 'physical:host',
                 'property_name': name, 'private': False,
                 'created_at': None, 'updated_at': None}
                for p, name in (('p1', 'gpu'), ('p2', 'memory_mb'),
                                ('p3', ' '), ('p4', 'x' * 256))],
            computehost_extra_capabilities=[
                {'id': 'c1', 'computehost_id': 'h1', 'property_id': 'p1',
                 'capability_value': '2', 'created_at': None,
                 'updated_at': None},
                {'id': 'c2', 'computehost_id': 'h1', 'property_id': 'p2',
                 'capability_value': '2', 'created_at': None,
                 'updated_at': None}]), BOTH)
        skips = _skips(planned)
        self.assertIn('is a host field', skips[('resource_properties', 'p2')])
        self.assertEqual('empty capability name',
                         skips[('resource_properties', 'p3')])
        self.assertIn('longer than 255', skips[('resource_properties', 'p4')])
        self.assertEqual('resource property p2 was skipped',
                         skips[('computehost_extra_capabilities', 'c2')])
        [value] = planned.rows['computehost_extra_capabilities']
        self.assertEqual(('p1', '2', 2), (value['capability_id'],
                                          value['capability_value'],
                                          value['capability_number']))

    def test_hosts_without_or_sharing_a_name(self):
        planned = blazar_import.plan(_source(computehosts=[
            _host('h1', 'a'), _host('h2', None), _host('h3', 'a')]), BOTH)
        skips = _skips(planned)
        self.assertEqual('no hypervisor_hostname',
                         skips[('computehosts', 'h2')])
        self.assertEqual('hypervisor_hostname a is also host h1',
                         skips[('computehosts', 'h3')])
        self.assertEqual(['h1'],
                         [h['id'] for h in planned.rows['computehosts']])

    def test_host_traits_for_the_provider_and_those_left_out(self):
        planned = blazar_import.plan(_source(
            computehosts=[_host('h1')],
            computehost_trait=[
                {'id': t, 'computehost_id': host, 'trait': name}
                for t, host, name in (
                    ('t1', 'h1', 'HW_CPU_X86_AVX2'),
                    ('t2', 'h1', 'CUSTOM_GPU_A100'),
                    ('t3', 'h1', 'CUSTOM_GPU_A100'),
                    ('t4', 'h1', 'custom_lower'),
                    ('t5', 'h1', 'HW_NOT_A_STANDARD_TRAIT'),
                    ('t6', 'h1', 'COMPUTE_STATUS_DISABLED'),
                    ('t7', 'gone', 'CUSTOM_GPU_A100'))]), BOTH)
        self.assertEqual(
            [('h1', 'HW_CPU_X86_AVX2'), ('h1', 'CUSTOM_GPU_A100')],
            [(r['computehost_id'], r['trait'])
             for r in planned.rows['resource_provider_traits']])
        skips = _skips(planned)
        self.assertEqual('host h1 has this trait already (row t2)',
                         skips[('computehost_trait', 't3')])
        for row_id in ('t4', 't5'):
            self.assertIn('neither a standard trait',
                          skips[('computehost_trait', row_id)])
        self.assertIn("set by blazar_ext from the host's reservable flag",
                      skips[('computehost_trait', 't6')])
        self.assertEqual('dangling reference: host gone does not exist',
                         skips[('computehost_trait', 't7')])
        self.assertEqual(2, planned.counts()['resource_provider_traits'])

    def test_host_inventories_for_the_provider_and_those_left_out(self):
        def inventory(row_id, name, host='h1', **values):
            row = {'id': row_id, 'computehost_id': host,
                   'resource_class': name, 'total': 8, 'reserved': 1,
                   'min_unit': 1, 'max_unit': 8, 'step_size': 1,
                   'allocation_ratio': 4.0}
            row.update(values)
            return row

        planned = blazar_import.plan(_source(
            computehosts=[_host('h1')],
            computehost_resource_inventory=[
                inventory('i1', 'VCPU'),
                inventory('i2', 'CUSTOM_FPGA', total=2, max_unit=2,
                          allocation_ratio=1.0),
                inventory('i3', 'VCPU'),
                inventory('i4', 'NOT_A_CLASS'),
                inventory('i5', 'MEMORY_MB', reserved=9),
                inventory('i6', 'DISK_GB', allocation_ratio=0.0),
                inventory('i7', 'PCI_DEVICE', min_unit=9),
                inventory('i8', 'VCPU', host='gone')]), BOTH)
        self.assertEqual(
            [('VCPU', 8, 4.0), ('CUSTOM_FPGA', 2, 1.0)],
            [(r['resource_class'], r['total'], r['allocation_ratio'])
             for r in planned.rows['inventories']])
        skips = _skips(planned)
        self.assertEqual('host h1 has another VCPU inventory (row i1)',
                         skips[('computehost_resource_inventory', 'i3')])
        self.assertIn('neither a standard class',
                      skips[('computehost_resource_inventory', 'i4')])
        self.assertEqual('MEMORY_MB inventory: reserved 9 above total 8',
                         skips[('computehost_resource_inventory', 'i5')])
        self.assertEqual('DISK_GB inventory: allocation_ratio 0.0 is not '
                         'above 0',
                         skips[('computehost_resource_inventory', 'i6')])
        self.assertEqual('PCI_DEVICE inventory: min_unit 9 above max_unit 8',
                         skips[('computehost_resource_inventory', 'i7')])
        self.assertEqual('dangling reference: host gone does not exist',
                         skips[('computehost_resource_inventory', 'i8')])

    def test_instance_reservation_keeps_flavor_and_server_group(self):
        planned = blazar_import.plan(_source(
            leases=[_lease('l1')],
            reservations=[_reservation('r1', 'l1', 'virtual:instance')],
            instance_reservations=[{
                'id': 'd-r1', 'reservation_id': 'r1', 'vcpus': 1,
                'memory_mb': 512, 'disk_gb': 1, 'amount': 2,
                'affinity': False, 'resource_properties': '',
                'flavor_id': 'r1', 'server_group_id': 'sg-1',
                'created_at': None, 'updated_at': None}]),
            BOTH + ('virtual:instance',))
        [detail] = planned.rows['instance_reservations']
        self.assertEqual(('r1', 'sg-1'), (detail['flavor_id'],
                                          detail['server_group_id']))

    def _flavor_source(self) -> dict:
        detail = {'id': 'd-r1', 'reservation_id': 'r1', 'vcpus': 4,
                  'memory_mb': 4096, 'disk_gb': 20, 'amount': 2,
                  'affinity': None, 'resource_properties': '{"id": "m1"}',
                  'flavor_id': 'r1', 'server_group_id': None,
                  'created_at': None, 'updated_at': None}
        return _source(
            computehosts=[_host('h1')],
            leases=[_lease('l1')],
            reservations=[_reservation('r1', 'l1', 'flavor:instance')],
            instance_reservations=[detail],
            computehost_allocations=[
                {'id': 'a%d' % i, 'compute_host_id': 'h1',
                 'reservation_id': 'r1', 'created_at': None,
                 'updated_at': None} for i in range(2)])

    def test_flavor_instance_as_its_plugin_translates_it(self):
        source = self._flavor_source()
        self.assertEqual(
            [('r1', 'd-r1')],
            [(r, d['id']) for r, d in blazar_import.detail_rows(
                source, 'flavor:instance')])
        planned = blazar_import.plan(
            source, ('flavor:instance',),
            {'r1': {'flavor_id': 'm1', 'disk_gb': 25,
                    'resource_properties': '["==", "$traits", "CUSTOM_X"]'}})
        [detail] = planned.rows['instance_reservations']
        self.assertEqual(('d-r1', 'm1', 4, 25, 2), tuple(
            detail[k] for k in ('id', 'flavor_id', 'vcpus', 'disk_gb',
                                'amount')))
        # The source row is left as read.
        self.assertEqual('r1', source['instance_reservations'][0][
            'flavor_id'])
        # Upstream's two allocations: two slots of the translated size.
        [slot] = planned.rows['instance_allocations']
        self.assertEqual((2, 25), (slot['slots'], slot['disk_gb']))
        self.assertEqual([], planned.skipped)

    def test_flavor_instance_not_translated_is_skipped_saying_why(self):
        for adopted, reason in (
                ({'r1': 'flavor m1 asks for dedicated CPUs'},
                 'flavor m1 asks for dedicated CPUs'),
                ({}, 'the flavor:instance plugin did not translate its '
                     'upstream detail row')):
            planned = blazar_import.plan(self._flavor_source(),
                                         ('flavor:instance',), adopted)
            skips = _skips(planned)
            self.assertEqual(reason, skips[('reservations', 'r1')])
            self.assertIn(reason, skips[('leases', 'l1')])
            self.assertEqual('reservation r1 was skipped',
                             skips[('computehost_allocations', 'a0')])
            self.assertEqual([], planned.rows['instance_reservations'])

    def test_flavor_instance_with_an_unparsable_translation(self):
        planned = blazar_import.plan(
            self._flavor_source(), ('flavor:instance',),
            {'r1': {'resource_properties': '["==", "$traits"'}})
        [failure] = planned.query_failures
        self.assertEqual(('l1', 'r1'), (failure.lease_id,
                                        failure.reservation_id))

    def test_dangling_detail_rows_are_reported(self):
        planned = blazar_import.plan(_source(
            instance_reservations=[{
                'id': 'd-x', 'reservation_id': 'gone', 'vcpus': 1,
                'memory_mb': 1, 'disk_gb': 1, 'amount': 1,
                'affinity': None, 'resource_properties': ''}],
            required_floatingips=[{
                'id': 'q1', 'floatingip_reservation_id': 'd-gone',
                'address': '10.0.0.1'}]), BOTH)
        skips = _skips(planned)
        self.assertEqual(
            'dangling reference: reservation gone does not exist',
            skips[('instance_reservations', 'd-x')])
        self.assertEqual(
            'dangling reference: floatingip_reservation d-gone does not '
            'exist', skips[('required_floatingips', 'q1')])

    def test_an_event_left_in_progress_can_be_taken_over(self):
        def event(event_id, status, updated_at=None):
            return {'id': event_id, 'lease_id': 'l1',
                    'event_type': 'start_lease', 'time': START,
                    'status': status, 'created_at': None,
                    'updated_at': updated_at}

        claimed = START + datetime.timedelta(seconds=5)
        planned = blazar_import.plan(_source(
            leases=[_lease('l1')],
            events=[event('e1', 'IN_PROGRESS'),
                    event('e2', 'IN_PROGRESS', claimed),
                    event('e3', 'UNDONE')]), BOTH)
        self.assertEqual(
            [('e1', 'IN_PROGRESS', START), ('e2', 'IN_PROGRESS', claimed),
             ('e3', 'UNDONE', None)],
            [(e['id'], e['status'], e['updated_at'])
             for e in planned.rows['events']])
