"""Hosts and their extra capability values."""

import functools

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import bulk
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import instance_capacity
from blazar_ext.db.api.placement import inventory as inventory_api
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db import driver_read
from blazar_ext.db.models import host as models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import json_text
from blazar_ext.query import language

RESOURCE_TYPE = 'physical:host'

# Inventory of a host's resource provider: class -> host column.
PROVIDER_INVENTORY = (('VCPU', 'vcpus'), ('MEMORY_MB', 'memory_mb'),
                      ('DISK_GB', 'local_gb'))


# Built once (building it cost as much as running it for one host).
_CAPABILITIES_OF = (
    sa.select(models.ComputeHostExtraCapability.computehost_id,
              models.ExtraCapability.capability_name,
              models.ComputeHostExtraCapability.capability_value,
              models.ExtraCapability.private)
    .join(models.ExtraCapability,
          models.ExtraCapability.id ==
          models.ComputeHostExtraCapability.capability_id)
    .where(models.ComputeHostExtraCapability.computehost_id.in_(
        sa.bindparam('host_ids', expanding=True))))


def _capabilities_of(session, host_ids) -> dict:
    """{host_id: {name: {'value': v, 'private': p}}} in one query."""
    result = {host_id: {} for host_id in host_ids}
    if not host_ids:
        return result
    _keys, rows = driver_read.rows(session.connection(), _CAPABILITIES_OF,
                                   {'host_ids': list(host_ids)})
    for host_id, name, value, private in rows:
        result[host_id][name] = {'value': value, 'private': private}
    return result


def _to_dicts(session, hosts) -> list:
    capabilities = _capabilities_of(session, [h.id for h in hosts])
    out = []
    for host in hosts:
        values = host.to_dict()
        values['capabilities'] = capabilities[host.id]
        out.append(values)
    return out


def _checked_id(host_id) -> str:
    """A host id as stored; HostNotFound for what cannot be one."""
    if not isinstance(host_id, (str, int)) or isinstance(host_id, bool):
        raise exceptions.HostNotFound(host=host_id)
    # Ids are strings; a number from an older client names the same host.
    return str(host_id)


def _get_model(session, host_id):
    host = session.get(models.ComputeHost, _checked_id(host_id))
    if host is None:
        raise exceptions.HostNotFound(host=host_id)
    return host


_HOST_BY_ID = sa.select(models.ComputeHost.__table__).where(
    models.ComputeHost.__table__.c.id == sa.bindparam('id'))


def host_get(context, host_id) -> dict:
    """One host with its capabilities; HostNotFound if absent."""
    checked_id = _checked_id(host_id)
    with db_session.reader.using(context) as session:
        # Its columns, not an ORM object: the row is only shown.
        rows = driver_read.dicts(session.connection(), _HOST_BY_ID,
                                 {'id': checked_id})
        if not rows:
            raise exceptions.HostNotFound(host=host_id)
        values = rows[0]
        values['capabilities'] = _capabilities_of(
            session, [values['id']])[values['id']]
        return values


def hosts_get(context, host_ids) -> list:
    """The hosts of ``host_ids`` that exist, with capabilities, by id."""
    with db_session.reader.using(context) as session:
        hosts = session.scalars(
            sa.select(models.ComputeHost)
            .where(models.ComputeHost.id.in_(list(host_ids)))
            .order_by(models.ComputeHost.id))
        return _to_dicts(session, list(hosts))


def host_list(context) -> list:
    """Every host with its capabilities, ordered by id."""
    with db_session.reader.using(context) as session:
        hosts = session.scalars(
            sa.select(models.ComputeHost).order_by(models.ComputeHost.id))
        return _to_dicts(session, list(hosts))


# Hosts read per transaction by host_pages(): a page's rows stay small in
# memory, and no read holds the database for a whole listing.
PAGE_SIZE = 1000

# How host_pages() shows a column in a host's JSON.
_BOOLEAN_COLUMNS = frozenset(['reservable', 'disabled'])
_TIME_COLUMNS = frozenset(['created_at', 'updated_at'])
# Text columns shown as '' when unknown, as upstream Blazar shows them.
_TEXT_COLUMNS = frozenset(['availability_zone'])


