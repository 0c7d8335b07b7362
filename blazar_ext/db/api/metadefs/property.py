"""Metadefs property definitions; the JSON schema (with ``operators``) is
stored as given."""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api.metadefs import base
from blazar_ext.db.api import retry
from blazar_ext.db.models import metadef as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


def _not_found(namespace: str, name: str) -> exceptions.NotFound:
    return exceptions.NotFound(
        message='Property %s was not found in namespace %s.'
                % (name, namespace))


def _exists(namespace: str, name: str) -> exceptions.Conflict:
    return exceptions.Conflict(
        message='A property named %s already exists in namespace %s.'
                % (name, namespace))


def _get_model(session, namespace: str, name: str):
    ns = base.get_model(session, namespace)
    row = session.scalars(sa.select(models.MetadefProperty).where(
        models.MetadefProperty.namespace_id == ns.id,
        models.MetadefProperty.name == name)).first()
    if row is None:
        raise _not_found(namespace, name)
    return row


def property_list(context, namespace: str) -> dict:
    """{name: schema} of every property in the namespace, in creation
    order (as Glance)."""
    with db_session.reader.using(context) as session:
        ns = base.get_model(session, namespace)
        rows = session.scalars(sa.select(models.MetadefProperty).where(
            models.MetadefProperty.namespace_id == ns.id)
            .order_by(models.MetadefProperty.id))
        return {r.name: base.load_json(r.json_schema) for r in rows}


def property_get(context, namespace: str, name: str) -> dict:
    """The property's schema, with its name."""
    with db_session.reader.using(context) as session:
        row = _get_model(session, namespace, name)
        return dict(base.load_json(row.json_schema), name=row.name)


@retry.on_deadlock
def property_create(context, namespace: str, name: str,
                    schema: dict) -> dict:
    """Add a property; Conflict if the name is taken."""
    schema = {k: v for k, v in schema.items() if k != 'name'}
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        session.add(models.MetadefProperty(
            namespace_id=ns.id, name=name,
            json_schema=base.dump_json(schema)))
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(namespace, name)
        return dict(schema, name=name)


@retry.on_deadlock
def property_update(context, namespace: str, name: str,
                    schema: dict) -> dict:
    """Replace a property (``schema['name']`` may rename it)."""
    new_name = schema.get('name', name)
    schema = {k: v for k, v in schema.items() if k != 'name'}
    with db_session.writer.using(context) as session:
        row = _get_model(session, namespace, name)
        row.name = new_name
        row.json_schema = base.dump_json(schema)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(namespace, new_name)
        return dict(schema, name=new_name)


@retry.on_deadlock
def property_delete(context, namespace: str, name: str) -> None:
    """Delete one property; refused in a protected namespace."""
    with db_session.writer.using(context) as session:
        row = _get_model(session, namespace, name)
        base.check_unprotected(base.get_model(session, namespace),
                               'its properties')
        session.delete(row)


@retry.on_deadlock
def property_delete_all(context, namespace: str) -> None:
    """Delete every property of the namespace."""
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        base.check_unprotected(ns, 'its properties')
        session.execute(sa.delete(models.MetadefProperty).where(
            models.MetadefProperty.namespace_id == ns.id))
