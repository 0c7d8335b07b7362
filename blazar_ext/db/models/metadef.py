"""Metadata definitions catalog (Glance-compatible metadefs)."""

import sqlalchemy as sa

from blazar_ext.db.models import base


class MetadefNamespace(base.BASE):
    """A named group of property, object and tag definitions."""

    __tablename__ = 'metadef_namespaces'

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    namespace = sa.Column(base.exact_string(80), nullable=False,
                          unique=True)
    display_name = sa.Column(sa.String(80))
    description = sa.Column(sa.Text)
    visibility = sa.Column(sa.String(32), nullable=False,
                           default='private', server_default='private')
    protected = sa.Column(sa.Boolean, nullable=False, default=False,
                          server_default=sa.false())
    owner = sa.Column(base.exact_string(255), nullable=False, index=True)


class MetadefProperty(base.BASE):
    """A property definition; its JSON schema (with operators) is a blob."""

    __tablename__ = 'metadef_properties'
    __table_args__ = (
        sa.UniqueConstraint('namespace_id', 'name',
                            name='uniq_metadef_properties0namespace0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    namespace_id = sa.Column(
        sa.Integer, sa.ForeignKey('metadef_namespaces.id',
                                  ondelete='CASCADE'), nullable=False)
    name = sa.Column(base.exact_string(255), nullable=False)
    json_schema = sa.Column(sa.Text, nullable=False)


class MetadefObject(base.BASE):
    """An object definition: a named set of property definitions."""

    __tablename__ = 'metadef_objects'
    __table_args__ = (
        sa.UniqueConstraint('namespace_id', 'name',
                            name='uniq_metadef_objects0namespace0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    namespace_id = sa.Column(
        sa.Integer, sa.ForeignKey('metadef_namespaces.id',
                                  ondelete='CASCADE'), nullable=False)
    name = sa.Column(base.exact_string(255), nullable=False)
    description = sa.Column(sa.Text)
    required = sa.Column(sa.Text)
    json_schema = sa.Column(sa.Text, nullable=False)


class MetadefTag(base.BASE):
    """A tag definition (a bare name) in a namespace."""

    __tablename__ = 'metadef_tags'
    __table_args__ = (
        sa.UniqueConstraint('namespace_id', 'name',
                            name='uniq_metadef_tags0namespace0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    namespace_id = sa.Column(
        sa.Integer, sa.ForeignKey('metadef_namespaces.id',
                                  ondelete='CASCADE'), nullable=False)
    name = sa.Column(base.exact_string(255), nullable=False)


class MetadefResourceType(base.BASE):
    """A kind of resource namespaces may apply to (e.g. OS::Blazar::Host)."""

    __tablename__ = 'metadef_resource_types'

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(base.exact_string(80), nullable=False, unique=True)
    protected = sa.Column(sa.Boolean, nullable=False, default=False,
                          server_default=sa.false())


class MetadefNamespaceResourceType(base.BASE):
    """Association of a namespace with a resource type, with its prefix."""

    __tablename__ = 'metadef_namespace_resource_types'

    resource_type_id = sa.Column(
        sa.Integer, sa.ForeignKey('metadef_resource_types.id',
                                  ondelete='CASCADE'), primary_key=True)
    namespace_id = sa.Column(
        sa.Integer, sa.ForeignKey('metadef_namespaces.id',
                                  ondelete='CASCADE'), primary_key=True)
    properties_target = sa.Column(sa.String(80))
    prefix = sa.Column(sa.String(80))
