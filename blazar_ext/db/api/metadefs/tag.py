"""Metadefs tag definitions."""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api.metadefs import base
from blazar_ext.db.api import retry
from blazar_ext.db.models import metadef as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


def _exists(namespace: str, name: str) -> exceptions.Conflict:
    return exceptions.Conflict(
        message='A tag named %s already exists in namespace %s.'
                % (name, namespace))


def _get_model(session, namespace: str, name: str):
    ns = base.get_model(session, namespace)
    row = session.scalars(sa.select(models.MetadefTag).where(
        models.MetadefTag.namespace_id == ns.id,
        models.MetadefTag.name == name)).first()
    if row is None:
        raise exceptions.NotFound(
            message='Tag %s was not found in namespace %s.'
                    % (name, namespace))
    return row


def _to_dict(row) -> dict:
    return {'name': row.name, 'created_at': row.created_at,
            'updated_at': row.updated_at or row.created_at}


# What a tag listing may be sorted by; Glance's default is the newest first.
SORT_KEYS = ('created_at', 'updated_at', 'name')


def tag_list(context, namespace: str, sort_key: str = 'created_at',
             sort_dir: str = 'desc', limit: int | None = None) -> list:
    """The namespace's tags, sorted as Glance sorts them (ties by id)."""
    tag = models.MetadefTag
    order = [getattr(tag, sort_key), tag.id]
    if sort_dir == 'desc':
        order = [column.desc() for column in order]
    with db_session.reader.using(context) as session:
        ns = base.get_model(session, namespace)
        rows = session.scalars(sa.select(tag).where(
            tag.namespace_id == ns.id).order_by(*order).limit(limit))
        return [_to_dict(r) for r in rows]


def tag_get(context, namespace: str, name: str) -> dict:
    with db_session.reader.using(context) as session:
        return _to_dict(_get_model(session, namespace, name))


@retry.on_deadlock
def tag_create(context, namespace: str, name: str) -> dict:
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        row = models.MetadefTag(namespace_id=ns.id, name=name)
        session.add(row)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(namespace, name)
        return _to_dict(row)


@retry.on_deadlock
def tag_create_many(context, namespace: str, names: list,
                    append: bool = False) -> list:
    """Create tags; without ``append`` they replace the existing ones."""
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise exceptions.Conflict(
            message='Duplicate tag names in the request: %s.'
                    % ', '.join(dup))
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        if append:
            taken = sorted(session.scalars(
                sa.select(models.MetadefTag.name).where(
                    models.MetadefTag.namespace_id == ns.id,
                    models.MetadefTag.name.in_(names))))
            if taken:
                raise _exists(namespace, ', '.join(taken))
        else:
            session.execute(sa.delete(models.MetadefTag).where(
                models.MetadefTag.namespace_id == ns.id))
        rows = [models.MetadefTag(namespace_id=ns.id, name=n) for n in names]
        session.add_all(rows)
        session.flush()
        return [_to_dict(r) for r in rows]


@retry.on_deadlock
def tag_update(context, namespace: str, name: str, new_name: str) -> dict:
    with db_session.writer.using(context) as session:
        row = _get_model(session, namespace, name)
        row.name = new_name
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise _exists(namespace, new_name)
        return _to_dict(row)


@retry.on_deadlock
def tag_delete(context, namespace: str, name: str) -> None:
    with db_session.writer.using(context) as session:
        row = _get_model(session, namespace, name)
        base.check_unprotected(base.get_model(session, namespace),
                               'its tags')
        session.delete(row)


@retry.on_deadlock
def tag_delete_all(context, namespace: str) -> None:
    with db_session.writer.using(context) as session:
        ns = base.get_model(session, namespace)
        base.check_unprotected(ns, 'its tags')
        session.execute(sa.delete(models.MetadefTag).where(
            models.MetadefTag.namespace_id == ns.id))
