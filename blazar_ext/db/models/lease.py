"""Leases, their reservations, host allocations and lifecycle events."""

import sqlalchemy as sa

from blazar_ext.db.models import base
from blazar_ext.db.models import epoch


class Lease(base.BASE):
    __tablename__ = 'leases'
    __table_args__ = (
        # A project's leases over a window (fair use; revision 0027).
        sa.Index('ix_leases_project_end', 'project_id', 'end_date'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    name = sa.Column(sa.String(80), nullable=False)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    start_date = sa.Column(sa.DateTime, nullable=False)
    end_date = sa.Column(sa.DateTime, nullable=False)
    trust_id = sa.Column(sa.String(36))
    status = sa.Column(sa.String(255))
    degraded = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false(), index=True)


class Reservation(base.BASE):
    __tablename__ = 'reservations'

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    lease_id = sa.Column(sa.String(36),
                         sa.ForeignKey('leases.id', ondelete='CASCADE'),
                         nullable=False, index=True)
    resource_id = sa.Column(sa.String(36))
    resource_type = sa.Column(sa.String(66), nullable=False)
    status = sa.Column(sa.String(13), nullable=False)
    missing_resources = sa.Column(sa.Boolean, nullable=False, default=False,
                                  server_default=sa.false(), index=True)
    resources_changed = sa.Column(sa.Boolean, nullable=False, default=False,
                                  server_default=sa.false())


class ComputeHostReservation(base.ReservationDetailMixin, base.BASE):
    __tablename__ = 'computehost_reservations'

    aggregate_id = sa.Column(sa.Integer)
    resource_properties = sa.Column(sa.Text)
    count_range = sa.Column(sa.String(36))
    hypervisor_properties = sa.Column(sa.Text)
    before_end = sa.Column(sa.String(36))
    # Placement ``required`` syntax; JSON list text for several values.
    traits = sa.Column(sa.Text)


class ComputeHostAllocation(base.BASE):
    __tablename__ = 'computehost_allocations'
    __table_args__ = (
        # The hot path asks "does this host have an allocation overlapping
        # [start, end]?"; the lease window is copied here (revision 0005)
        # so that question needs no join to leases.
        # With start_us, end_us (revision 0030) the slot search's read of
        # every host's window can be index-only on MariaDB and
        # PostgreSQL; SQLite 3.40 still visits the row for a generated
        # column, but reads the stored integer.
        sa.Index('ix_computehost_allocations_host_window',
                 'compute_host_id', 'start_date', 'end_date', 'start_us',
                 'end_us'),
        # The hosts held over a window, found without visiting each host
        # (instance packing asks; revision 0014).
        sa.Index('ix_computehost_allocations_window',
                 'start_date', 'end_date', 'compute_host_id'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    compute_host_id = sa.Column(
        sa.String(36), sa.ForeignKey('computehosts.id'), nullable=False,
        index=True)
    reservation_id = sa.Column(
        sa.String(36), sa.ForeignKey('reservations.id', ondelete='CASCADE'),
        nullable=False, index=True)
    start_date = sa.Column(sa.DateTime)
    end_date = sa.Column(sa.DateTime)
    # The same dates in epoch microseconds, kept by the database
    # (revision 0030): the slot search reads them without converting.
    start_us = epoch.stored(start_date)
    end_us = epoch.stored(end_date)


class Event(base.BASE):
    __tablename__ = 'events'
    __table_args__ = (
        sa.Index('ix_events_status_time', 'status', 'time'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    lease_id = sa.Column(sa.String(36),
                         sa.ForeignKey('leases.id', ondelete='CASCADE'),
                         nullable=False, index=True)
    event_type = sa.Column(sa.String(66), nullable=False)
    time = sa.Column(sa.DateTime, nullable=False)
    status = sa.Column(sa.String(13), nullable=False)
