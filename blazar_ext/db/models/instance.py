"""virtual:instance reservations and the host slots they hold."""

import sqlalchemy as sa

from blazar_ext.db.models import base


class InstanceReservation(base.ReservationDetailMixin, base.BASE):
    """The size and placement rules of one virtual:instance reservation."""

    __tablename__ = 'instance_reservations'
    UNIQUE_RESERVATION = True

    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    disk_gb = sa.Column(sa.Integer, nullable=False)
    amount = sa.Column(sa.Integer, nullable=False)
    # True: all on one host; False: each on its own host; NULL: any.
    affinity = sa.Column(sa.Boolean, nullable=True)
    resource_properties = sa.Column(sa.Text)
    # flavor:instance: the flavor the size came from; virtual:instance
    # imported from upstream Blazar: the flavor Blazar made for it.
    flavor_id = sa.Column(sa.String(255))
    # The server group the instances go in, where one was made outside
    # blazar_ext (upstream Blazar's, kept by import-blazar).
    server_group_id = sa.Column(sa.String(36))


class InstanceAllocation(base.BASE):
    """``slots`` instances of a reservation on one host for its window."""

    __tablename__ = 'instance_allocations'
    __table_args__ = (
        # The load of a host over a window: its allocations overlapping it.
        sa.Index('ix_instance_allocations_host_window',
                 'compute_host_id', 'start_date', 'end_date'),
        # The hosts with any load over a window, found without visiting
        # each host: the index alone answers (revision 0014).
        sa.Index('ix_instance_allocations_window',
                 'start_date', 'end_date', 'compute_host_id',
                 'reservation_id'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    compute_host_id = sa.Column(
        sa.String(36), sa.ForeignKey('computehosts.id'), nullable=False)
    reservation_id = sa.Column(
        sa.String(36), sa.ForeignKey('reservations.id', ondelete='CASCADE'),
        nullable=False, index=True)
    slots = sa.Column(sa.Integer, nullable=False)
    # The reservation's size, copied so a host's load needs no join.
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    disk_gb = sa.Column(sa.Integer, nullable=False)
    start_date = sa.Column(sa.DateTime, nullable=False)
    end_date = sa.Column(sa.DateTime, nullable=False)


class InstanceCapacity(base.BASE):
    """What instance reservations may take from one resource provider:
    (total - reserved) x allocation_ratio of its VCPU, MEMORY_MB and
    DISK_GB inventories, rounded down (0 for a class it lacks).

    Derived from ``inventories`` and rewritten with them in the same
    transaction (db/api/instance_capacity.refresh), so that packing reads
    one row per host instead of aggregating its inventories each time.
    A provider with none of the three classes has no row.
    """

    __tablename__ = 'instance_capacities'

    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id',
                                  ondelete='CASCADE'),
        primary_key=True, autoincrement=False)
    vcpus = sa.Column(sa.BigInteger, nullable=False)
    memory_mb = sa.Column(sa.BigInteger, nullable=False)
    disk_gb = sa.Column(sa.BigInteger, nullable=False)
