"""Resource classes: standard ones from os-resource-classes, CUSTOM_ ones."""

import os_resource_classes
from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api import retry
from blazar_ext.db import driver_read
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

_RC = models.ResourceClass
# Asked by every request naming resources: built once, names bound.
_IDS_BY_NAME = sa.select(_RC.name, _RC.id).where(
    _RC.name.in_(sa.bindparam('names', expanding=True)))


def sync_standard_classes(context) -> int:
    """Insert every standard resource class missing; return how many."""
    with db_session.writer.using(context) as session:
        have = set(session.scalars(sa.select(_RC.name)))
        missing = [n for n in os_resource_classes.STANDARDS if n not in have]
        if missing:
            session.execute(sa.insert(_RC), [{'name': n} for n in missing])
        return len(missing)


def is_standard(name: str) -> bool:
    return name in os_resource_classes.STANDARDS


def ids_by_name(session, names) -> dict:
    """{name: id}; ResourceClassNotFound naming the first unknown one."""
    names = set(names)
    if not names:
        return {}
    found = dict(session.execute(
        _IDS_BY_NAME, {'names': sorted(names)}).all())
    missing = sorted(names - set(found))
    if missing:
        raise exceptions.ResourceClassNotFound(name=', '.join(missing))
    return found


def ids_by_name_if_present(session, names) -> dict:
    """{name: id} for those of ``names`` that exist."""
    return dict(session.execute(sa.select(_RC.name, _RC.id).where(
        _RC.name.in_(sorted(set(names))))).all())


# Built once, run on the session's connection (a column query).
_NAMES = sa.select(_RC.name).order_by(_RC.id)


def list_classes(context) -> list:
    with db_session.reader.using(context) as session:
        return [row[0] for row in driver_read.rows(session.connection(),
                                                   _NAMES)[1]]


def class_exists(context, name: str) -> bool:
    with db_session.reader.using(context) as session:
        return session.scalar(
            sa.select(_RC.id).where(_RC.name == name)) is not None


@retry.on_deadlock
def create_class(context, name: str, exist_ok: bool = False) -> bool:
    """Create a custom class; True if created."""
    with db_session.writer.using(context) as session:
        if session.scalar(sa.select(_RC.id).where(_RC.name == name)):
            if exist_ok:
                return False
            raise exceptions.ResourceClassExists(name=name)
        try:
            with session.begin_nested():
                session.add(_RC(name=name))
        except db_exc.DBDuplicateEntry:
            if exist_ok:
                return False
            raise exceptions.ResourceClassExists(name=name)
        return True


@retry.on_deadlock
def delete_class(context, name: str) -> None:
    with db_session.writer.using(context) as session:
        rc_id = session.scalar(sa.select(_RC.id).where(_RC.name == name))
        if rc_id is None:
            raise exceptions.ResourceClassNotFound(name=name)
        if is_standard(name):
            raise exceptions.ResourceClassCannotDeleteStandard(name=name)
        if session.scalar(sa.select(sa.exists().where(
                models.Inventory.resource_class_id == rc_id))):
            raise exceptions.ResourceClassInUse(name=name)
        session.execute(sa.delete(_RC).where(_RC.id == rc_id))


@retry.on_deadlock
def rename_class(context, name: str, new_name: str) -> None:
    """Rename a custom class (microversions before 1.7)."""
    with db_session.writer.using(context) as session:
        rc_id = session.scalar(sa.select(_RC.id).where(_RC.name == name))
        if rc_id is None:
            raise exceptions.ResourceClassNotFound(name=name)
        if is_standard(name):
            raise exceptions.InvalidProviderRequest(
                reason='Cannot update standard resource class %s' % name)
        if session.scalar(sa.select(_RC.id).where(_RC.name == new_name)):
            raise exceptions.ResourceClassExists(name=new_name)
        try:
            with session.begin_nested():
                session.execute(sa.update(_RC).where(_RC.id == rc_id)
                                .values(name=new_name))
        except db_exc.DBDuplicateEntry:
            raise exceptions.ResourceClassExists(name=new_name)
