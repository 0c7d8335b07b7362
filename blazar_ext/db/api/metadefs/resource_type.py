"""Metadefs resource types and their associations with namespaces.

``catalog_properties`` is what the properties-discovery API reads: the
property definitions the catalog gives for one resource type.
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api.metadefs import base
from blazar_ext.db.api import retry
from blazar_ext.db import driver_read
from blazar_ext.db.models import metadef as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


def _to_dict(row: dict) -> dict:
    return {'name': row['name'], 'created_at': row['created_at'],
            'updated_at': row['updated_at'] or row['created_at']}


# Built once, run on the session's connection: its columns, not ORM
# objects, are shown.
_ALL = (sa.select(models.MetadefResourceType.__table__)
        .order_by(models.MetadefResourceType.id))


def resource_type_list(context) -> list:
    """Every resource type, oldest first: Glance reads them unsorted, in
    the order of their rows."""
    with db_session.reader.using(context) as session:
        return [_to_dict(row)
                for row in driver_read.dicts(session.connection(), _ALL)]


def _get_or_create(session, name: str):
    query = sa.select(models.MetadefResourceType).where(
        models.MetadefResourceType.name == name)
    rt = session.scalars(query).first()
    if rt is None:
        try:
            # A savepoint, so losing a race to create it keeps the
            # transaction usable and the winner's row is read instead.
            with session.begin_nested():
                rt = models.MetadefResourceType(name=name, protected=False)
                session.add(rt)
        except db_exc.DBDuplicateEntry:
            # A locking read: on MySQL a plain one reads this
            # transaction's snapshot, taken before the winner committed.
            rt = session.scalars(query.with_for_update(read=True)).one()
    return rt


def association_list(context, namespace: str) -> list:
    """The namespace's resource type associations."""
    with db_session.reader.using(context) as session:
        ns = base.get_model(session, namespace)
        return base.associations_of(session, [ns.id])[ns.id]


@retry.on_deadlock
def associate(context, namespace: str, values: dict) -> dict:
    """Associate a resource type (created if unknown) with the namespace."""
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        rt = _get_or_create(session, values['name'])
        assoc = models.MetadefNamespaceResourceType
        if session.get(assoc, (rt.id, ns.id)) is not None:
            raise exceptions.Conflict(
                message='Resource type %s is already associated with '
                        'namespace %s.' % (values['name'], namespace))
        row = assoc(resource_type_id=rt.id, namespace_id=ns.id,
                    prefix=values.get('prefix'),
                    properties_target=values.get('properties_target'))
        session.add(row)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            # A concurrent request made the same association.
            raise exceptions.Conflict(
                message='Resource type %s is already associated with '
                        'namespace %s.' % (values['name'], namespace))
        return base.association_dict(row, rt.name)


@retry.on_deadlock
def deassociate(context, namespace: str, name: str) -> None:
    """Remove an association; refused in a protected namespace."""
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        rt = session.scalars(sa.select(models.MetadefResourceType).where(
            models.MetadefResourceType.name == name)).first()
        row = None
        if rt is not None:
            row = session.get(models.MetadefNamespaceResourceType,
                              (rt.id, ns.id))
        if row is None:
            raise exceptions.NotFound(
                message='Resource type %s is not associated with namespace '
                        '%s.' % (name, namespace))
        base.check_unprotected(ns, 'its resource type associations')
        session.delete(row)


def _catalog_query(visible_only: bool) -> sa.Select:
    """Property definitions of the namespaces associated with the bound
    ``resource_type`` (only public ones and ``visible_to``'s if
    ``visible_only``)."""
    ns = models.MetadefNamespace
    assoc = models.MetadefNamespaceResourceType
    rt = models.MetadefResourceType
    prop = models.MetadefProperty
    query = (sa.select(ns.namespace, assoc.prefix, prop.name,
                       prop.json_schema)
             .join(assoc, assoc.namespace_id == ns.id)
             .join(rt, rt.id == assoc.resource_type_id)
             .join(prop, prop.namespace_id == ns.id)
             .where(rt.name == sa.bindparam('resource_type'))
             .order_by(ns.namespace, prop.name))
    if visible_only:
        query = query.where(sa.or_(ns.visibility == 'public',
                                   ns.owner == sa.bindparam('visible_to')))
    return query


# Built once: on a properties listing, building it cost as much as
# running it.
_CATALOG = {visible: _catalog_query(visible) for visible in (False, True)}


def catalog_properties(context, resource_type: str,
                       visible_to: str | None = None) -> dict:
    """Property definitions the catalog gives for ``resource_type``.

    ``resource_type`` is a catalog name (OS::Blazar::Host): a reservation
    resource type's plugin names its own (``catalog_resource_type``, see
    blazar_ext.plugins.loader.Plugins.property_source).

    Returns {prefixed name: {'name', 'title', 'type', 'operators',
    'namespace'}} over every namespace associated with the resource type
    (``visible_to``: public namespaces and that project's only; None: all).
    ``operators`` is None when the definition gives none; for an array the
    type is 'array' and ``items_type`` names the element type.
    """
    query = _CATALOG[visible_to is not None]
    with db_session.reader.using(context) as session:
        _keys, rows = driver_read.rows(
            session.connection(), query,
            {'resource_type': resource_type, 'visible_to': visible_to})
        out = {}
        for namespace, prefix, name, blob in rows:
            schema = base.load_json(blob) or {}
            full = (prefix or '') + name
            entry = {'name': full, 'title': schema.get('title'),
                     'type': schema.get('type'),
                     'operators': schema.get('operators'),
                     'namespace': namespace}
            if isinstance(schema.get('items'), dict):
                entry['items_type'] = schema['items'].get('type')
            out.setdefault(full, entry)
        return out
