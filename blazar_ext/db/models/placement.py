"""Placement-compatible inventory: resource providers, resource classes,
inventories, consumers and allocations, traits and aggregates."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from blazar_ext.db.models import base

# Double precision everywhere: MySQL's FLOAT is single precision, where
# 0.7 is 0.699999988 and a capacity test in SQL comes out short.
ALLOCATION_RATIO = sa.Float().with_variant(mysql.DOUBLE(asdecimal=False),
                                           'mysql', 'mariadb')

_exact = base.exact_string


class ResourceProvider(base.BASE):
    """Something that provides resources; may sit in a tree."""

    __tablename__ = 'resource_providers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.Index('ix_resource_providers_root_provider_id',
                 'root_provider_id'),
        sa.Index('ix_resource_providers_parent_provider_id',
                 'parent_provider_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(_exact(36), nullable=False)
    name = sa.Column(_exact(200), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    root_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'))
    parent_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'))


class ResourceClass(base.BASE):
    """A kind of quantitative resource: standard or CUSTOM_."""

    __tablename__ = 'resource_classes'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(_exact(255), nullable=False)


class Inventory(base.BASE):
    """How much of one class a provider has, and how it may be consumed."""

    __tablename__ = 'inventories'
    __table_args__ = (
        sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                            name='uniq_inventories0provider0class'),
        sa.Index('ix_inventories_resource_class_id', 'resource_class_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    resource_class_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_classes.id'), nullable=False)
    total = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False)
    min_unit = sa.Column(sa.Integer, nullable=False)
    max_unit = sa.Column(sa.Integer, nullable=False)
    step_size = sa.Column(sa.Integer, nullable=False)
    allocation_ratio = sa.Column(ALLOCATION_RATIO, nullable=False)


class Consumer(base.BASE):
    """Whoever holds allocations, with its own generation."""

    __tablename__ = 'consumers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        sa.Index('ix_consumers_project_id_user_id', 'project_id',
                 'user_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(_exact(36), nullable=False)
    project_id = sa.Column(_exact(255), nullable=False)
    user_id = sa.Column(_exact(255), nullable=False)
    consumer_type = sa.Column(_exact(255))
    generation = sa.Column(sa.Integer, nullable=False, default=0)


class Allocation(base.BASE):
    """An amount of one class a consumer uses from one provider."""

    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('ix_allocations_provider_class', 'resource_provider_id',
                 'resource_class_id'),
        sa.Index('ix_allocations_consumer_id', 'consumer_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    consumer_id = sa.Column(_exact(36), nullable=False)
    resource_class_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_classes.id'), nullable=False)
    used = sa.Column(sa.Integer, nullable=False)


class Trait(base.BASE):
    """A qualitative characteristic: standard (os-traits) or CUSTOM_."""

    __tablename__ = 'traits'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_traits0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(_exact(255), nullable=False)


class ResourceProviderTrait(base.BASE):
    """A trait a provider has."""

    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        sa.Index('ix_resource_provider_traits_trait_provider', 'trait_id',
                 'resource_provider_id'),
    )

    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'),
        primary_key=True)
    trait_id = sa.Column(sa.Integer, sa.ForeignKey('traits.id'),
                         primary_key=True)


class PlacementAggregate(base.BASE):
    """An aggregate, known only by its uuid."""

    __tablename__ = 'placement_aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(_exact(36), nullable=False)


class ResourceProviderAggregate(base.BASE):
    """A provider's membership of an aggregate."""

    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        sa.Index('ix_resource_provider_aggregates_aggregate_id',
                 'aggregate_id'),
    )

    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'),
        primary_key=True)
    aggregate_id = sa.Column(
        sa.Integer, sa.ForeignKey('placement_aggregates.id'),
        primary_key=True)


class ResourceProviderSummary(base.BASE):
    """A provider's inventories ('class id:capacity:used,...') and trait
    ids ('id,...') as the candidates query answers them, NULL for none.

    Written by database triggers only (migration 0021), whenever a row of
    the provider's inventories, allocations or traits changes.
    """

    __tablename__ = 'resource_provider_summaries'
    # Derived data the triggers write: no timestamps to keep.
    created_at = None
    updated_at = None

    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id',
                                  ondelete='CASCADE'),
        primary_key=True, autoincrement=False)
    inventories = sa.Column(sa.Text)
    traits = sa.Column(sa.Text)