def host_pages(context, include_private: bool, marker=None,
               limit: int | None = None, capabilities=None,
               columns=(), page_size: int | None = None):
    """Hosts after ``marker`` (a host id), ordered by id, at most ``limit``,
    as lists of at most ``page_size`` (id, JSON object text) rows, each
    page read on demand.

    The database writes each host's JSON: ``columns`` (computehosts
    column names; datetimes as ISO 8601 text) and its capability values
    as members, the private ones only with ``include_private``.
    ``capabilities`` is None for every capability or a set of names
    (empty: none). An unknown marker is Invalid (400), raised by the
    first next().
    """
    page_size = page_size or PAGE_SIZE
    after = _marker_id(context, marker) if marker is not None else None
    first, following = _host_json_pages(
        include_private,
        None if capabilities is None else frozenset(capabilities),
        tuple(columns))
    left = limit
    while left is None or left > 0:
        size = page_size if left is None else min(page_size, left)
        with db_session.reader.using(context) as session:
            # Prebuilt statements, their limit and marker bound: a
            # statement made per request had its cache key computed on
            # each execution, a traversal of every member's expression
            # (a tenth of a short listing's CPU).
            page = driver_read.rows(
                session.connection(), first if after is None else following,
                {'size': size, 'after': after})[1]
        if page:
            yield page
        if len(page) < size:
            return
        after = page[-1][0]
        if left is not None:
            left -= len(page)


def _marker_id(context, marker):
    try:
        with db_session.reader.using(context) as session:
            return _get_model(session, marker).id
    except exceptions.HostNotFound:
        raise exceptions.Invalid(reason='marker %s: no such host' % marker)


@functools.lru_cache(maxsize=64)
def _host_json_pages(include_private: bool, wanted: frozenset | None,
                     columns: tuple) -> tuple:
    """(first page, page after ``after``) of _host_json_query, at most
    ``size`` rows each (bound parameters)."""
    query = _host_json_query(include_private, wanted, columns).limit(
        sa.bindparam('size', type_=sa.Integer))
    return query, query.where(
        models.ComputeHost.id > sa.bindparam('after'))


def _host_json_query(include_private: bool, wanted: frozenset | None,
                     columns: tuple) -> sa.Select:
    """SELECT id, JSON text of each host, in id order.

    Built once per set of arguments and kept (by _host_json_pages): a
    statement is immutable, and building this one (an expression per
    column and capability) cost a third of a short listing.
    """
    hosts = models.ComputeHost.__table__.c
    members = []
    for name in columns:
        value = hosts[name]
        if name in _BOOLEAN_COLUMNS:
            value = json_text.boolean(value)
        elif name in _TIME_COLUMNS:
            value = json_text.timestamp(value)
        elif name in _TEXT_COLUMNS:
            value = sa.func.coalesce(value, '')
        members += [sa.literal(name), value]
    body = json_text.json_object(*members)
    if wanted is None or wanted:
        # One index range per host on (computehost_id, capability_id).
        values, names = (models.ComputeHostExtraCapability.__table__,
                         models.ExtraCapability.__table__)
        value, name = values.c, names.c
        capabilities = (
            sa.select(json_text.object_agg(name.capability_name,
                                           value.capability_value))
            .select_from(values.join(names, name.id == value.capability_id))
            .where(value.computehost_id == hosts.id))
        if not include_private:
            capabilities = capabilities.where(name.private == sa.false())
        if wanted is not None:
            capabilities = capabilities.where(
                name.capability_name.in_(sorted(wanted)))
        capabilities = capabilities.scalar_subquery()
        body = (json_text.merge(body, capabilities) if members
                else sa.func.coalesce(capabilities, '{}'))
    return sa.select(hosts.id, body).order_by(hosts.id)


@oslo_db_api.wrap_db_retry(max_retries=5, retry_on_deadlock=True)
def host_create(context, values: dict, capabilities: dict,
                private_default: bool = False) -> dict:
    """Insert a host and its capability values (strings)."""
    with db_session.writer.using(context) as session:
        host = models.ComputeHost(**values)
        session.add(host)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise exceptions.HostExists(host=values['hypervisor_hostname'])
        _set_capabilities(session, host.id, capabilities, private_default)
        capability_api.count_values(session, RESOURCE_TYPE,
                                    added=_value_pairs(session, host.id))
        _link_provider(context, session, host)
        return _to_dicts(session, [host])[0]


