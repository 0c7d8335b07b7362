"""physical:device: reservable devices (edge boards, accelerators attached
to no host), their extra capability values, reservations and
allocations."""

import sqlalchemy as sa

from blazar_ext.db.models import base
from blazar_ext.db.models import host as host_models


class Device(base.BASE):
    """A device that can be reserved."""

    __tablename__ = 'devices'
    __table_args__ = (
        sa.Index('uniq_devices0resource_provider_id',
                 'resource_provider_id', unique=True),
    )

    # Time-ordered, as hosts': listed and picked in registration order.
    id = sa.Column(sa.String(36), primary_key=True,
                   default=base.new_time_ordered_uuid)
    name = sa.Column(base.exact_string(255), nullable=False, unique=True)
    device_type = sa.Column(sa.String(255), nullable=False)
    vendor = sa.Column(sa.String(255))
    model = sa.Column(sa.String(255))
    reservable = sa.Column(sa.Boolean, nullable=False, default=True,
                           server_default=sa.true())
    # Out of service: why, and who took it out (the operator).
    reservable_reason = sa.Column(sa.String(255))
    reservable_by = sa.Column(sa.String(64))
    # Its resource provider, if any: the device's traits (revision 0029).
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey(
            'resource_providers.id', ondelete='SET NULL',
            name='fk_devices_resource_provider_id'))


class DeviceExtraCapability(base.BASE):
    """The value one device has for one capability (its name in
    extra_capabilities, resource_type physical:device)."""

    __tablename__ = 'device_extra_capabilities'
    __table_args__ = (
        sa.UniqueConstraint('device_id', 'capability_id',
                            name='uniq_device_extra_capabilities0device0'
                                 'capability'),
        sa.Index('ix_device_extra_capabilities_capability_value',
                 'capability_id', 'capability_value',
                 mysql_length={'capability_value': 255}),
        sa.Index('ix_device_extra_capabilities_capability_number',
                 'capability_id', 'capability_number'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    device_id = sa.Column(
        sa.String(36), sa.ForeignKey('devices.id', ondelete='CASCADE'),
        nullable=False)
    capability_id = sa.Column(
        sa.String(36), sa.ForeignKey('extra_capabilities.id'),
        nullable=False)
    capability_value = sa.Column(sa.Text, nullable=False)
    capability_number = sa.Column(host_models.CAPABILITY_NUMBER)


class DeviceReservation(base.ReservationDetailMixin, base.BASE):
    """A physical:device reservation: how many devices, which."""

    __tablename__ = 'device_reservations'
    UNIQUE_RESERVATION = True

    min = sa.Column(sa.Integer, nullable=False)
    max = sa.Column(sa.Integer, nullable=False)
    resource_properties = sa.Column(sa.Text)
    # Required and forbidden traits of the devices' providers, as hosts'.
    traits = sa.Column(sa.Text)


class DeviceAllocation(base.BASE):
    """A device held by a reservation over the lease's window."""

    __tablename__ = 'device_allocations'
    __table_args__ = (
        sa.Index('ix_device_allocations_device_window',
                 'device_id', 'start_date', 'end_date'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    device_id = sa.Column(
        sa.String(36), sa.ForeignKey('devices.id'), nullable=False)
    reservation_id = sa.Column(
        sa.String(36), sa.ForeignKey('reservations.id', ondelete='CASCADE'),
        nullable=False, index=True)
    start_date = sa.Column(sa.DateTime, nullable=False)
    end_date = sa.Column(sa.DateTime, nullable=False)
