"""Traits: the catalogue, provider traits, and trait filters as SQL."""

import dataclasses

import os_traits
from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api.placement import provider_base as rp_api
from blazar_ext.db.api import retry
from blazar_ext.db import driver_read
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import traits as trait_query

_RPT = models.ResourceProviderTrait
_T = models.Trait
# Asked by every filtered request: built once, the names bound as a list.
_NAMES_IN = sa.select(_T.name).where(
    _T.name.in_(sa.bindparam('names', expanding=True)))
_IDS_BY_NAME = sa.select(_T.name, _T.id).where(
    _T.name.in_(sa.bindparam('names', expanding=True)))


def _trait_id(name: str):
    return sa.select(_T.id).where(_T.name == name).scalar_subquery()


def _has_any(provider_id, names) -> sa.ColumnElement:
    """EXISTS a trait of ``names`` on the provider ``provider_id``."""
    names = sorted(names)
    if len(names) == 1:
        trait_clause = _RPT.trait_id == _trait_id(names[0])
    else:
        trait_clause = _RPT.trait_id.in_(
            sa.select(_T.id).where(_T.name.in_(names)))
    return sa.exists().where(_RPT.resource_provider_id == provider_id,
                             trait_clause)


def provider_filter(requirement: trait_query.TraitRequirement,
                    provider_id) -> list:
    """WHERE clauses a provider id column must meet for ``requirement``.

    ``provider_id`` is a column (or expression) holding
    resource_providers.id; use it in any query that joins providers.
    """
    clauses = [_has_any(provider_id, [name])
               for name in sorted(requirement.required)]
    if requirement.forbidden:
        clauses.append(~_has_any(provider_id, requirement.forbidden))
    clauses.extend(_has_any(provider_id, group)
                   for group in requirement.any_of)
    return clauses


def narrowed(query: sa.Select,
             requirement: trait_query.TraitRequirement | None,
             provider_id) -> sa.Select:
    """``query`` narrowed to the providers meeting ``requirement`` (None:
    all), in provider id order (``provider_id``: the query's provider id
    column).

    With a required trait, the query starts from that trait's rows (the
    first by name), which the (trait_id, resource_provider_id) index
    holds in provider id order, instead of testing every provider: the
    trait filter then costs a fifth as much on SQLite, which tries rows
    in the order they come, and a limit still stops the scan early.
    The other traits are EXISTS tests (provider_filter).
    """
    names = sorted(requirement.required) if requirement else ()
    if not names:
        if requirement:
            query = query.where(*provider_filter(requirement, provider_id))
        return query.order_by(provider_id)
    first = sa.orm.aliased(_RPT)
    rest = dataclasses.replace(requirement, required=frozenset(names[1:]))
    return (query.join(first, sa.and_(
        first.resource_provider_id == provider_id,
        first.trait_id == _trait_id(names[0])))
        .where(*provider_filter(rest, provider_id))
        .order_by(first.resource_provider_id))


def select_provider_ids(requirement: trait_query.TraitRequirement
                        ) -> sa.Select:
    """SELECT resource_providers.id, uuid, name meeting ``requirement``."""
    rp = models.ResourceProvider
    return sa.select(rp.id, rp.uuid, rp.name).where(
        *provider_filter(requirement, rp.id))


def check_exist(session, names) -> None:
    """Raise TraitNotFound naming every trait of ``names`` not defined."""
    names = set(names)
    if not names:
        return
    found = set(session.scalars(
        _NAMES_IN, {'names': sorted(names)}))
    missing = names - found
    if missing:
        raise exceptions.TraitNotFound(names=', '.join(sorted(missing)))


def ids_by_name(session, names) -> dict:
    """{name: id}; TraitNotFound naming every one not defined."""
    names = set(names)
    if not names:
        return {}
    found = dict(session.execute(
        _IDS_BY_NAME, {'names': sorted(names)}).all())
    missing = names - set(found)
    if missing:
        raise exceptions.TraitNotFound(names=', '.join(sorted(missing)))
    return found


# Catalogue.

def sync_standard_traits(context) -> int:
    """Insert every os-traits standard trait missing; return how many."""
    with db_session.writer.using(context) as session:
        have = set(session.scalars(sa.select(_T.name)))
        missing = sorted(set(os_traits.get_traits()) - have)
        if missing:
            session.execute(sa.insert(_T), [{'name': n} for n in missing])
        return len(missing)


def is_standard(name: str) -> bool:
    return not name.startswith(os_traits.CUSTOM_NAMESPACE)


