"""Each resource provider's capacity for instance reservations, kept in
step with its inventories.

Every write of VCPU, MEMORY_MB or DISK_GB inventory calls ``refresh`` for
the providers it touched, inside its own transaction; the packing query
(db/api/instance) then reads one row per host.
"""

import sqlalchemy as sa

from blazar_ext.db.models import instance as models
from blazar_ext.db.models import placement as placement_models

# (resource class, capacity column)
RESOURCES = (('VCPU', 'vcpus'), ('MEMORY_MB', 'memory_mb'),
             ('DISK_GB', 'disk_gb'))
CHUNK = 500


def usable(total: int, reserved: int, allocation_ratio: float) -> int:
    """What allocations may take from one inventory, as Placement counts
    it: (total - reserved) x allocation_ratio, rounded down."""
    return int((total - reserved) * allocation_ratio)


def refresh(session, provider_ids) -> None:
    """Recompute the capacities of ``provider_ids`` from their
    inventories (in the caller's transaction)."""
    inv = placement_models.Inventory
    rc = placement_models.ResourceClass
    table = models.InstanceCapacity.__table__
    columns = dict(RESOURCES)
    ids = sorted(set(provider_ids))
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i:i + CHUNK]
        rows = {}
        for pid, name, total, reserved, ratio in session.execute(
                sa.select(inv.resource_provider_id, rc.name, inv.total,
                          inv.reserved, inv.allocation_ratio)
                .join(rc, rc.id == inv.resource_class_id)
                .where(inv.resource_provider_id.in_(chunk),
                       rc.name.in_(list(columns)))):
            row = rows.setdefault(pid, {'resource_provider_id': pid,
                                        'vcpus': 0, 'memory_mb': 0,
                                        'disk_gb': 0})
            row[columns[name]] = usable(total, reserved, ratio)
        session.execute(sa.delete(table).where(
            table.c.resource_provider_id.in_(chunk)))
        if rows:
            session.execute(sa.insert(table), list(rows.values()))
