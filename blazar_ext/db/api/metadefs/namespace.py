"""Metadefs namespaces, with their embedded definitions on create/show."""

import functools

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api.metadefs import base
from blazar_ext.db.api.metadefs import object as metadef_object
from blazar_ext.db.api.metadefs import property as metadef_property
from blazar_ext.db.api.metadefs import resource_type as metadef_resource_type
from blazar_ext.db.api.metadefs import tag as metadef_tag
from blazar_ext.db.api import retry
from blazar_ext.db import driver_read
from blazar_ext.db.models import metadef as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

SORT_KEYS = ('namespace', 'display_name', 'created_at', 'updated_at')
NAMESPACE_FIELDS = ('namespace', 'display_name', 'description', 'visibility',
                    'protected', 'owner')


def _to_dict(row) -> dict:
    out = {f: getattr(row, f) for f in NAMESPACE_FIELDS + (
        'created_at', 'updated_at', 'id')}
    # Never null: clients validate timestamps as strings.
    out['updated_at'] = row.updated_at or row.created_at
    return out


def namespace_list(context, visible_to: str | None = None,
                   visibility: str | None = None,
                   resource_types: list | None = None,
                   limit: int | None = None, marker: str | None = None,
                   sort_key: str = 'created_at',
                   sort_dir: str = 'desc') -> list:
    """One page of namespaces with their resource type associations.

    ``visible_to`` restricts to public namespaces and those owned by that
    project (None: every namespace). ``marker`` is the last namespace name
    seen; an unknown or invisible marker is Invalid.
    """
    ns = models.MetadefNamespace
    query = _filtered(visible_to is not None, visibility is not None,
                      bool(resource_types))
    params = {'visible_to': visible_to, 'visibility': visibility,
              'resource_types': list(resource_types or ()), 'limit': limit}
    column = getattr(ns, sort_key)
    desc = sort_dir == 'desc'
    with db_session.reader.using(context) as session:
        # Columns, not ORM objects, on the session's connection: rows are
        # only read and shown.
        connection = session.connection()
        if marker is None:
            rows = driver_read.records(connection, _page(
                query, sort_key, desc, limit is not None), params)
        else:  # rare: the statement is built for the marker's row
            rows = connection.execute(_ordered(query.where(_after(
                connection, query, params, column, desc, marker)),
                sort_key, desc, limit is not None), params).all()
        assocs = base.associations_of(session, [r.id for r in rows])
        out = []
        for row in rows:
            values = _to_dict(row)
            values['resource_type_associations'] = assocs[row.id]
            out.append(values)
        return out


@functools.lru_cache(maxsize=None)
def _filtered(visible: bool, by_visibility: bool,
              by_types: bool) -> sa.Select:
    """The namespaces of a listing's filters (bound parameters
    ``visible_to``, ``visibility``, ``resource_types``). Built once per
    combination: building a statement cost as much as running it on a
    short page, and a prebuilt one keeps its cache key."""
    ns = models.MetadefNamespace
    query = sa.select(ns.__table__)
    if visible:
        query = query.where(sa.or_(ns.visibility == 'public',
                                   ns.owner == sa.bindparam('visible_to')))
    if by_visibility:
        query = query.where(ns.visibility == sa.bindparam('visibility'))
    if by_types:
        rt = models.MetadefResourceType
        assoc = models.MetadefNamespaceResourceType
        query = query.where(sa.exists().where(
            assoc.namespace_id == ns.id,
            assoc.resource_type_id == rt.id,
            rt.name.in_(sa.bindparam('resource_types', expanding=True))))
    return query


def _ordered(query: sa.Select, sort_key: str, desc: bool,
             limited: bool) -> sa.Select:
    """``query`` in the sort order, ties by id; at most ``limit`` rows
    (a bound parameter) if ``limited``."""
    ns = models.MetadefNamespace
    column = getattr(ns, sort_key)
    query = query.order_by(column.desc() if desc else column.asc(),
                           ns.id.desc() if desc else ns.id.asc())
    if limited:
        query = query.limit(sa.bindparam('limit', type_=sa.Integer))
    return query