def _link_provider(context, session, host) -> None:
    """Give the host its resource provider (see link_providers)."""
    host.resource_provider_id = link_providers(
        context, session, [host.to_dict()])[host.id]
    session.flush()


def link_providers(context, session, hosts: list) -> dict:
    """{host id: provider id}: each host's resource provider, named after it.

    ``hosts`` are dicts with the host columns. A provider of that name
    registered beforehand (by a compute service, say) is adopted as it is;
    the others are created, in bulk, with VCPU, MEMORY_MB and DISK_GB
    inventory from the host's columns. Runs in the caller's writer
    transaction; registering one host and importing thousands share it.
    """
    rp = placement_models.ResourceProvider
    names = [host['hypervisor_hostname'] for host in hosts]
    existing = {}
    for chunk in _chunks(names):
        existing.update(session.execute(
            sa.select(rp.name, rp.id).where(rp.name.in_(chunk))).all())
    for chunk in _chunks(list(existing.values())):
        taken = session.scalar(
            sa.select(models.ComputeHost.hypervisor_hostname).where(
                models.ComputeHost.resource_provider_id.in_(chunk)))
        if taken is not None:
            raise exceptions.HostExists(host=taken)
    new = [host for host in hosts
           if host['hypervisor_hostname'] not in existing]
    if new:
        existing.update(_create_providers(context, session, new))
    return {host['id']: existing[host['hypervisor_hostname']]
            for host in hosts}


def _create_providers(context, session, hosts: list) -> dict:
    """{name: provider id} of new root providers with the hosts'
    inventories, as resource_provider.create then set_inventories leave
    them (generation 1)."""
    rp = placement_models.ResourceProvider
    classes = [name for name, _ in PROVIDER_INVENTORY]
    if len(rc_api.ids_by_name_if_present(session, classes)) < len(classes):
        rc_api.sync_standard_classes(context)
    class_ids = rc_api.ids_by_name(session, classes)
    uuids = {host['hypervisor_hostname']: uuidutils.generate_uuid()
             for host in hosts}
    conn = session.connection()
    bulk.insert_rows(conn, rp.__table__, [
        {'uuid': uuid, 'name': name, 'generation': 1}
        for name, uuid in uuids.items()])
    ids = {}
    for chunk in _chunks(list(uuids.values())):
        ids.update(session.execute(
            sa.select(rp.uuid, rp.id).where(rp.uuid.in_(chunk))).all())
        session.execute(sa.update(rp).where(rp.uuid.in_(chunk))
                        .values(root_provider_id=rp.id))
    inventories = [
        dict(inventory_api.DEFAULTS, total=host[column],
             resource_provider_id=ids[uuids[host['hypervisor_hostname']]],
             resource_class_id=class_ids[name])
        for host in hosts for name, column in PROVIDER_INVENTORY
        if (host.get(column) or 0) > 0]
    bulk.insert_rows(conn, placement_models.Inventory.__table__, inventories)
    # Instance reservations read the capacity these inventories give.
    instance_capacity.refresh(session, ids.values())
    return {name: ids[uuid] for name, uuid in uuids.items()}


def _chunks(values: list, size: int = 500):
    """Slices of ``values`` small enough for an IN list on every database."""
    for start in range(0, len(values), size):
        yield values[start:start + size]


def link_missing_providers(context) -> list:
    """Link every host without a resource provider; their names."""
    linked = []
    with db_session.writer.using(context) as session:
        hosts = session.scalars(
            sa.select(models.ComputeHost)
            .where(models.ComputeHost.resource_provider_id.is_(None))
            .order_by(models.ComputeHost.id)).all()
        for host in hosts:
            _link_provider(context, session, host)
            linked.append(host.hypervisor_hostname)
    return linked


def provider_of(context, host_id) -> str | None:
    """The uuid of the host's resource provider, None if it has none."""
    with db_session.reader.using(context) as session:
        host = _get_model(session, host_id)
        if host.resource_provider_id is None:
            return None
        return session.scalar(
            sa.select(placement_models.ResourceProvider.uuid).where(
                placement_models.ResourceProvider.id ==
                host.resource_provider_id))


