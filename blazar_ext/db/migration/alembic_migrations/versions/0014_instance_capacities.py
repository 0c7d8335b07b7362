"""Instance capacity per resource provider, kept beside its inventories,
and indexes to find the hosts with allocations overlapping a window.

Packing a virtual:instance reservation used to aggregate every host's
inventories and every allocation on each request; it now reads one
capacity row per host and only the allocations overlapping the lease.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'

# As db/api/instance_capacity (a migration does not import the code it
# may outlive).
RESOURCES = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
             'DISK_GB': 'disk_gb'}


def upgrade() -> None:
    capacities = op.create_table(
        'instance_capacities',
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id', ondelete='CASCADE'),
                  primary_key=True, autoincrement=False),
        sa.Column('vcpus', sa.BigInteger, nullable=False),
        sa.Column('memory_mb', sa.BigInteger, nullable=False),
        sa.Column('disk_gb', sa.BigInteger, nullable=False),
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    # The hosts with load, or held whole, over a window: from the index
    # alone, without visiting each host.
    op.create_index('ix_instance_allocations_window', 'instance_allocations',
                    ['start_date', 'end_date', 'compute_host_id',
                     'reservation_id'])
    op.create_index('ix_computehost_allocations_window',
                    'computehost_allocations',
                    ['start_date', 'end_date', 'compute_host_id'])

    inventories = sa.table(
        'inventories', sa.column('resource_provider_id'),
        sa.column('resource_class_id'), sa.column('total'),
        sa.column('reserved'), sa.column('allocation_ratio'))
    classes = sa.table('resource_classes', sa.column('id'),
                       sa.column('name'))
    rows = {}
    for pid, name, total, reserved, ratio in op.get_bind().execute(
            sa.select(inventories.c.resource_provider_id, classes.c.name,
                      inventories.c.total, inventories.c.reserved,
                      inventories.c.allocation_ratio)
            .join(classes, classes.c.id == inventories.c.resource_class_id)
            .where(classes.c.name.in_(list(RESOURCES)))):
        row = rows.setdefault(pid, {'resource_provider_id': pid,
                                    'vcpus': 0, 'memory_mb': 0,
                                    'disk_gb': 0})
        row[RESOURCES[name]] = int((total - reserved) * ratio)
    values = list(rows.values())
    for i in range(0, len(values), 5000):
        op.bulk_insert(capacities, values[i:i + 5000])
