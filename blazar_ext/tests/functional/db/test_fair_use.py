"""The fair-use filters' queries (db/api/fair_use): what a project holds
over a window, found from its leases by the index on project and end
date (revision 0027)."""

import datetime

import sqlalchemy as sa

from blazar_ext import context as blazar_context
from blazar_ext.db.api.budgets import fair_use
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db import session as db_session
from blazar_ext.tests import base

START = datetime.datetime(2030, 1, 1)
HOUR = datetime.timedelta(hours=1)


class TestProjectWindows(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.context = blazar_context.get_admin_context()
        # Lease n of project p runs hour n to n+1 on host h; lease x is
        # another project's at the same time as p's lease 5.
        leases = [('l%d' % n, 'p', START + n * HOUR) for n in range(10)]
        leases.append(('x', 'q', START + 5 * HOUR))
        with db_session.writer.using(self.context) as session:
            session.execute(sa.insert(host_models.ComputeHost), [{
                'id': 'h', 'vcpus': 4, 'cpu_info': '',
                'hypervisor_type': 'QEMU', 'hypervisor_version': 1,
                'hypervisor_hostname': 'host-h', 'memory_mb': 1,
                'local_gb': 1}])
            session.execute(sa.insert(lease_models.Lease), [{
                'id': lease_id, 'name': lease_id, 'project_id': project,
                'status': 'PENDING', 'degraded': False, 'start_date': start,
                'end_date': start + HOUR}
                for lease_id, project, start in leases])
            session.execute(sa.insert(lease_models.Reservation), [{
                'id': 'r-' + lease_id, 'lease_id': lease_id,
                'resource_type': 'physical:host', 'status': 'pending',
                'missing_resources': False, 'resources_changed': False}
                for lease_id, _, _ in leases])
            session.execute(sa.insert(lease_models.ComputeHostAllocation), [{
                'id': 'a-' + lease_id, 'compute_host_id': 'h',
                'reservation_id': 'r-' + lease_id, 'start_date': start,
                'end_date': start + HOUR} for lease_id, _, start in leases])

    def test_usage_windows_are_the_project_allocations_overlapping(self):
        with db_session.reader.using(self.context) as session:
            windows = fair_use.usage_windows(
                session, 'p', START + 4 * HOUR + HOUR / 2,
                START + 6 * HOUR + HOUR / 2, instances=True)
        self.assertEqual(
            [(START + n * HOUR, START + (n + 1) * HOUR, 'h', 'host-h', 4)
             for n in (4, 5, 6)], sorted(windows))

    def test_stacking_windows_are_those_on_the_lease_hosts(self):
        with db_session.reader.using(self.context) as session:
            windows = fair_use.stacking_windows(
                session, 'p', START + 2 * HOUR, START + 4 * HOUR, 'l3')
        self.assertEqual([START + n * HOUR for n in (2, 3)],
                         sorted(w[0] for w in windows))

    def test_usage_query_skips_the_project_leases_that_have_ended(self):
        # Not every lease the project ever had: a range of the index on
        # (project_id, end_date).
        with db_session.reader.using(self.context) as session:
            statement = fair_use._usage_statement(False).params(
                project_id='p', start=START, end=START + HOUR)
            compiled = statement.compile(
                session.bind, compile_kwargs={'literal_binds': True})
            plan = ' | '.join(row[-1] for row in session.execute(
                sa.text('EXPLAIN QUERY PLAN %s' % compiled)))
        self.assertIn('USING INDEX ix_leases_project_end (project_id=? AND '
                      'end_date>?)', plan)
