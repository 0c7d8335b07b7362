"""Extra capability names, shared by every resource type that has them."""

import collections
import hashlib
import json

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from blazar_ext.db.models import host as host_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import json_text


def get_or_create_ids(session, resource_type: str, names,
                      private_default: bool = False) -> dict:
    """Map each capability name to its id, creating missing names.

    Must run inside a writer transaction; ``session`` is that transaction's.
    A concurrent creator of the same name loses the unique constraint race
    and retries through oslo.db's DBDuplicateEntry handling upstream.
    """
    names = set(names)
    if not names:
        return {}
    model = host_models.ExtraCapability
    found = dict(session.execute(
        sa.select(model.capability_name, model.id).where(
            model.resource_type == resource_type,
            model.capability_name.in_(names))).all())
    for name in sorted(names - set(found)):
        capability = model(resource_type=resource_type, capability_name=name,
                           private=private_default)
        session.add(capability)
        session.flush()
        found[name] = capability.id
    return found


# --- Resource properties discovery -----------------------------------------
#
# A resource type has properties when a table holds one row per (resource,
# capability) value with ``capability_id`` and ``capability_value`` columns.
# Each resource type with extra capabilities registers that table here.
_VALUE_MODELS = {
    'physical:host': host_models.ComputeHostExtraCapability,
}


_CAPABILITY = host_models.ExtraCapability.__table__
# Built once (a lease create looks its names up each time); ``names``
# expands to one bound parameter per name.
_KNOWN = sa.select(_CAPABILITY.c.capability_name, _CAPABILITY.c.private).where(
    _CAPABILITY.c.resource_type == sa.bindparam('resource_type'),
    _CAPABILITY.c.capability_name.in_(sa.bindparam('names', expanding=True)))


def known(session, resource_type: str, names) -> dict:
    """{name: private} of the capability names of ``names`` that exist
    for ``resource_type``, through the (resource_type, capability_name)
    unique index."""
    names = set(names)
    if not names:
        return {}
    # Capabilities the session holds unwritten are written first, as the
    # ORM would before a query; the query itself runs on the connection.
    session.flush()
    return {name: bool(private)
            for name, private in session.connection().execute(_KNOWN, {
                'resource_type': resource_type, 'names': sorted(names)})}


def register_value_model(resource_type: str, model) -> None:
    """Declare the capability value table of ``resource_type``.

    Its writers call count_values() (or fill_values() after a bulk
    load) in the same transaction, or discovery does not see the values.
    """
    _VALUE_MODELS[resource_type] = model


def resource_types() -> list:
    """Resource types that have extra capabilities, sorted."""
    return sorted(_VALUE_MODELS)


def _value_model(resource_type: str):
    try:
        return _VALUE_MODELS[resource_type]
    except KeyError:
        raise exceptions.ResourceTypeNotFound(resource_type=resource_type)


def _sorted_values(values) -> list:
    """Numbers in numeric order when every value is a number, else text."""
    values = list(values)
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


# --- The distinct values discovery reads ------------------------------------
#
# extra_capability_values holds one row per (capability, distinct value)
# with the number of resources that have it, unique on (capability_id,
# value_digest). Every writer of a value table adds and takes away the
# pairs it wrote in its own transaction (count_values), so the listing
# reads a table the size of its answer instead of grouping every value
# row of every resource.
#
# Why counts moved by deltas rather than recounted: a recount reads other
# writers' value rows, which a concurrent writer's uncommitted rows escape
# (two writers of one new value each counted 1, in two rows). An upsert
# that adds to the count is atomic on every database: the second writer
# of a new pair waits on the first's row and adds to it.

_SUMMARY = host_models.ExtraCapabilityValue.__table__
_KEY = ('capability_id', 'value_digest')
_BATCH = 500


def value_digest(value: str) -> str:
    """The unique key of a value in the summary: SHA-256 of its UTF-8."""
    return hashlib.sha256(value.encode('utf-8')).hexdigest()


def _chunks(values: list, size: int = _BATCH):
    """Slices of ``values`` small enough for one statement everywhere."""
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _summary_rows(counts) -> list:
    """Summary rows of {(capability_id, value): resources}, in key order
    (writers lock rows in one order, so they do not deadlock)."""
    rows = [{'capability_id': capability_id, 'capability_value': value,
             'value_digest': value_digest(value), 'resources': count}
            for (capability_id, value), count in counts.items()]
    return sorted(rows, key=lambda row: (row['capability_id'],
                                         row['value_digest']))


