"""The resources a stored lease holds, for the filters' payloads.

The manager gives the chain its lease dicts as they are stored, without the
allocated resources. The spec's payloads carry them (with each resource's
extra capabilities), so the chain reads them through the database API when
a stored lease's reservations do not already list them.
"""

from oslo_log import log as logging

from blazar_ext import context as blazar_context
from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import floatingip as floatingip_api
from blazar_ext.db.api import host as host_api
from blazar_ext import exceptions

LOG = logging.getLogger(__name__)

HOST = 'physical:host'
FLOATINGIP = 'virtual:floatingip'


def _db_context(context):
    # Reads need an enginefacade-aware context; the chain may be handed a
    # plain dict (tests, custom callers).
    if isinstance(context, blazar_context.RequestContext):
        return context
    return blazar_context.get_admin_context()


def _host_allocations(ctx, lease_id: str) -> dict:
    """{reservation_id: [host dict]} of the lease's host reservations."""
    by_reservation: dict = {}
    hosts: dict = {}
    listing = allocation_api.host_allocation_list(ctx, lease_id=lease_id)
    for host_id, reservations in listing.items():
        for reservation in reservations:
            if host_id not in hosts:
                try:
                    hosts[host_id] = host_api.host_get(ctx, host_id)
                except exceptions.HostNotFound:
                    continue
            by_reservation.setdefault(reservation['id'], []).append(
                hosts[host_id])
    return by_reservation


def _floatingip_allocations(ctx, reservation_id: str) -> list:
    found = []
    for fip_id in allocation_api.floatingip_allocation_list(
            ctx, reservation_id):
        try:
            found.append(floatingip_api.floatingip_get(ctx, fip_id))
        except exceptions.FloatingIPNotFound:
            continue
    return found


def with_allocations(context, lease: dict) -> dict:
    """A copy of a stored lease whose reservations list their allocations.

    Reservations that already have ``allocations``, or have no ``id`` (not
    stored yet), are left as they are. Read errors are logged and leave the
    allocations out: enforcement still runs on the rest of the lease.
    """
    reservations = lease.get('reservations') or []
    missing = [r for r in reservations
               if 'allocations' not in r and r.get('id')]
    if not missing or not lease.get('id'):
        return lease
    ctx = _db_context(context)
    try:
        hosts = None
        filled = {}
        for reservation in missing:
            kind = reservation.get('resource_type')
            if kind == HOST:
                if hosts is None:
                    hosts = _host_allocations(ctx, lease['id'])
                filled[reservation['id']] = hosts.get(reservation['id'], [])
            elif kind == FLOATINGIP:
                filled[reservation['id']] = _floatingip_allocations(
                    ctx, reservation['id'])
    except Exception:
        LOG.exception('Cannot read the allocations of lease %s for usage '
                      'enforcement', lease.get('id'))
        return lease
    copy = dict(lease)
    copy['reservations'] = [
        dict(r, allocations=filled[r['id']]) if r.get('id') in filled else r
        for r in reservations]
    return copy
