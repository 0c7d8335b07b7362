"""What the metadefs database modules share: the namespace row they hang
from, its protection, resource type associations and JSON columns.

metadef_namespace composes the others (a namespace is created and shown
with its definitions); they all import this module and none imports
metadef_namespace, so the package has no import cycle.
"""

from oslo_serialization import jsonutils
import sqlalchemy as sa

from blazar_ext.db import driver_read
from blazar_ext.db.models import metadef as models
from blazar_ext import exceptions


def not_found(namespace: str) -> exceptions.NotFound:
    return exceptions.NotFound(
        message='Metadata definition namespace %s was not found.' % namespace)


def get_model(session, namespace: str) -> models.MetadefNamespace:
    """The namespace row; NotFound if absent (used by the other modules)."""
    row = session.scalars(sa.select(models.MetadefNamespace).where(
        models.MetadefNamespace.namespace == namespace)).first()
    if row is None:
        raise not_found(namespace)
    return row


def check_unprotected(row: models.MetadefNamespace, what: str) -> None:
    """Forbidden when ``row`` is protected: nothing in it may be deleted."""
    if row.protected:
        raise exceptions.Forbidden(
            message='Namespace %s is protected; %s cannot be deleted. Set '
                    'protected to false first.' % (row.namespace, what))


# Built once: building it cost as much as running it on a short page.
_ASSOCIATIONS_OF = (
    sa.select(models.MetadefNamespaceResourceType.__table__,
              models.MetadefResourceType.name)
    .join(models.MetadefResourceType,
          models.MetadefResourceType.id ==
          models.MetadefNamespaceResourceType.resource_type_id)
    .where(models.MetadefNamespaceResourceType.namespace_id.in_(
        sa.bindparam('namespace_ids', expanding=True)))
    .order_by(models.MetadefNamespaceResourceType.created_at,
              models.MetadefNamespaceResourceType.resource_type_id))


def associations_of(session, namespace_ids) -> dict:
    """{namespace_id: [association dicts]} in one query, each namespace's
    in the order they were made: Glance reads them unsorted, which on its
    databases is the order of their rows (ties of created_at, which MySQL
    keeps to the second, by the resource type's age)."""
    result = {nid: [] for nid in namespace_ids}
    if not namespace_ids:
        return result
    # On the session's connection: a column query has nothing for the
    # ORM's execution path to do.
    rows = driver_read.records(session.connection(), _ASSOCIATIONS_OF,
                               {'namespace_ids': list(namespace_ids)})
    for row in rows:
        result[row.namespace_id].append(association_dict(row, row.name))
    return result


def association_dict(row, name: str) -> dict:
    """An association as the API shows it; unset fields are left out."""
    out = {'name': name, 'created_at': row.created_at,
           'updated_at': row.updated_at or row.created_at}
    if row.prefix is not None:
        out['prefix'] = row.prefix
    if row.properties_target is not None:
        out['properties_target'] = row.properties_target
    return out


# What a TEXT column holds on MySQL/MariaDB, the smallest of our databases.
MAX_JSON_BYTES = 65535


def dump_json(value) -> str:
    """JSON for a TEXT column; Invalid when it would not fit."""
    text = jsonutils.dumps(value)
    if len(text) > MAX_JSON_BYTES:  # ASCII: characters are bytes
        raise exceptions.Invalid(
            reason='the definition takes %d bytes as JSON, more than the '
                   '%d allowed' % (len(text), MAX_JSON_BYTES))
    return text


def load_json(text: str | None):
    return jsonutils.loads(text) if text else None
