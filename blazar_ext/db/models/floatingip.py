"""Reservable floating IPs, their reservations and allocations."""

import sqlalchemy as sa

from blazar_ext.db.models import base


class FloatingIP(base.BASE):
    """A floating IP address an operator made reservable."""

    __tablename__ = 'floatingips'
    __table_args__ = (
        sa.UniqueConstraint('floating_network_id', 'floating_ip_address',
                            name='uniq_floatingips0network0address'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    floating_network_id = sa.Column(sa.String(255), nullable=False)
    subnet_id = sa.Column(sa.String(255))
    floating_ip_address = sa.Column(sa.String(255), nullable=False)
    reservable = sa.Column(sa.Boolean, nullable=False, default=True,
                           server_default=sa.true())


class FloatingIPReservation(base.ReservationDetailMixin, base.BASE):
    __tablename__ = 'floatingip_reservations'

    network_id = sa.Column(sa.String(255), nullable=False)
    amount = sa.Column(sa.Integer, nullable=False)


class RequiredFloatingIP(base.BASE):
    """An address a floating IP reservation asked for by name."""

    __tablename__ = 'required_floatingips'

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    floatingip_reservation_id = sa.Column(
        sa.String(36),
        sa.ForeignKey('floatingip_reservations.id', ondelete='CASCADE'),
        nullable=False, index=True)
    address = sa.Column(sa.String(255), nullable=False)


class FloatingIPAllocation(base.BASE):
    __tablename__ = 'floatingip_allocations'
    __table_args__ = (
        sa.Index('ix_floatingip_allocations_fip_window',
                 'floatingip_id', 'start_date', 'end_date'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    floatingip_id = sa.Column(
        sa.String(36), sa.ForeignKey('floatingips.id'), nullable=False)
    reservation_id = sa.Column(
        sa.String(36), sa.ForeignKey('reservations.id', ondelete='CASCADE'),
        nullable=False, index=True)
    start_date = sa.Column(sa.DateTime)
    end_date = sa.Column(sa.DateTime)
