"""Reservable floating IPs (registered by the operator, no Neutron)."""

import datetime

from oslo_db import exception as db_exc
import sqlalchemy as sa

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db import driver_read
from blazar_ext.db.models import floatingip as models
from blazar_ext.db.models import maintenance as maintenance_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions


def _get_model(session, fip_id: str, lock: bool = False):
    query = sa.select(models.FloatingIP).where(models.FloatingIP.id == fip_id)
    if lock:
        query = query.with_for_update()
    fip = session.scalars(query).first()
    if fip is None:
        raise exceptions.FloatingIPNotFound(floatingip=fip_id)
    return fip


def floatingip_get(context, fip_id: str) -> dict:
    with db_session.reader.using(context) as session:
        return _get_model(session, fip_id).to_dict()


def network_of(session, fip_id: str) -> str:
    """The network of a floating IP (FloatingIPNotFound)."""
    return _get_model(session, fip_id).floating_network_id


def floatingips_get(context, fip_ids) -> list:
    """The floating IPs of ``fip_ids`` that exist, in one query."""
    fip_ids = list(fip_ids)
    if not fip_ids:
        return []
    with db_session.reader.using(context) as session:
        return [f.to_dict() for f in session.scalars(
            sa.select(models.FloatingIP).where(
                models.FloatingIP.id.in_(fip_ids)))]


# Built once; its rows, not ORM objects, are shown.
_ALL = sa.select(models.FloatingIP.__table__).order_by(
    models.FloatingIP.created_at, models.FloatingIP.id)


def floatingip_list(context) -> list:
    with db_session.reader.using(context) as session:
        return driver_read.dicts(session.connection(), _ALL)


def floatingip_create(context, values: dict) -> dict:
    """Register a floating IP; FloatingIPExists on a duplicate."""
    with db_session.writer.using(context) as session:
        fip = models.FloatingIP(**values)
        session.add(fip)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            raise exceptions.FloatingIPExists(
                address=values['floating_ip_address'],
                network=values['floating_network_id'])
        return fip.to_dict()


def floatingip_delete(context, fip_id: str,
                      now: datetime.datetime) -> None:
    """Unregister; FloatingIPInUse while it has current/future allocations."""
    with allocation_api.PROCESS_LOCK:
        with db_session.writer.using(context) as session:
            fip = _get_model(session, fip_id, lock=True)
            if allocation_api.floatingip_has_allocations_after(
                    session, fip.id, now):
                raise exceptions.FloatingIPInUse(floatingip=fip_id)
            session.execute(sa.delete(models.FloatingIPAllocation).where(
                models.FloatingIPAllocation.floatingip_id == fip.id))
            # Its past maintenance windows (a current one holds it).
            window = maintenance_models.MaintenanceWindow
            session.execute(sa.delete(window).where(
                window.floatingip_id == fip.id))
            session.delete(fip)


def addresses_of(session, fip_ids) -> dict:
    """{id: address} of the floating IPs of ``fip_ids``."""
    fip_ids = list(fip_ids)
    if not fip_ids:
        return {}
    return dict(session.execute(
        sa.select(models.FloatingIP.id, models.FloatingIP.floating_ip_address)
        .where(models.FloatingIP.id.in_(fip_ids))).all())


def floatingip_set_reservable(context, fip_id: str,
                              reservable: bool) -> bool:
    """Take a floating IP out of service or back; True if it changed.
    Committed before healing reads its allocations."""
    with allocation_api.PROCESS_LOCK:
        with db_session.writer.using(context) as session:
            fip = _get_model(session, fip_id, lock=True)
            changed = bool(fip.reservable) != reservable
            fip.reservable = reservable
            return changed
