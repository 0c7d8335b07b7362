"""Lease series (recurring leases) and their occurrences."""

import sqlalchemy as sa

from blazar_ext.db.models import base


class LeaseSeries(base.BASE):
    __tablename__ = 'lease_series'

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    name = sa.Column(sa.String(80), nullable=False)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255), index=True)
    recurrence = sa.Column(sa.String(255), nullable=False)
    timezone = sa.Column(sa.String(64), nullable=False)
    # The first occurrence's local wall-clock window (the rule's DTSTART).
    local_start = sa.Column(sa.DateTime, nullable=False)
    local_end = sa.Column(sa.DateTime, nullable=False)
    # The reservations each occurrence asks for (JSON list), as given.
    request = sa.Column(sa.Text, nullable=False)
    booking = sa.Column(sa.String(16), nullable=False)
    status = sa.Column(sa.String(16), nullable=False)
    # Occurrences starting before it have been booked (or skipped).
    booked_until = sa.Column(sa.DateTime, nullable=False)
    # A manager extending the series holds it until then.
    claimed_until = sa.Column(sa.DateTime)


class SeriesOccurrence(base.BASE):
    __tablename__ = 'lease_series_occurrences'
    __table_args__ = (
        # One row per date: no occurrence is ever booked twice.
        sa.UniqueConstraint('series_id', 'start_date',
                            name='uniq_lease_series_occurrences0date'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    series_id = sa.Column(sa.String(36),
                          sa.ForeignKey('lease_series.id',
                                        ondelete='CASCADE'),
                          nullable=False, index=True)
    lease_id = sa.Column(sa.String(36),
                         sa.ForeignKey('leases.id', ondelete='SET NULL'),
                         index=True)
    start_date = sa.Column(sa.DateTime, nullable=False)
    end_date = sa.Column(sa.DateTime, nullable=False)
    # booked, skipped (by the owner), unavailable (nothing fitted),
    # cancelled (the series was deleted before it).
    status = sa.Column(sa.String(16), nullable=False)
