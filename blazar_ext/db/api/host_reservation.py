"""physical:host reservation details (computehost_reservations) and the
hosts held (computehost_allocations).

Called by the physical:host plugin inside the manager's transaction.
"""

from blazar_ext.db.api import reservation_detail
from blazar_ext.db.models import lease as models


class HostDetails(reservation_detail.DetailTable):
    """``min`` and ``max`` are stored as upstream Blazar's count_range."""

    def to_row(self, spec: dict) -> dict:
        return {'count_range': '%d-%d' % (spec['min'], spec['max']),
                'hypervisor_properties': spec.get('hypervisor_properties',
                                                  ''),
                'resource_properties': spec.get('resource_properties', ''),
                'before_end': spec.get('before_end', 'default'),
                'traits': spec.get('traits') or None}

    def from_row(self, row: dict) -> dict:
        low, _sep, high = (row['count_range'] or '').partition('-')
        return {'min': int(low) if low.isdigit() else None,
                'max': int(high) if high.isdigit() else None,
                'hypervisor_properties': row['hypervisor_properties'] or '',
                'resource_properties': row['resource_properties'] or '',
                'before_end': row['before_end'] or 'default',
                'traits': row['traits'] or ''}


DETAILS = HostDetails(models.ComputeHostReservation,
                      models.ComputeHostAllocation, 'compute_host_id')
