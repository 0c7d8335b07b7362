"""Resource providers: CRUD, trees, and the filtered list."""

import functools
import typing

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from blazar_ext.db.api.placement import aggregate as agg_api
from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.api import retry
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

RP = models.ResourceProvider
get_model = provider_base.get_model


def _to_dicts(session, providers) -> list:
    uuids = {p.id: p.uuid for p in providers}
    uuids.update(provider_base.uuids_of(session, [
        pid for p in providers
        for pid in (p.parent_provider_id, p.root_provider_id)
        if pid not in uuids]))
    return [{'uuid': p.uuid, 'name': p.name, 'generation': p.generation,
             'parent_provider_uuid': uuids.get(p.parent_provider_id),
             'root_provider_uuid': uuids.get(p.root_provider_id, p.uuid),
             'created_at': p.created_at, 'updated_at': p.updated_at}
            for p in providers]


class ProviderColumns(typing.NamedTuple):
    """Providers column by column, as list_providers() returns them: a
    list per field, one entry per provider."""
    uuids: list
    names: list
    generations: list
    parents: list
    roots: list


def tree_uuids(provider=RP) -> tuple:
    """(parent uuid, root uuid) of ``provider``'s row as columns. A root
    (most providers) is its own root: no lookup then; nor for a missing
    parent."""
    other = sa.orm.aliased(RP)

    def uuid_of(provider_id):
        return (sa.select(other.uuid).where(other.id == provider_id)
                .scalar_subquery())

    return (sa.case((provider.parent_provider_id.is_(None), None),
                    else_=uuid_of(provider.parent_provider_id)),
            sa.case((provider.root_provider_id == provider.id,
                     provider.uuid),
                    else_=sa.func.coalesce(uuid_of(provider.root_provider_id),
                                           provider.uuid)))


def _rows_query() -> sa.Select:
    """Provider rows (ProviderColumns' fields), without ORM objects:
    lists may hold thousands of providers."""
    return sa.select(RP.uuid, RP.name, RP.generation, *tree_uuids())


@retry.on_deadlock
def create(context, name: str, uuid: str | None = None,
           parent_uuid: str | None = None) -> dict:
    with db_session.writer.using(context) as session:
        uuid = uuid or uuidutils.generate_uuid()
        # One query for both checks, compared by the database (its
        # collation decides what equal means, as the constraint does).
        same = (RP.uuid == uuid, RP.name == name)
        taken = session.execute(sa.select(*same).where(sa.or_(*same))).all()
        for index, (field, value) in enumerate((('uuid', uuid),
                                                ('name', name))):
            if any(row[index] for row in taken):
                raise exceptions.ResourceProviderExists(field=field,
                                                        value=value)
        parent = None
        if parent_uuid is not None:
            parent = _parent(session, parent_uuid)
        provider = RP(uuid=uuid, name=name, generation=0,
                      parent_provider_id=parent.id if parent else None)
        try:
            with session.begin_nested():
                session.add(provider)
                session.flush()
        except db_exc.DBDuplicateEntry:
            raise exceptions.ResourceProviderExists(field='name', value=name)
        provider.root_provider_id = (parent.root_provider_id if parent
                                     else provider.id)
        session.flush()
        return _to_dicts(session, [provider])[0]


def _parent(session, parent_uuid: str):
    parent = session.scalar(sa.select(RP).where(RP.uuid == parent_uuid))
    if parent is None:
        raise exceptions.InvalidProviderRequest(
            reason='parent provider UUID does not exist.')
    return parent


def get(context, uuid: str) -> dict:
    with db_session.reader.using(context) as session:
        return _to_dicts(session, [get_model(session, uuid)])[0]


def root_id_of(uuid: str):
    """Scalar subquery: the root provider id of the provider ``uuid``."""
    return sa.select(RP.root_provider_id).where(
        RP.uuid == uuid).scalar_subquery()


def resource_amounts(session, resources: dict) -> list:
    """[(class id, amount)], raising for an unknown class."""
    try:
        ids = rc_api.ids_by_name(session, resources)
    except exceptions.ResourceClassNotFound as exc:
        raise _invalid_class(exc)
    return [(ids[name], amount) for name, amount in sorted(resources.items())]


def amounts_by_id(resources: dict, class_ids: dict) -> list:
    """resource_amounts() with ``class_ids`` ({name: id} of every class)
    already read: no statement of its own."""
    missing = sorted(set(resources) - set(class_ids))
    if missing:
        raise _invalid_class(exceptions.ResourceClassNotFound(
            name=', '.join(missing)))
    return [(class_ids[name], amount)
            for name, amount in sorted(resources.items())]


def _invalid_class(exc) -> exceptions.InvalidProviderRequest:
    return exceptions.InvalidProviderRequest(
        reason='Invalid resource class in resources parameter: %s' % exc)