def _list_statement(names: bool, prefix: bool,
                    associated: bool | None) -> sa.Select:
    """GET /traits' statement: trait names ``names`` (bound as a list),
    starting with ``prefix`` (bound as ``pattern``, LIKE-escaped with a
    backslash, and ``prefix`` itself), with or without providers."""
    query = sa.select(_T.name)
    if names:
        query = query.where(_T.name.in_(sa.bindparam('names',
                                                     expanding=True)))
    if prefix:
        # LIKE finds the prefix by index, but SQLite's LIKE folds ASCII
        # case ("custom" would find CUSTOM_GPU): the prefix compared
        # exactly decides.
        query = query.where(
            _T.name.like(sa.bindparam('pattern'), escape='\\'),
            sa.func.substr(_T.name, 1, sa.bindparam('length'))
            == sa.bindparam('prefix'))
    if associated is not None:
        used = sa.exists().where(_RPT.trait_id == _T.id)
        query = query.where(used if associated else ~used)
    return query


# Built once for each filter GET /traits can have.
_LISTS = {(names, prefix, associated):
          _list_statement(names, prefix, associated)
          for names in (False, True) for prefix in (False, True)
          for associated in (None, False, True)}


def list_traits(context, name_in=None, starts_with=None,
                associated=None) -> list:
    """Trait names, filtered as GET /traits asks, in byte order."""
    params: dict = {}
    if name_in is not None:
        params['names'] = sorted(set(name_in))
    if starts_with is not None:
        params['pattern'] = (starts_with.replace('\\', '\\\\')
                             .replace('%', '\\%').replace('_', '\\_')
                             + '%')
        params['length'] = len(starts_with)
        params['prefix'] = starts_with
    query = _LISTS[name_in is not None, starts_with is not None, associated]
    with db_session.reader.using(context) as session:
        # Sorted here: ORDER BY follows the database's collation, and a
        # PostgreSQL database made in an English locale sorts CUSTOM_B_2
        # before CUSTOM_B2 (SQLite and MySQL's utf8mb4_bin after).
        # On the connection: a column query has nothing for the ORM's
        # execution path to do.
        return sorted(row[0] for row in driver_read.rows(
            session.connection(), query, params)[1])


def trait_exists(context, name: str) -> bool:
    with db_session.reader.using(context) as session:
        return session.scalar(
            sa.select(_T.id).where(_T.name == name)) is not None


@retry.on_deadlock
def create_trait(context, name: str) -> bool:
    """Create a custom trait; True if created, False if it existed."""
    with db_session.writer.using(context) as session:
        if session.scalar(sa.select(_T.id).where(_T.name == name)):
            return False
        try:
            with session.begin_nested():
                session.add(_T(name=name))
        except db_exc.DBDuplicateEntry:
            return False
        return True


@retry.on_deadlock
def delete_trait(context, name: str) -> None:
    with db_session.writer.using(context) as session:
        trait_id = session.scalar(sa.select(_T.id).where(_T.name == name))
        if trait_id is None:
            raise exceptions.TraitNotFound(names=name)
        if is_standard(name):
            raise exceptions.TraitCannotDeleteStandard(name=name)
        if session.scalar(sa.select(sa.exists().where(
                _RPT.trait_id == trait_id))):
            raise exceptions.TraitInUse(name=name)
        session.execute(sa.delete(_T).where(_T.id == trait_id))


# Provider traits.

def traits_of(session, provider_ids) -> dict:
    """{provider id: trait names in byte order} in one query."""
    result = {pid: [] for pid in provider_ids}
    if not result:
        return result
    rows = session.connection().execute(
        sa.select(_RPT.resource_provider_id, _T.name)
        .join(_T, _T.id == _RPT.trait_id)
        .where(_RPT.resource_provider_id.in_(list(result))))
    for pid, name in rows:
        result[pid].append(name)
    # Sorted here, not by the database's collation (see list_traits).
    for names in result.values():
        names.sort()
    return result


def get_provider_traits(context, uuid: str) -> dict:
    with db_session.reader.using(context) as session:
        provider = rp_api.get_model(session, uuid)
        return {'traits': traits_of(session, [provider.id])[provider.id],
                'resource_provider_generation': provider.generation}


@retry.on_deadlock
def set_provider_traits(context, uuid: str, names, generation: int) -> dict:
    """Replace the provider's traits; bumps its generation."""
    with db_session.writer.using(context) as session:
        provider = rp_api.get_model(session, uuid)
        ids = ids_by_name(session, names)
        rp_api.increment_generation(session, provider, generation,
                                    'resource provider traits')
        session.execute(sa.delete(_RPT).where(
            _RPT.resource_provider_id == provider.id))
        if ids:
            session.execute(sa.insert(_RPT), [
                {'resource_provider_id': provider.id, 'trait_id': tid}
                for tid in ids.values()])
        return {'traits': sorted(ids),
                'resource_provider_generation': provider.generation}


@retry.on_deadlock
def delete_provider_traits(context, uuid: str) -> None:
    with db_session.writer.using(context) as session:
        provider = rp_api.get_model(session, uuid)
        rp_api.increment_generation(session, provider, provider.generation,
                                    'resource provider traits')
        session.execute(sa.delete(_RPT).where(
            _RPT.resource_provider_id == provider.id))