@functools.lru_cache(maxsize=None)
def _page(query: sa.Select, sort_key: str, desc: bool,
          limited: bool) -> sa.Select:
    """_ordered, built once per filtered statement and order."""
    return _ordered(query, sort_key, desc, limited)


def _after(connection, query, params: dict, column, desc: bool,
           marker: str):
    """The keyset condition for rows after ``marker`` in the sort order."""
    ns = models.MetadefNamespace
    row = connection.execute(query.where(ns.namespace == marker),
                             params).first()
    if row is None:
        raise exceptions.Invalid(
            reason='marker %s is not a namespace you can see' % marker)
    value = getattr(row, column.key)
    cmp = (lambda a, b: a < b) if desc else (lambda a, b: a > b)
    if value is None:
        # NULLs sort first ascending on SQLite/MySQL and last on PostgreSQL;
        # a sort on a nullable column falls back to the id among NULLs.
        return sa.or_(sa.and_(column.is_(None), cmp(ns.id, row.id)),
                      column.isnot(None))
    return sa.or_(cmp(column, value),
                  sa.and_(column == value, cmp(ns.id, row.id)))


def namespace_get(context, namespace: str) -> dict:
    """One namespace with its resource type associations."""
    with db_session.reader.using(context) as session:
        row = base.get_model(session, namespace)
        values = _to_dict(row)
        values['resource_type_associations'] = base.associations_of(
            session, [row.id])[row.id]
        return values


def namespace_get_full(context, namespace: str) -> dict:
    """A namespace with its properties, objects, tags and associations."""
    with db_session.reader.using(context):
        values = namespace_get(context, namespace)
        values['properties'] = metadef_property.property_list(
            context, namespace)
        values['objects'] = metadef_object.object_list(context, namespace)
        values['tags'] = metadef_tag.tag_list(context, namespace)
        return values


@retry.on_deadlock
def namespace_create(context, values: dict, properties: dict | None = None,
                     objects: list | None = None, tags: list | None = None,
                     associations: list | None = None) -> dict:
    """Create a namespace and its embedded definitions in one transaction."""
    with db_session.writer.using(context) as session:
        row = models.MetadefNamespace(**values)
        session.add(row)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise exceptions.Conflict(
                message='A namespace named %s already exists.'
                        % values['namespace'])
        name = values['namespace']
        for prop_name, schema in (properties or {}).items():
            metadef_property.property_create(context, name, prop_name,
                                             schema)
        for obj in objects or []:
            metadef_object.object_create(context, name, obj)
        if tags:
            metadef_tag.tag_create_many(context, name,
                                        [t['name'] for t in tags],
                                        append=True)
        for assoc in associations or []:
            metadef_resource_type.associate(context, name, assoc)
        return namespace_get(context, name)


@retry.on_deadlock
def namespace_update(context, namespace: str, values: dict) -> dict:
    """Replace the namespace's own fields; children are untouched."""
    with db_session.writer.using(context) as session:
        row = base.get_model(session, namespace)
        for key, value in values.items():
            setattr(row, key, value)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise exceptions.Conflict(
                message='A namespace named %s already exists.'
                        % values['namespace'])
        return namespace_get(context, row.namespace)


@retry.on_deadlock
def namespace_delete(context, namespace: str, force: bool = False) -> None:
    """Delete a namespace and everything in it; protected ones refuse."""
    with db_session.writer.using(context) as session:
        row = base.get_model(session, namespace)
        if not force:
            base.check_unprotected(row, 'it')
        for model in (models.MetadefProperty, models.MetadefObject,
                      models.MetadefTag, models.MetadefNamespaceResourceType):
            session.execute(sa.delete(model).where(
                model.namespace_id == row.id))
        session.delete(row)
