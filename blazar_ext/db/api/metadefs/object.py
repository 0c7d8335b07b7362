"""Metadefs object definitions: a name, a description, required property
names and property schemas (each may carry ``operators``)."""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api.metadefs import base
from blazar_ext.db.api import retry
from blazar_ext.db.models import metadef as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


def _exists(namespace: str, name: str) -> exceptions.Conflict:
    return exceptions.Conflict(
        message='An object named %s already exists in namespace %s.'
                % (name, namespace))


def _get_model(session, namespace: str, name: str):
    ns = base.get_model(session, namespace)
    row = session.scalars(sa.select(models.MetadefObject).where(
        models.MetadefObject.namespace_id == ns.id,
        models.MetadefObject.name == name)).first()
    if row is None:
        raise exceptions.NotFound(
            message='Object %s was not found in namespace %s.'
                    % (name, namespace))
    return row


def _to_dict(row) -> dict:
    out = {'name': row.name, 'created_at': row.created_at,
           'updated_at': row.updated_at or row.created_at,
           'properties': base.load_json(row.json_schema) or {}}
    if row.description is not None:
        out['description'] = row.description
    # Glance stores no list and an empty one alike, and shows both as [].
    out['required'] = base.load_json(row.required) or []
    return out


def _apply(row, values: dict) -> None:
    row.name = values['name']
    row.description = values.get('description')
    row.required = (base.dump_json(values['required'])
                    if values.get('required') is not None else None)
    row.json_schema = base.dump_json(values.get('properties') or {})


def object_list(context, namespace: str) -> list:
    """Every object of the namespace, in creation order (as Glance)."""
    with db_session.reader.using(context) as session:
        ns = base.get_model(session, namespace)
        rows = session.scalars(sa.select(models.MetadefObject).where(
            models.MetadefObject.namespace_id == ns.id)
            .order_by(models.MetadefObject.id))
        return [_to_dict(r) for r in rows]


def object_get(context, namespace: str, name: str) -> dict:
    with db_session.reader.using(context) as session:
        return _to_dict(_get_model(session, namespace, name))


@retry.on_deadlock
def object_create(context, namespace: str, values: dict) -> dict:
    """Add an object; Conflict if the name is taken."""
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        row = models.MetadefObject(namespace_id=ns.id)
        _apply(row, values)
        session.add(row)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(namespace, values['name'])
        return _to_dict(row)


@retry.on_deadlock
def object_update(context, namespace: str, name: str, values: dict) -> dict:
    """Replace an object (``values['name']`` may rename it)."""
    with db_session.writer.using(context) as session:
        row = _get_model(session, namespace, name)
        _apply(row, values)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(namespace, values['name'])
        return _to_dict(row)


@retry.on_deadlock
def object_delete(context, namespace: str, name: str) -> None:
    with db_session.writer.using(context) as session:
        row = _get_model(session, namespace, name)
        base.check_unprotected(base.get_model(session, namespace),
                               'its objects')
        session.delete(row)


@retry.on_deadlock
def object_delete_all(context, namespace: str) -> None:
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        base.check_unprotected(ns, 'its objects')
        session.execute(sa.delete(models.MetadefObject).where(
            models.MetadefObject.namespace_id == ns.id))
