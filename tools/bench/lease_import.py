"""Ready-made leases written straight into the database, for benchmarks.

Not part of the service: the manager is the one writer of reservation
state, and this skips it (and its checks) to seed a database quickly.
Imported by the benchmark scripts beside it.
"""

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from blazar_ext.db.models import lease as models
from blazar_ext.db import session as db_session

HOST_TYPE = 'physical:host'


def bulk_import(context, leases: list) -> int:
    """Insert ready-made PENDING leases with one host each, in bulk.

    For benchmarks that need many leases in place fast: each item
    is {'name', 'project_id', 'start_date', 'end_date', 'host_id'}. No
    selection or overlap check is made; the caller vouches for the data.
    Returns the number of leases inserted.
    """
    lease_rows, res_rows, detail_rows, alloc_rows, event_rows = \
        [], [], [], [], []
    now = timeutils.utcnow()
    for item in leases:
        lease_id = uuidutils.generate_uuid()
        res_id = uuidutils.generate_uuid()
        lease_rows.append({
            'id': lease_id, 'name': item['name'],
            'project_id': item.get('project_id'),
            'user_id': item.get('user_id'), 'status': 'PENDING',
            'degraded': False, 'start_date': item['start_date'],
            'end_date': item['end_date'], 'created_at': now})
        res_rows.append({'id': res_id, 'lease_id': lease_id,
                         'resource_type': HOST_TYPE, 'status': 'pending',
                         'missing_resources': False,
                         'resources_changed': False, 'created_at': now})
        detail_rows.append({'id': uuidutils.generate_uuid(),
                            'reservation_id': res_id, 'count_range': '1-1',
                            'hypervisor_properties': '',
                            'resource_properties': '',
                            'before_end': 'default', 'created_at': now})
        alloc_rows.append({'id': uuidutils.generate_uuid(),
                           'compute_host_id': item['host_id'],
                           'reservation_id': res_id,
                           'start_date': item['start_date'],
                           'end_date': item['end_date'], 'created_at': now})
        for event_type, time in (('start_lease', item['start_date']),
                                 ('before_end_lease', item['start_date']),
                                 ('end_lease', item['end_date'])):
            event_rows.append({'id': uuidutils.generate_uuid(),
                               'lease_id': lease_id,
                               'event_type': event_type, 'time': time,
                               'status': 'UNDONE', 'created_at': now})
    with db_session.writer.using(context) as session:
        for model, rows in ((models.Lease, lease_rows),
                            (models.Reservation, res_rows),
                            (models.ComputeHostReservation, detail_rows),
                            (models.ComputeHostAllocation, alloc_rows),
                            (models.Event, event_rows)):
            if rows:
                session.execute(sa.insert(model), rows)
    return len(lease_rows)
