"""Extension advice: how far could a lease's end move, on the resources it
holds and by moving to others that match?

Per reservation, the latest end on the resources held is the first start
of another reservation's allocation on them (less the cleaning time for
hosts); the latest end by moving is the latest window edge at which the
type's ``candidates`` (as a reallocation of this reservation) still find
enough. The lease's answer is the earliest of its reservations', then
asked of the enforcement chain (a refused end is bisected to the latest
end it accepts, to the minute): the rules stay in the chain.
"""

import datetime

from oslo_config import cfg
from oslo_utils import timeutils

from blazar_ext.db.api import slot_search
from blazar_ext.db.api import transaction
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext import exceptions
from blazar_ext.manager import plan
from blazar_ext import states

CONF = cfg.CONF
MINUTE = datetime.timedelta(minutes=1)

# Where each type's held resources are allocated: (allocation table,
# resource column). Instances share hosts: any other allocation on a
# held host counts as busy (a conservative answer).
_HOSTS = ((lease_models.ComputeHostAllocation, 'compute_host_id'),
          (instance_models.InstanceAllocation, 'compute_host_id'))
HELD_TABLES = {'physical:host': _HOSTS,
               'virtual:instance': _HOSTS,
               'flavor:instance': _HOSTS,
               'virtual:floatingip': ((fip_models.FloatingIPAllocation,
                                       'floatingip_id'),)}
CLEANED = frozenset(('physical:host',))


def _as_datetime(value) -> datetime.datetime:
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value


def _floor(value: datetime.datetime) -> datetime.datetime:
    return value.replace(second=0, microsecond=0)


class _Reallocation(plan.Search):
    """plan.Search's edge walk, asking ``candidates`` as a reallocation of
    one reservation (its own allocations do not count)."""

    def __init__(self, context, plugins, session, spec, reservation_id,
                 min_end):
        request = plan.Request([spec], datetime.timedelta(0),
                               datetime.timedelta(0), min_end, min_end, 1,
                               'longest')
        super().__init__(context, plugins, request, session)
        self.reservation_id = reservation_id

    def fits(self, start, end):
        plugin = self.plugins.get(self.request.specs[0]['resource_type'])
        try:
            return [plugin.candidates(self.context, self.session,
                                      self.request.specs[0], start, end,
                                      reservation_id=self.reservation_id)]
        except exceptions.NotEnoughResources:
            return None


def _held_latest(session, reservation: dict, held: list, end, horizon,
                 cleaning) -> datetime.datetime:
    tables = HELD_TABLES.get(reservation['resource_type'])
    if tables is None:
        return end  # a type we cannot read: no promise
    busy = slot_search.next_busy(
        session, [(table, column, held) for table, column in tables],
        end, reservation['id'])
    if busy is None:
        return horizon
    if reservation['resource_type'] in CLEANED:
        busy -= cleaning
    return min(max(_floor(busy), end), horizon)


def _reservation(lease_manager, context, session, lease: dict,
                 reservation: dict, horizon) -> dict:
    plugins = lease_manager.plugins
    plugin = plugins.get(reservation['resource_type'])
    start = _as_datetime(lease['start_date'])
    end = _as_datetime(lease['end_date'])
    cleaning = datetime.timedelta(minutes=CONF.manager.cleaning_time)
    held = plugin.held(session, [reservation['id']]).get(
        reservation['id'], [])
    on_held = _held_latest(session, reservation, held, end, horizon,
                           cleaning)
    spec = plugin.normalize({}, plugin.spec_of(reservation),
                            private_visible=True)
    # From now on for an active lease: what was busy before does not
    # stand in the way of a move.
    since = max(start, _floor(timeutils.utcnow()))
    search = _Reallocation(context, plugins, session, spec,
                           reservation['id'], end)
    search.request.min_duration = max(end - since, MINUTE)
    moving = end
    if since < end and search.fits(since, end) is not None:
        moving = search.latest_end(since, horizon)
    moving = max(moving, on_held)
    return {'id': reservation['id'],
            'resource_type': reservation['resource_type'],
            'latest_end_date': plan._stamp(on_held),
            'latest_end_date_moving': plan._stamp(moving),
            'moving_helps': moving > on_held,
            '_on_held': on_held, '_moving': moving}


def _allowed(lease_manager, context, lease: dict, end, wanted):
    """The latest end up to ``wanted`` the enforcement chain accepts: asks
    for ``wanted``, then bisects minutes down to the current end."""
    if wanted <= end or not lease_manager.enforcement.enabled:
        return wanted

    def accepted(new_end) -> bool:
        current = lease_manager._payload(
            lease, [lease_manager._spec_of(r) for r in lease['reservations']])
        new = lease_manager._payload(dict(lease, end_date=new_end),
                                     [lease_manager._spec_of(r) for r in
                                      lease['reservations']])
        try:
            lease_manager.enforcement.check_update(context, current, new)
        except exceptions.Forbidden:
            return False
        return True

    if accepted(wanted):
        return wanted
    low, high = 0, int((wanted - end) / MINUTE)
    while low + 1 < high:
        mid = (low + high) // 2
        if accepted(end + mid * MINUTE):
            low = mid
        else:
            high = mid
    return end + low * MINUTE


def advise(lease_manager, context, lease_id: str) -> dict:
    """The extension advice of a lease (GET /v1/leases/{id}/extension)."""
    lease = lease_manager.lease_get(context, lease_id)
    if lease['status'] not in states.Lease.UPDATABLE:
        raise exceptions.InvalidLeaseState(
            lease=lease_id, status=lease['status'],
            reason='only PENDING or ACTIVE leases can be extended')
    end = _as_datetime(lease['end_date'])
    horizon = max(end, _floor(timeutils.utcnow())) + datetime.timedelta(
        days=CONF.plan.max_window_days)
    with transaction.reading(context) as session:
        reservations = [
            _reservation(lease_manager, context, session, lease, r, horizon)
            for r in lease['reservations']
            if r['resource_type'] in lease_manager.plugins.by_type]
    on_held = min([r.pop('_on_held') for r in reservations] or [horizon])
    moving = min([r.pop('_moving') for r in reservations] or [horizon])
    allowed_held = _allowed(lease_manager, context, lease, end, on_held)
    allowed_moving = _allowed(lease_manager, context, lease, end, moving)
    limited = 'resources'
    if allowed_moving < moving:
        limited = 'enforcement'
    elif moving >= horizon:
        limited = 'horizon'
    return {'lease_id': lease_id, 'end_date': plan._stamp(end),
            'latest_end_date': plan._stamp(allowed_held),
            'latest_end_date_moving': plan._stamp(allowed_moving),
            'moving_helps': allowed_moving > allowed_held,
            'limited_by': limited,
            'reservations': reservations}
