"""The detail and allocation tables of the built-in reservation types,
read and written through one DetailTable (db/api/reservation_detail):
what a request stores comes back as the request gave it, many
reservations are read at once, and deleting leaves nothing behind."""

import datetime

import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api import floatingip_reservation
from blazar_ext.db.api import host_reservation
from blazar_ext.db.api import instance
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base

START = datetime.datetime(2030, 1, 1)
END = START + datetime.timedelta(hours=1)

HOST = {'min': 1, 'max': 3, 'hypervisor_properties': '',
        'resource_properties': '["==", "$gpu", "true"]',
        'before_end': 'default', 'traits': 'CUSTOM_A'}
INSTANCE = {'vcpus': 2, 'memory_mb': 2048, 'disk_gb': 10, 'amount': 3,
            'affinity': None, 'resource_properties': '', 'flavor_id': None,
            'server_group_id': None}
FLOATINGIP = {'network_id': 'net', 'amount': 2,
              'required_floatingips': ['10.0.0.2', '10.0.0.1']}


class TestDetailTables(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.context = blazar_context.get_admin_context()
        with db_session.writer.using(self.context) as session:
            session.execute(sa.insert(lease_models.Lease), [{
                'id': 'lease', 'name': 'l', 'status': 'PENDING',
                'degraded': False, 'start_date': START, 'end_date': END}])
            session.execute(sa.insert(lease_models.Reservation), [{
                'id': 'r%d' % i, 'lease_id': 'lease', 'resource_type': 't',
                'status': 'pending', 'missing_resources': False,
                'resources_changed': False} for i in range(1, 4)])
            session.execute(sa.insert(host_models.ComputeHost), [{
                'id': h, 'vcpus': 1, 'cpu_info': '',
                'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
                'hypervisor_hostname': h, 'memory_mb': 1, 'local_gb': 1}
                for h in ('h1', 'h2')])
            session.execute(sa.insert(fip_models.FloatingIP), [{
                'id': f, 'floating_network_id': 'net',
                'floating_ip_address': '10.0.0.%d' % n}
                for n, f in enumerate(('f1', 'f2'), 1)])

    def _round_trip(self, table, spec: dict, changed: dict) -> None:
        with db_session.writer.using(self.context) as session:
            detail_id = table.add(session, 'r1', spec)
            table.add(session, 'r2', spec)
            self.assertIsNotNone(detail_id)
            self.assertEqual({'r1': spec, 'r2': spec},
                             table.details(session, ['r1', 'r2', 'r3']))
            table.update(session, 'r1', dict(spec, **changed))
            self.assertEqual(dict(spec, **changed),
                             table.details(session, ['r1'])['r1'])
            # One reservation at a time (a statement of its own), each
            # with its own id bound.
            self.assertEqual({'r2': spec}, table.details(session, ['r2']))
            self.assertEqual({}, table.details(session, ['r3']))
            table.delete(session, ['r1'])
            self.assertEqual(['r2'], list(table.details(session,
                                                        ['r1', 'r2'])))

    def test_host_details(self):
        self._round_trip(host_reservation.DETAILS, HOST,
                         {'min': 2, 'max': 2, 'traits': ''})

    def test_instance_details(self):
        self._round_trip(instance.DETAILS, INSTANCE,
                         {'amount': 4, 'affinity': False})

    def test_floatingip_details_with_required_addresses(self):
        stored = dict(FLOATINGIP, required_floatingips=['10.0.0.1',
                                                        '10.0.0.2'])
        with db_session.writer.using(self.context) as session:
            table = floatingip_reservation.DETAILS
            table.add(session, 'r1', FLOATINGIP)
            self.assertEqual(stored, table.details(session, ['r1'])['r1'])
            table.update(session, 'r1', dict(
                FLOATINGIP, required_floatingips=['10.0.0.3']))
            self.assertEqual(['10.0.0.3'], table.details(
                session, ['r1'])['r1']['required_floatingips'])
            table.delete(session, ['r1'])
            self.assertEqual(0, session.scalar(sa.select(sa.func.count())
                             .select_from(fip_models.RequiredFloatingIP)))

    def test_held_and_released_together(self):
        with db_session.writer.using(self.context) as session:
            session.execute(sa.insert(lease_models.ComputeHostAllocation), [
                {'id': 'a%d' % n, 'compute_host_id': h,
                 'reservation_id': r, 'start_date': START, 'end_date': END}
                for n, (r, h) in enumerate([('r1', 'h2'), ('r1', 'h1'),
                                            ('r2', 'h1')])])
            table = host_reservation.DETAILS
            self.assertEqual({'r1': ['h1', 'h2'], 'r2': ['h1'], 'r3': []},
                             table.held(session, ['r1', 'r2', 'r3']))
            table.release(session, ['r1', 'r3'])
            self.assertEqual({'r1': [], 'r2': ['h1']},
                             table.held(session, ['r1', 'r2']))
            # Deleting a reservation's details drops its allocations too.
            table.add(session, 'r2', HOST)
            table.delete(session, ['r2'])
            self.assertEqual({'r2': []}, table.held(session, ['r2']))
