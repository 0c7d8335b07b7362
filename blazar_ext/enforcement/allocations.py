"""The resources a stored lease holds, for the filters' payloads.

The manager gives the chain its lease dicts as they are stored, without the
allocated resources. The spec's payloads carry them (with each resource's
extra capabilities), so the chain reads them through the database API when
a stored lease's reservations do not already list them.
"""

from oslo_log import log as logging

from blazar_ext import context as blazar_context
from blazar_ext.db.api import transaction
from blazar_ext.plugins import loader

LOG = logging.getLogger(__name__)


def _db_context(context):
    # Reads need an enginefacade-aware context; the chain may be handed a
    # plain dict (tests, custom callers).
    if isinstance(context, blazar_context.RequestContext):
        return context
    return blazar_context.get_admin_context()


def _held(ctx, reservations: list, plugins) -> dict:
    """{reservation_id: [resource dict]}: one read of the held ids and one
    of the resources per type."""
    by_type: dict = {}
    for reservation in reservations:
        by_type.setdefault(reservation.get('resource_type'),
                           []).append(reservation['id'])
    filled = {}
    for resource_type, ids in by_type.items():
        plugin = plugins.by_type.get(resource_type)
        if plugin is None:
            continue
        with transaction.reading(ctx) as session:
            held = plugin.held(session, ids)
        wanted = sorted({i for got in held.values() for i in got})
        resources = {r['id']: r
                     for r in plugin.load_resources(ctx, wanted)}
        for reservation_id in ids:
            filled[reservation_id] = [resources[i] for i in
                                      held.get(reservation_id, [])
                                      if i in resources]
    return filled


def with_allocations(context, lease: dict, plugins=None) -> dict:
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
        filled = _held(ctx, missing, plugins or loader.get())
    except Exception:
        LOG.exception('Cannot read the allocations of lease %s for usage '
                      'enforcement', lease.get('id'))
        return lease
    copy = dict(lease)
    copy['reservations'] = [
        dict(r, allocations=filled[r['id']]) if r.get('id') in filled else r
        for r in reservations]
    return copy