@oslo_db_api.wrap_db_retry(max_retries=5, retry_on_deadlock=True)
def host_update_capabilities(context, host_id, capabilities: dict,
                             private_default: bool = False) -> dict:
    """Set capability values; a None value removes that capability."""
    with db_session.writer.using(context) as session:
        host = _get_model(session, host_id)
        # Writers of one host's values take turns, so each counts exactly
        # the pairs it changed.
        _lock(session, host.id)
        before = _value_pairs(session, host.id)
        removed = [name for name, value in capabilities.items()
                   if value is None]
        if removed:
            session.execute(
                sa.delete(models.ComputeHostExtraCapability).where(
                    models.ComputeHostExtraCapability.computehost_id ==
                    host.id,
                    models.ComputeHostExtraCapability.capability_id.in_(
                        sa.select(models.ExtraCapability.id).where(
                            models.ExtraCapability.resource_type ==
                            RESOURCE_TYPE,
                            models.ExtraCapability.capability_name.in_(
                                removed)))))
        _set_capabilities(
            session, host.id,
            {k: v for k, v in capabilities.items() if v is not None},
            private_default)
        after = _value_pairs(session, host.id)
        capability_api.count_values(session, RESOURCE_TYPE,
                                    added=after - before,
                                    removed=before - after)
        session.expire(host)
        return _to_dicts(session, [host])[0]


def _lock(session, host_id: str) -> None:
    """Lock the host's row until the transaction ends."""
    session.execute(sa.select(models.ComputeHost.id).where(
        models.ComputeHost.id == host_id).with_for_update())


def _value_pairs(session, host_id: str) -> set:
    """The host's (capability_id, value) pairs, as committed last: a
    locking read, which MySQL does not answer from the transaction's
    older snapshot."""
    values = models.ComputeHostExtraCapability.__table__.c
    return set(session.execute(
        sa.select(values.capability_id, values.capability_value).where(
            values.computehost_id == host_id).with_for_update()).all())


def _set_capabilities(session, host_id: str, capabilities: dict,
                      private_default: bool) -> None:
    ids = capability_api.get_or_create_ids(
        session, RESOURCE_TYPE, capabilities, private_default)
    if not ids:
        return
    existing = dict(session.execute(
        sa.select(models.ComputeHostExtraCapability.capability_id,
                  models.ComputeHostExtraCapability.id).where(
            models.ComputeHostExtraCapability.computehost_id == host_id,
            models.ComputeHostExtraCapability.capability_id.in_(
                ids.values()))).all())
    for name, value in capabilities.items():
        capability_id = ids[name]
        if capability_id in existing:
            session.execute(
                sa.update(models.ComputeHostExtraCapability)
                .where(models.ComputeHostExtraCapability.id ==
                       existing[capability_id])
                .values(capability_value=value,
                        capability_number=language.number_of(value)))
        else:
            session.add(models.ComputeHostExtraCapability(
                computehost_id=host_id, capability_id=capability_id,
                capability_value=value,
                capability_number=language.number_of(value)))
    session.flush()


def host_delete(context, host_id, now=None) -> None:
    """Delete a host and its capability values.

    HostInUse while it has current or future allocations (at ``now``,
    default the current time). The host row is locked first, as allocators
    lock it, so no allocation slips in between the check and the delete.
    """
    with allocation_api.PROCESS_LOCK, \
            db_session.writer.using(context) as session:
        host = _get_model(session, host_id)
        _lock(session, host.id)
        if allocation_api.host_has_allocations_after(
                session, host.id, now or timeutils.utcnow()):
            raise exceptions.HostInUse(host=host_id)
        session.execute(sa.delete(lease_models.ComputeHostAllocation).where(
            lease_models.ComputeHostAllocation.compute_host_id == host.id))
        pairs = _value_pairs(session, host.id)
        session.execute(sa.delete(models.ComputeHostExtraCapability).where(
            models.ComputeHostExtraCapability.computehost_id == host.id))
        capability_api.count_values(session, RESOURCE_TYPE, removed=pairs)
        provider_id = host.resource_provider_id
        session.delete(host)
        session.flush()
        if provider_id is not None:
            _delete_provider(context, session, provider_id)


def _delete_provider(context, session, provider_id: int) -> None:
    uuid = session.scalar(
        sa.select(placement_models.ResourceProvider.uuid).where(
            placement_models.ResourceProvider.id == provider_id))
    try:
        rp_api.delete(context, uuid)
    except (exceptions.ResourceProviderInUse,
            exceptions.CannotDeleteParentProvider) as exc:
        raise exceptions.HostProviderInUse(reason=str(exc))
