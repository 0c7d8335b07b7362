"""virtual:instance reservations and the host slots they hold."""

import sqlalchemy as sa

from blazar_ext.db.models import base


class InstanceReservation(base.BASE):
    """The size and placement rules of one virtual:instance reservation."""

    __tablename__ = 'instance_reservations'

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    reservation_id = sa.Column(
        sa.String(36), sa.ForeignKey('reservations.id', ondelete='CASCADE'),
        nullable=False, unique=True)
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
