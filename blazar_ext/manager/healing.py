"""Healing: reservations that lost a resource get a replacement, or are
flagged.

When a resource (a host, a floating IP, ...) goes out of service, every
live reservation with an allocation on it (where its type's plugin says:
``lost_sources``) whose window has not ended is handed to its
resource type's ``heal`` hook, which holds a replacement satisfying the
same request for the rest of the window (active: from now; future: the
whole window). Where none fits, the allocation stays and the reservation
is flagged ``missing_resources``, its lease ``degraded``; degraded
reservations are retried whenever a resource comes back or is registered,
and on every health poll.

Enforcement: healing does not call the chain's ``check_update``. The
lease itself does not change (same owner, window and request); only which
resource serves it does, and that resource satisfies the request the
chain approved. Filters that account for resources hear of it through the
``lease.event.healed`` notification, which names what moved.

Events, recorded in the outbox in the healing transaction (sent once it
commits; oslo.messaging names in brackets):
    reservation.healed   a reservation got a replacement (payload: the
    (lease.event.healed) lease, with ``healed``: [{reservation_id,
                         resource_type, from, to}])
    lease.degraded       a reservation of the lease lost a resource and
                         found no replacement (payload: the lease, with
                         ``missing``: [reservation ids]); once, not on
                         every retry
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from blazar_ext.db.api import healing as healing_api
from blazar_ext.db.api import lease as lease_api
from blazar_ext import metrics
from blazar_ext.plugins import base

LOG = logging.getLogger(__name__)


class Healer:
    """Moves or flags the reservations of resources out of service."""

    def __init__(self, lease_manager):
        self.leases = lease_manager

    # Service state changes (then heal what they affect)

    def set_reservable(self, context, resource_type: str, resource_id,
                       reservable: bool, reason: str | None = None,
                       by: str = base.OPERATOR,
                       only_if_by: str | None = None) -> bool:
        """Take a resource of ``resource_type`` out of service or back
        (its plugin's ``set_reservable``), then heal; True if its state
        changed."""
        plugin = self.leases.plugins.get(resource_type)
        changed = plugin.set_reservable(
            context, resource_id, reservable, reason=reason, by=by,
            only_if_by=only_if_by)
        if changed:
            LOG.info('%s %s is %s (%s: %s)', resource_type, resource_id,
                     'back in service' if reservable else 'out of service',
                     by, reason or '-')
            if reservable:
                self.retry_missing(context)
            else:
                self.heal(context, lost={resource_type: [resource_id]})
        return changed

    # Healing

    def sources(self) -> list:
        """Where the enabled types' reservations hold resources that can
        go out of service (their plugins' ``lost_sources``)."""
        return [source for plugin in self.leases.plugins
                for source in plugin.lost_sources()]

    def heal(self, context, lost: dict | None = None,
             retry_missing: bool = False,
             now: datetime.datetime | None = None) -> list:
        """Heal the reservations on the resources ``lost`` ({resource
        type: [ids]}; every resource out of service when None); returns
        the outcomes."""
        now = now or timeutils.utcnow()
        sources = self.sources()
        lease_ids = healing_api.leases_to_heal(
            context, now, sources, lost=lost, retry_missing=retry_missing)
        if not lease_ids:
            return []
        outcomes = healing_api.heal_leases(context, lease_ids, now,
                                           self._heal_reservations, sources,
                                           self._record)
        for outcome in outcomes:
            for change in outcome['replaced']:
                metrics.count_heal('replaced')
                LOG.info('Healed reservation %s of lease %s: %s %s -> %s',
                         change['reservation_id'], outcome['lease_id'],
                         change['resource_type'], change['from'],
                         change['to'])
            for reservation_id in outcome['newly_missing']:
                metrics.count_heal('missing')
                LOG.warning('Reservation %s of lease %s is missing '
                            'resources: nothing free fits',
                            reservation_id, outcome['lease_id'])
        self._healed(context, outcomes)
        self.leases.notify(context)
        return outcomes

    def retry_missing(self, context,
                      now: datetime.datetime | None = None) -> list:
        """Retry every reservation flagged missing resources (a host came
        back or was registered), and heal what is left on resources out of
        service."""
        return self.heal(context, retry_missing=True, now=now)

    def _heal_reservations(self, session, resource_type: str,
                           items: list) -> list:
        """The resource type's healing for (reservation, lost, start, end)
        items, through its ``heal_many`` hook."""
        plugin = self.leases.plugins.by_type.get(resource_type)
        if plugin is None:  # a type since disabled: flag it
            return [{old: None for old in item[1]} for item in items]
        # The reservations with their type's detail (the request to match).
        details = plugin.details(session, [item[0]['id'] for item in items])
        items = [(dict(item[0], **details.get(item[0]['id'], {})),)
                 + tuple(item[1:]) for item in items]
        return plugin.heal_many(session, items)

    def _healed(self, context, outcomes: list) -> None:
        """Each type's ``healed`` hook for the active reservations that
        moved (their Placement view follows)."""
        moved: dict = {}
        for outcome in outcomes:
            for change in outcome['replaced']:
                moved.setdefault((change['resource_type'],
                                  change['reservation_id']),
                                 []).append(change['from'])
        for (resource_type, reservation_id), lost in moved.items():
            plugin = self.leases.plugins.by_type.get(resource_type)
            if plugin is None:
                continue
            try:
                plugin.healed(context, {'id': reservation_id}, lost)
            except Exception:  # the move is committed; log and go on
                LOG.exception('Reservation %s moved, but its %s view did '
                              'not follow', reservation_id, resource_type)

    def _record(self, session, outcomes: list) -> None:
        """The outbox events of the outcomes, in the healing transaction."""
        for outcome in outcomes:
            if not (outcome['replaced'] or outcome['newly_missing']):
                continue
            lease = self.leases.plugins.add_details(session, [
                lease_api.lease_read(session, outcome['lease_id'])])[0]
            if outcome['replaced']:
                self.leases.record(session, 'reservation.healed', lease,
                                   healed=outcome['replaced'])
            if outcome['newly_missing']:
                self.leases.record(session, 'lease.degraded', lease,
                                   missing=outcome['missing'])