def _upsert(session, rows: list) -> None:
    """INSERT ``rows``, or add their resources to the rows already there."""
    table = _SUMMARY
    dialect = session.get_bind().dialect.name
    if dialect in ('mysql', 'mariadb'):
        stmt = mysql.insert(table).values(rows)
        stmt = stmt.on_duplicate_key_update(
            resources=table.c.resources + stmt.inserted.resources)
    else:
        insert = (postgresql.insert if dialect == 'postgresql'
                  else sqlite.insert)
        stmt = insert(table).values(rows)
        stmt = stmt.on_conflict_do_update(
            index_elements=list(_KEY),
            set_={'resources': table.c.resources + stmt.excluded.resources})
    session.execute(stmt)


def _subtract(session, rows: list) -> None:
    """Take ``rows``' resources from their summary rows; drop those left
    at none."""
    c = _SUMMARY.c
    by_amount: dict = {}
    for row in rows:
        by_amount.setdefault((row['capability_id'], row['resources']),
                             []).append(row['value_digest'])
    for (capability_id, amount), digests in sorted(by_amount.items()):
        where = (c.capability_id == capability_id, c.value_digest.in_(digests))
        session.execute(sa.update(_SUMMARY).where(*where)
                        .values(resources=c.resources - amount))
        session.execute(sa.delete(_SUMMARY).where(*where,
                                                  c.resources <= 0))


def count_values(session, resource_type: str, added=(), removed=()) -> None:
    """Count the (capability_id, value) pairs a write ``added`` and
    ``removed`` in the summary discovery reads.

    Call it in the writer transaction that inserted, changed or deleted
    value rows of ``resource_type``: a pair once per resource that gained
    it, and once per resource that lost it (a changed value is both).
    """
    _value_model(resource_type)
    gained = collections.Counter(added)
    gained.subtract(removed)
    for rows in _chunks(_summary_rows(+gained)):
        _upsert(session, rows)
    for rows in _chunks(_summary_rows(-gained)):
        _subtract(session, rows)


def fill_values(session, resource_type: str, capability_ids=None) -> None:
    """Rebuild the summary of ``resource_type``'s capabilities (of
    ``capability_ids`` only, if given) from its value rows.

    For bulk loads (the Blazar import, benches) that write value rows
    without count_values(); run it in their transaction. Values are
    grouped here, exactly: MySQL's GROUP BY would fold case.
    """
    values = _value_model(resource_type).__table__.c
    names = host_models.ExtraCapability.__table__.c
    if capability_ids is None:
        capability_ids = session.scalars(sa.select(names.id).where(
            names.resource_type == resource_type)).all()
    counts: collections.Counter = collections.Counter()
    for chunk in _chunks(sorted(set(capability_ids))):
        session.execute(sa.delete(_SUMMARY).where(
            _SUMMARY.c.capability_id.in_(chunk)))
        counts.update(map(tuple, session.execute(
            sa.select(values.capability_id, values.capability_value)
            .where(values.capability_id.in_(chunk))
            .execution_options(yield_per=5000))))
    for rows in _chunks(_summary_rows(counts)):
        session.execute(_SUMMARY.insert(), rows)


def _summary_values(rows) -> dict:
    """{key: sorted distinct values} of (key, value) rows."""
    found: dict = {}
    for key, value in rows:
        found.setdefault(key, set()).add(value)
    return {key: _sorted_values(values) for key, values in found.items()}


def _detail_query(include_private: bool) -> sa.Select:
    """Each capability of a resource type (bound: ``resource_type``) with
    its distinct values as one JSON array text: a row per name, not per
    value (the rows, not the SQL, cost most of a listing of a thousand
    values)."""
    names = host_models.ExtraCapability.__table__.c
    where = [names.resource_type == sa.bindparam('resource_type')]
    if not include_private:
        where.append(names.private == sa.false())
    return (sa.select(names.capability_name, names.private,
                      json_text.array_agg(_SUMMARY.c.capability_value))
            .select_from(_SUMMARY.join(
                host_models.ExtraCapability.__table__,
                names.id == _SUMMARY.c.capability_id))
            .where(*where)
            .group_by(names.id, names.capability_name, names.private))


