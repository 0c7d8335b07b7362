"""Hosts in and out of service, and which manager checks a host's health.

A host out of service has ``reservable`` false, with the reason and who
took it out: ``operator`` or the name of the health source that found it
down. Its resource provider carries ``COMPUTE_STATUS_DISABLED`` meanwhile,
as Nova marks the provider of a disabled compute service.
"""

import datetime

import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.models import host as models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

OPERATOR = 'operator'
DISABLED_TRAIT = 'COMPUTE_STATUS_DISABLED'

_HOST = models.ComputeHost
_RP = placement_models.ResourceProvider
_RPT = placement_models.ResourceProviderTrait
_T = placement_models.Trait


def _locked(session, host_id):
    """The host row, locked as the allocation path locks candidates."""
    host = session.scalars(
        sa.select(_HOST).where(_HOST.id == host_id).with_for_update()
        .execution_options(populate_existing=True)).first()
    if host is None:
        raise exceptions.HostNotFound(host=host_id)
    return host


def host_id_of(context, ref: str):
    """The id of the host whose id or name is ``ref``; HostNotFound."""
    with db_session.reader.using(context) as session:
        found = session.scalar(sa.select(_HOST.id).where(
            _HOST.hypervisor_hostname == ref))
        if found is None:
            found = session.scalar(sa.select(_HOST.id).where(
                sa.cast(_HOST.id, sa.String) == ref))
        if found is None:
            raise exceptions.HostNotFound(host=ref)
        return found


def set_reservable(context, host_id, reservable: bool,
                   reason: str | None = None, by: str = OPERATOR,
                   only_if_by: str | None = None) -> bool:
    """Take a host out of service or bring it back; True if it changed.

    ``only_if_by``: change nothing unless the host was taken out by that
    source (a health source brings back only the hosts it took out).
    Committed before any healing reads the host's allocations, so no
    allocation can land on it after healing looked.
    """
    with allocation_api.PROCESS_LOCK, \
            db_session.writer.using(context) as session:
        host = _locked(session, host_id)
        if only_if_by is not None and host.reservable_by != only_if_by:
            return False
        changed = bool(host.reservable) != reservable
        if reservable:
            host.reservable_reason = host.reservable_by = None
        else:
            host.reservable_reason = reason
            host.reservable_by = by
        host.reservable = reservable
        if changed and host.resource_provider_id is not None:
            _set_disabled_trait(session, host.resource_provider_id,
                                not reservable)
        session.flush()
        return changed


def _set_disabled_trait(session, provider_id: int, disabled: bool) -> None:
    trait_id = session.scalar(sa.select(_T.id).where(
        _T.name == DISABLED_TRAIT))
    if trait_id is None:
        # A standard trait; the catalogue may not have been synced yet.
        session.add(_T(name=DISABLED_TRAIT))
        session.flush()
        trait_id = session.scalar(sa.select(_T.id).where(
            _T.name == DISABLED_TRAIT))
    held = session.scalar(sa.select(_RPT.trait_id).where(
        _RPT.resource_provider_id == provider_id, _RPT.trait_id == trait_id))
    if disabled and held is None:
        session.execute(sa.insert(_RPT).values(
            resource_provider_id=provider_id, trait_id=trait_id))
    elif not disabled and held is not None:
        session.execute(sa.delete(_RPT).where(
            _RPT.resource_provider_id == provider_id,
            _RPT.trait_id == trait_id))
    else:
        return
    # Placement clients cache by generation: a trait change bumps it.
    session.execute(sa.update(_RP).where(_RP.id == provider_id).values(
        generation=_RP.generation + 1))


def claim_health_checks(context, checker: str, now: datetime.datetime,
                        interval: datetime.timedelta,
                        limit: int = 1000) -> list:
    """Claim up to ``limit`` hosts not checked for ``interval``: they are
    this checker's until ``interval`` passes. [(id, name, service_name,
    reservable, reservable_by)], in one select and one guarded update, so
    of several managers exactly one claims each host. ``now`` is whole
    seconds (MySQL's DATETIME keeps no more)."""
    stale = now - interval
    due = sa.or_(_HOST.health_checked_at.is_(None),
                 _HOST.health_checked_at <= stale)
    with db_session.writer.using(context) as session:
        ids = list(session.scalars(
            sa.select(_HOST.id).where(due)
            .order_by(_HOST.health_checked_at, _HOST.id).limit(limit)))
        if not ids:
            return []
        session.execute(
            sa.update(_HOST).where(_HOST.id.in_(ids), due)
            .values(health_checked_at=now, health_checker=checker)
            .execution_options(synchronize_session=False))
        rows = session.execute(
            sa.select(_HOST.id, _HOST.hypervisor_hostname, _HOST.service_name,
                      _HOST.reservable, _HOST.reservable_by)
            .where(_HOST.id.in_(ids), _HOST.health_checker == checker,
                   _HOST.health_checked_at == now)
            .order_by(_HOST.id))
        return [tuple(row) for row in rows]


def reservable_of(context, host_ids) -> dict:
    """{host id: reservable} for the hosts of ``host_ids``."""
    host_ids = list(host_ids)
    if not host_ids:
        return {}
    with db_session.reader.using(context) as session:
        return dict(session.execute(
            sa.select(_HOST.id, _HOST.reservable)
            .where(_HOST.id.in_(host_ids))).all())