def list_providers(context, name=None, uuid=None, in_tree=None,
                   member_of=(), forbidden_aggregates=(), resources=None,
                   required=None) -> ProviderColumns:
    """Providers matching every filter given, in one query, in id order.

    Column by column: thousands of dicts would cost more than the query,
    and the rows are gone before the caller's collector can walk them.
    """
    with db_session.reader.using(context) as session:
        if in_tree is not None:
            if session.scalar(sa.select(RP.id).where(
                    RP.uuid == in_tree)) is None:
                return ProviderColumns([], [], [], [], [])
        amounts = tuple(resource_amounts(session, resources or {}))
        if required:
            trait_api.check_exist(session, required.names)
        query = _list_select(
            name, uuid, in_tree, tuple(frozenset(g) for g in member_of),
            frozenset(forbidden_aggregates or ()), amounts,
            required or None)
        rows = session.connection().execute(query).all()
        return ProviderColumns(*provider_base.columns(rows, 5))


# Built once per set of filters (hashable; class ids, not names): a
# repeated request reuses the immutable statement and its SQLAlchemy
# cache key, whose building was most of a short request's CPU.
@functools.lru_cache(maxsize=256)
def _list_select(name, uuid, in_tree, member_of: tuple,
                 forbidden_aggregates: frozenset, amounts: tuple,
                 required) -> sa.Select:
    query = _rows_query()
    if name is not None:
        query = query.where(RP.name == name)
    if uuid is not None:
        query = query.where(RP.uuid == uuid)
    if in_tree is not None:
        query = query.where(RP.root_provider_id == root_id_of(in_tree))
    # Index probes before capacity: SQLite tests them as written.
    query = trait_api.narrowed(query, required, RP.id)
    query = query.where(*agg_api.member_of_filter(
        member_of, forbidden_aggregates, RP.id))
    for class_id, amount in amounts:
        query = query.where(inv_api.has_capacity(RP.id, class_id, amount))
    return query


@retry.on_deadlock
def update(context, uuid: str, name: str, parent_uuid=None,
           set_parent: bool = False, allow_reparent: bool = False) -> dict:
    """Rename, and set (or from 1.37 change or clear) the parent."""
    with db_session.writer.using(context) as session:
        provider = get_model(session, uuid)
        if name != provider.name and session.scalar(
                sa.select(RP.id).where(RP.name == name)):
            raise exceptions.ResourceProviderExists(field='name', value=name)
        provider.name = name
        if set_parent:
            _reparent(session, provider, parent_uuid, allow_reparent)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise exceptions.ResourceProviderExists(field='name', value=name)
        return _to_dicts(session, [provider])[0]


def _descendant_ids(session, provider) -> set:
    ids, frontier = {provider.id}, {provider.id}
    while frontier:
        frontier = set(session.scalars(sa.select(RP.id).where(
            RP.parent_provider_id.in_(frontier)))) - ids
        ids |= frontier
    return ids


def _reparent(session, provider, parent_uuid, allow_reparent: bool):
    current = provider.parent_provider_id
    parent = _parent(session, parent_uuid) if parent_uuid else None
    new_id = parent.id if parent else None
    if new_id == current:
        return
    if not allow_reparent and current is not None:
        raise exceptions.InvalidProviderRequest(
            reason='Unable to save resource provider %s: Object action '
                   'update failed because: re-parenting a provider is not '
                   'currently allowed.' % provider.uuid)
    subtree = _descendant_ids(session, provider)
    if parent is not None and parent.id in subtree:
        raise exceptions.InvalidProviderRequest(
            reason='creating loop in the provider tree is not allowed.')
    provider.parent_provider_id = new_id
    new_root = parent.root_provider_id if parent else provider.id
    session.execute(sa.update(RP).where(RP.id.in_(subtree))
                    .values(root_provider_id=new_root)
                    .execution_options(synchronize_session=False))
    session.expire(provider, ['root_provider_id'])


@retry.on_deadlock
def delete(context, uuid: str) -> None:
    with db_session.writer.using(context) as session:
        provider = get_model(session, uuid)
        if session.scalar(sa.select(host_models.ComputeHost.id).where(
                host_models.ComputeHost.resource_provider_id ==
                provider.id)):
            raise exceptions.ResourceProviderInUse(
                uuid=uuid, reason='it is the inventory of a host; delete '
                                  'the host through /v1/os-hosts instead.')
        if session.scalar(sa.select(sa.exists().where(
                models.Allocation.resource_provider_id == provider.id))):
            raise exceptions.ResourceProviderInUse(
                uuid=uuid, reason='Resource provider has allocations.')
        if session.scalar(sa.select(sa.exists().where(
                RP.parent_provider_id == provider.id))):
            raise exceptions.CannotDeleteParentProvider(uuid=uuid)
        for model in (models.Inventory, instance_models.InstanceCapacity,
                      models.ResourceProviderTrait,
                      models.ResourceProviderAggregate):
            session.execute(sa.delete(model).where(
                model.resource_provider_id == provider.id))
        provider.root_provider_id = None
        session.flush()
        session.delete(provider)