# Built once: building a statement cost as much as running it.
_DETAIL = {private: _detail_query(private) for private in (False, True)}


def property_list(context, resource_type: str, include_private: bool,
                  detail: bool) -> list:
    """Capabilities of ``resource_type`` that at least one resource has.

    Each item is {'property', 'private'} plus, with ``detail``, 'values':
    the distinct values, read from the summary count_values() keeps.
    """
    _value_model(resource_type)
    names = host_models.ExtraCapability.__table__.c
    where = [names.resource_type == resource_type]
    if not include_private:
        where.append(names.private == sa.false())
    with db_session.reader.using(context) as session:
        # Core rows (Table columns): no ORM processing per value.
        if not detail:
            # Sorted here, as the values: the same order on every
            # database, whatever its collation.
            return [{'property': name, 'private': private}
                    for name, private in sorted(session.execute(
                        sa.select(names.capability_name, names.private)
                        .where(*where, sa.exists().where(
                            _SUMMARY.c.capability_id == names.id))))]
        rows = session.connection().execute(
            _DETAIL[bool(include_private)],
            {'resource_type': resource_type}).all()
    return [{'property': name, 'private': private,
             'values': _sorted_values(json.loads(values))}
            for name, private, values in sorted(rows)]


def _get_name_row(session, resource_type: str, name: str):
    names = host_models.ExtraCapability
    row = session.execute(
        sa.select(names.id, names.private).where(
            names.resource_type == resource_type,
            names.capability_name == name)).first()
    if row is None:
        raise exceptions.ResourcePropertyNotFound(
            property=name, resource_type=resource_type)
    return row


def property_get(context, resource_type: str, name: str) -> dict:
    """{'property', 'private', 'values'} of one capability name.

    ResourceTypeNotFound or ResourcePropertyNotFound when unknown. The
    caller decides whether a private property may be shown.
    """
    _value_model(resource_type)
    with db_session.reader.using(context) as session:
        capability_id, private = _get_name_row(session, resource_type, name)
        values = _summary_values(session.execute(
            sa.select(_SUMMARY.c.capability_id, _SUMMARY.c.capability_value)
            .where(_SUMMARY.c.capability_id == capability_id)))
        return {'property': name, 'private': private,
                'values': values.get(capability_id, [])}


def property_record(context, resource_type: str, name: str) -> dict:
    """The capability name's row as upstream Blazar's resource_property:
    {id, resource_type, property_name, private, created_at, updated_at}."""
    names = host_models.ExtraCapability
    with db_session.reader.using(context) as session:
        row = session.execute(
            sa.select(names.id, names.resource_type, names.capability_name,
                      names.private, names.created_at, names.updated_at)
            .where(names.resource_type == resource_type,
                   names.capability_name == name)).first()
    if row is None:
        raise exceptions.ResourcePropertyNotFound(
            property=name, resource_type=resource_type)
    return dict(zip(('id', 'resource_type', 'property_name', 'private',
                     'created_at', 'updated_at'), row))


def property_set_private(context, resource_type: str, name: str,
                         private: bool) -> dict:
    """Mark a capability name private or public; returns property_get()."""
    _value_model(resource_type)
    with db_session.writer.using(context) as session:
        capability_id, _ = _get_name_row(session, resource_type, name)
        session.execute(
            sa.update(host_models.ExtraCapability)
            .where(host_models.ExtraCapability.id == capability_id)
            .values(private=private))
        return property_get(context, resource_type, name)


# --- Property filters -------------------------------------------------------


def known_capabilities(context, resource_type: str, names=None) -> dict:
    """{name: private} of the capability names of ``resource_type``.

    With ``names``, only those (the ones an expression mentions) are looked
    up, through the (resource_type, capability_name) unique index.
    """
    model = host_models.ExtraCapability
    query = sa.select(model.capability_name, model.private).where(
        model.resource_type == resource_type)
    if names is not None:
        names = set(names)
        if not names:
            return {}
        query = query.where(model.capability_name.in_(names))
    with db_session.reader.using(context) as session:
        return {name: bool(private)
                for name, private in session.execute(query)}
