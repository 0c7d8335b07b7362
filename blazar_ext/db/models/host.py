"""Reservable hosts and their extra capabilities (normalized)."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from blazar_ext.db.models import base

# Capability names are case-sensitive everywhere: MySQL's default collation
# would fold "GPU" and "gpu" into one name.
CAPABILITY_NAME = sa.String(255).with_variant(
    mysql.VARCHAR(255, charset='utf8mb4', collation='utf8mb4_bin'),
    'mysql', 'mariadb')

# Wide enough for every number the property language accepts (32
# characters); MySQL's bare DECIMAL would be DECIMAL(10, 0).
CAPABILITY_NUMBER = sa.Numeric(65, 30)


class ComputeHost(base.BASE):
    """A host that can be reserved."""

    __tablename__ = 'computehosts'
    __table_args__ = (
        sa.Index('uniq_computehosts0resource_provider_id',
                 'resource_provider_id', unique=True),
    )

    # A string, as upstream Blazar's: new hosts get a UUID, hosts numbered
    # before revision 0010 keep their number as a string. Time-ordered
    # UUIDs keep what the numbers gave: hosts listed, and picked among
    # equals, in the order they were registered.
    id = sa.Column(sa.String(36), primary_key=True,
                   default=base.new_time_ordered_uuid)
    vcpus = sa.Column(sa.Integer, nullable=False)
    cpu_info = sa.Column(sa.Text, nullable=False)
    hypervisor_type = sa.Column(sa.String(255), nullable=False)
    hypervisor_version = sa.Column(sa.Integer, nullable=False)
    hypervisor_hostname = sa.Column(sa.String(255), nullable=False,
                                    unique=True)
    service_name = sa.Column(sa.String(255))
    memory_mb = sa.Column(sa.Integer, nullable=False)
    local_gb = sa.Column(sa.Integer, nullable=False)
    status = sa.Column(sa.String(13))
    availability_zone = sa.Column(sa.String(255))
    trust_id = sa.Column(sa.String(36))
    reservable = sa.Column(sa.Boolean, nullable=False, default=True,
                           server_default=sa.true())
    disabled = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())
    # Out of service (reservable false): why, and who took it out: the
    # operator, or the health source that found it down (revision 0007).
    reservable_reason = sa.Column(sa.String(255))
    reservable_by = sa.Column(sa.String(64))
    # The manager checking the host's health and when it claimed it.
    health_checked_at = sa.Column(sa.DateTime)
    health_checker = sa.Column(sa.String(255))
    # The host's resource provider (its inventory and traits, revision 0006).
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey(
            'resource_providers.id',
            name='fk_computehosts_resource_provider_id'))


class ExtraCapability(base.BASE):
    """A capability name known for a resource type, public or private."""

    __tablename__ = 'extra_capabilities'
    __table_args__ = (
        sa.UniqueConstraint('resource_type', 'capability_name',
                            name='uniq_extra_capabilities0type0name'),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    resource_type = sa.Column(sa.String(255), nullable=False)
    capability_name = sa.Column(CAPABILITY_NAME, nullable=False)
    private = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())


class ExtraCapabilityValue(base.BASE):
    """A distinct value of a capability and how many resources have it.

    Properties discovery reads this small table instead of grouping every
    value row (revision 0012). db.api.capability.count_values keeps it, in
    the transaction of each write to a capability value table. One row per
    (capability, value), by a unique constraint on the value's digest
    (revision 0015): a TEXT value cannot be a whole unique key on MySQL.
    """

    __tablename__ = 'extra_capability_values'
    __table_args__ = (
        sa.UniqueConstraint(
            'capability_id', 'value_digest',
            name='uniq_extra_capability_values0capability_id0value_digest'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    capability_id = sa.Column(
        sa.String(36), sa.ForeignKey('extra_capabilities.id',
                                     ondelete='CASCADE'),
        nullable=False)
    capability_value = sa.Column(sa.Text, nullable=False)
    # SHA-256 of the UTF-8 value, in hex (db.api.capability.value_digest).
    value_digest = sa.Column(sa.String(64), nullable=False)
    resources = sa.Column(sa.Integer, nullable=False)


class ComputeHostExtraCapability(base.BASE):
    """The value one host has for one capability."""

    __tablename__ = 'computehost_extra_capabilities'
    __table_args__ = (
        sa.UniqueConstraint('computehost_id', 'capability_id',
                            name='uniq_computehost_extra_capabilities0host0'
                                 'capability'),
        # The hosts with a value from the index alone (revision 0031).
        sa.Index('ix_computehost_extra_capabilities_value_host',
                 'capability_id', 'capability_value', 'computehost_id',
                 mysql_length={'capability_value': 255}),
        # Numeric comparisons ([">=", "$ram_gb", "64"]) scan this index
        # instead of casting every value of the capability (revision 0008;
        # with the host, 0031).
        sa.Index('ix_computehost_extra_capabilities_number_host',
                 'capability_id', 'capability_number', 'computehost_id'),
        # A host's values from the index alone (SQLite, PostgreSQL; MySQL
        # indexes a prefix of a TEXT): the host list reads every value
        # of every host (revision 0016).
        sa.Index('ix_computehost_extra_capabilities_host_values',
                 'computehost_id', 'capability_id', 'capability_value',
                 mysql_length={'capability_value': 255}),
    )

    id = sa.Column(sa.String(36), primary_key=True, default=base.new_uuid)
    computehost_id = sa.Column(
        sa.String(36), sa.ForeignKey('computehosts.id', ondelete='CASCADE'),
        nullable=False)
    capability_id = sa.Column(
        sa.String(36), sa.ForeignKey('extra_capabilities.id'),
        nullable=False)
    capability_value = sa.Column(sa.Text, nullable=False)
    # The value as a number where it is one (query.language.is_number),
    # else NULL; written with every value.
    capability_number = sa.Column(CAPABILITY_NUMBER)
