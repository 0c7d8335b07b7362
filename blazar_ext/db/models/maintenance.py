"""Maintenance windows of hosts and floating IPs."""

import sqlalchemy as sa

from blazar_ext.db.models import base


class MaintenanceWindow(base.BASE):
    __tablename__ = 'maintenance_windows'
    __table_args__ = (
        sa.Index('ix_maintenance_windows_status_start', 'status',
                 'start_date'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    # One resource column per type (db/api/maintenance.py COLUMNS); the
    # others are NULL.
    compute_host_id = sa.Column(
        sa.String(36), sa.ForeignKey('computehosts.id', ondelete='CASCADE'),
        nullable=True, index=True)
    floatingip_id = sa.Column(
        sa.String(36),
        # No cascade (migration 0026): floatingip_delete deletes them.
        sa.ForeignKey('floatingips.id',
                      name='fk_maintenance_windows_floatingip_id'),
        nullable=True, index=True)
    start_date = sa.Column(sa.DateTime, nullable=False)
    end_date = sa.Column(sa.DateTime, nullable=False)
    reason = sa.Column(sa.String(255))
    # scheduled, active (host out of service), done, cancelled.
    status = sa.Column(sa.String(16), nullable=False)
    # The lease that holds the host for the window, so that nothing new
    # is booked on it.
    hold_lease_id = sa.Column(sa.String(36),
                              sa.ForeignKey('leases.id', ondelete='SET NULL'))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    claimed_until = sa.Column(sa.DateTime)
