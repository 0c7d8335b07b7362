"""physical:host reservations: validating requests and holding hosts.

The allocation methods run inside the manager's writer transaction (the
session is passed in) and raise NotEnoughResources to roll it back.
"""

import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import healing as healing_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_filter
from blazar_ext.db.api import host_properties
from blazar_ext.db.api import host_reservation as detail_api
from blazar_ext.db.api import host_service
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext import exceptions
from blazar_ext.plugins import base
from blazar_ext.plugins import physical_host
from blazar_ext.query import traits as trait_query

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

RESOURCE_TYPE = physical_host.RESOURCE_TYPE
BEFORE_END_ACTIONS = ('default', 'snapshot')


# Counts go to SQL (LIMIT) and to 32-bit columns.
MAX_COUNT = 2 ** 31 - 1


def _count(spec: dict, key: str) -> int:
    value = spec.get(key)
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value)
    if (isinstance(value, bool) or not isinstance(value, int)
            or not 1 <= value <= MAX_COUNT):
        raise exceptions.Invalid(
            reason='physical:host reservation: %s must be an integer from 1 '
                   'to %d, got %r' % (key, MAX_COUNT, spec.get(key)))
    return value


def _properties(spec: dict, key: str) -> str:
    value = spec.get(key) or ''
    if isinstance(value, (list, dict)):
        # The client sends strings; a JSON body may hold the list itself.
        value = jsonutils.dumps(value)
    if not isinstance(value, str):
        raise exceptions.Invalid(
            reason='physical:host reservation: %s must be a JSON string'
                   % key)
    return value


def _traits(spec: dict) -> str:
    """The traits requirement as stored: '' (none), one ``required``
    value, or a JSON list of several (each ANDed, as repeated
    ``required`` query parameters are in Placement)."""
    value = spec.get('traits') or ''
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise exceptions.Invalid(
                reason='physical:host reservation: traits must be a string '
                       'or a list of strings')
        value = jsonutils.dumps(value)
    if not isinstance(value, str):
        raise exceptions.Invalid(
            reason='physical:host reservation: traits must be a string or '
                   'a list of strings')
    trait_requirement(value)
    return value


def trait_requirement(stored: str) -> trait_query.TraitRequirement:
    """Parse a stored traits requirement; Invalid naming what is wrong."""
    if not stored:
        return trait_query.TraitRequirement()
    values = jsonutils.loads(stored) if stored.startswith('[') else stored
    try:
        return trait_query.parse(values)
    except (trait_query.TraitRequirementError, ValueError) as exc:
        raise exceptions.Invalid(
            reason='physical:host reservation: traits: %s' % exc)


class HostQuery:
    """A host request's parsed form: both property expressions, the traits
    requirement, and whether the caller may name private capabilities."""

    def __init__(self, spec: dict, private_visible: bool = False):
        self.properties = host_properties.HostQuery(
            spec.get('hypervisor_properties') or '',
            spec.get('resource_properties') or '')
        self.traits = trait_requirement(spec.get('traits') or '')
        self.private_visible = private_visible


class HostReservationPlugin(base.DetailTableMixin, base.ResourcePlugin):
    """Picks and holds hosts for physical:host reservations."""

    resource_type = RESOURCE_TYPE
    detail_columns = ('min', 'max', 'hypervisor_properties',
                      'resource_properties', 'before_end', 'traits')
    api_routes = {'os-hosts': 'blazar_ext.api.v1.hosts:HostsController'}
    calendar_tab = {'key': 'hosts', 'label': 'Hosts', 'column': 'Host',
                    'noun': 'hosts', 'path': '/v1/os-hosts/calendar'}
    policy_modules = ('blazar_ext.policies.oshosts',)
    catalog_resource_type = 'OS::Blazar::Host'
    detail_table = detail_api.DETAILS
    resource_operations = ('create', 'update', 'delete')
    legacy_rpc = {'create': ('create_host', '1.0', None),
                  'update': ('update_host', '1.0', 'host_id'),
                  'delete': ('delete_host', '1.0', 'host_id')}

    # Hosts: registration (physical_host), service state, health.

    @property
    def hosts(self) -> physical_host.HostPlugin:
        # Loaded on first use: the API process loads plugins too, for
        # their routes, and needs no host inventory.
        if getattr(self, '_hosts', None) is None:
            self._hosts = physical_host.HostPlugin()
        return self._hosts

    def create_resource(self, context, values: dict) -> dict:
        return self.hosts.create_host(context, values)

    def update_resource(self, context, resource_id: str,
                        values: dict) -> dict:
        return self.hosts.update_host(context, resource_id, values)

    def delete_resource(self, context, resource_id: str) -> None:
        self.hosts.delete_host(context, resource_id)

    def get_resource(self, context, resource_id: str) -> dict:
        return host_api.host_get(context, resource_id)

    def set_reservable(self, context, resource_id: str, reservable: bool,
                       reason: str | None = None, by: str = base.OPERATOR,
                       only_if_by: str | None = None) -> bool:
        return host_service.set_reservable(
            context, resource_id, reservable, reason=reason, by=by,
            only_if_by=only_if_by)

    def lost_sources(self) -> list:
        return [healing_api.LostSource(
            RESOURCE_TYPE, lease_models.ComputeHostAllocation,
            host_models.ComputeHost, 'compute_host_id')]

    maintenance_column = 'compute_host_id'

    def resource_id_of(self, context, ref: str) -> str:
        return str(host_service.host_id_of(context, ref))

    def hold_for_maintenance(self, session, reservation_id: str,
                             resource_id: str, start: datetime.datetime,
                             end: datetime.datetime) -> str | None:
        spec = self.normalize({'resource_type': RESOURCE_TYPE,
                               'min': 1, 'max': 1,
                               'hypervisor_properties': '',
                               'resource_properties': ''},
                              private_visible=True)
        allocation_api.allocate_hosts(session, reservation_id,
                                      [resource_id], start, end)
        return self.add_detail(session, reservation_id, spec)

    def health_targets(self, context, checker: str,
                       now: datetime.datetime,
                       interval: datetime.timedelta, limit: int) -> list:
        return [{'id': host_id, 'name': name, 'service_name': service,
                 'reservable': reservable, 'by': by}
                for host_id, name, service, reservable, by in
                host_service.claim_health_checks(
                    context, checker, now, interval, limit=limit)]

    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> base.Spec:
        """A validated spec; ``current`` supplies the fields not given."""
        merged = dict(current or {})
        merged.update({k: v for k, v in request.items() if v is not None})
        out = {'resource_type': RESOURCE_TYPE,
               'min': _count(merged, 'min'),
               'max': _count(merged, 'max'),
               'hypervisor_properties': _properties(
                   merged, 'hypervisor_properties'),
               'resource_properties': _properties(
                   merged, 'resource_properties'),
               'before_end': merged.get('before_end') or 'default',
               'traits': _traits(merged)}
        if out['min'] > out['max']:
            raise exceptions.Invalid(
                reason='Invalid values for min/max of hosts. Max must be '
                       'equal to or larger than min. physical:host '
                       'reservation: min (%d) must not exceed max (%d)'
                       % (out['min'], out['max']))
        if out['before_end'] not in BEFORE_END_ACTIONS:
            raise exceptions.Invalid(
                reason='physical:host reservation: before_end must be one '
                       'of %s' % ', '.join(BEFORE_END_ACTIONS))
        # Malformed expressions fail here, before anything is written.
        return base.Spec(out, parsed=HostQuery(out, private_visible))

    @staticmethod
    def _window(start: datetime.datetime, end: datetime.datetime) -> tuple:
        cleaning = datetime.timedelta(minutes=CONF.manager.cleaning_time)
        return start - cleaning, end + cleaning

    @staticmethod
    def _parsed(spec: dict) -> HostQuery:
        parsed = getattr(spec, 'parsed', None)
        return parsed if parsed is not None else HostQuery(spec)

    def _filter(self, session, spec: dict):
        parsed = self._parsed(spec)
        return host_filter.build(
            session, parsed.properties, parsed.traits,
            private_visible=parsed.private_visible,
            traits_field='physical:host reservation: traits')

    def allocate(self, context, session, reservation_id: str,
                 spec: base.Spec, start: datetime.datetime,
                 end: datetime.datetime) -> list:
        """Hold between min and max free matching hosts: one query."""
        low, high = self._window(start, end)
        seen = self._seen(session, spec)
        hosts = []
        if len(seen['hosts']) == spec['max']:
            # The hosts the spec got last, if free again: a primary key
            # lookup rather than a search of every host.
            hosts = allocation_api.host_candidates(
                session, seen['filter'], low, high, spec['max'],
                among=seen['hosts'])
        if len(hosts) < spec['max']:
            hosts = allocation_api.host_candidates(
                session, seen['filter'], low, high, spec['max'])
        self._require(len(hosts), spec)
        allocation_api.allocate_hosts(session, reservation_id, hosts,
                                      start, end)
        seen['hosts'] = hosts
        return hosts

    def _seen(self, session, spec: base.Spec) -> dict:
        """{'spec', 'filter', 'hosts'}: the spec's host filter, compiled
        once per transaction, and the hosts it got last. A lease series
        allocates one spec for each of its occurrences, and keeps the same
        hosts where they are free."""
        seen = session.info.setdefault('spec_hosts', {})
        # The spec is kept in its entry, so its id is not reused.
        found = seen.get(id(spec))
        if found is None or found['spec'] is not spec:
            found = seen[id(spec)] = {'spec': spec, 'hosts': [],
                                      'filter': self._filter(session, spec)}
        return found

    def pool_filter(self, session, spec: base.Spec):
        """The condition over ComputeHost of ``spec``, compiled once per
        transaction: the slot search reads its pool with it, then checks
        each option (``candidates``) with it, rather than looking up its
        capabilities and traits again for every check."""
        return self._seen(session, spec)['filter']

    def reallocate(self, context, session, reservation_id: str,
                   spec: base.Spec, start: datetime.datetime,
                   end: datetime.datetime) -> list:
        """Keep the current hosts that still fit, add hosts up to the new
        range, drop the rest; NotEnoughResources if min cannot be met."""
        current, kept, added = self._pick(context, session, reservation_id,
                                          spec, start, end)
        dropped = sorted(set(current) - set(kept))
        if dropped:
            allocation_api.release_hosts(session, reservation_id, dropped)
        allocation_api.allocate_hosts(session, reservation_id, added,
                                      start, end)
        return kept + added

    def candidates(self, context, session, spec: base.Spec,
                   start: datetime.datetime, end: datetime.datetime,
                   reservation_id: str | None = None,
                   among: list | None = None) -> list:
        """The hosts allocate (or, given ``reservation_id``, reallocate)
        would pick now, without holding them: what usage enforcement is
        shown before anything is written. NotEnoughResources as they
        would raise it. ``among``: only these hosts can be free (the slot
        search knows), so only they are looked at."""
        if reservation_id is None:
            low, high = self._window(start, end)
            hosts = allocation_api.host_candidates(
                session, self.pool_filter(session, spec),
                low, high, spec['max'], among=among, lock=False)
            self._require(len(hosts), spec)
            return hosts
        _current, kept, added = self._pick(
            context, session, reservation_id, spec, start, end, lock=False)
        return kept + added

    def _pick(self, context, session, reservation_id: str, spec: dict,
              start: datetime.datetime, end: datetime.datetime,
              lock: bool = True) -> tuple:
        """(current, kept, added) host ids for a changed reservation."""
        low, high = self._window(start, end)
        host_filter = self._filter(session, spec)
        current = allocation_api.host_allocations_of(session,
                                                     reservation_id)

        def candidates(limit, among=None, exclude=None):
            return allocation_api.host_candidates(
                session, host_filter, low, high, limit,
                exclude_reservation_id=reservation_id, among=among,
                exclude_hosts=exclude, lock=lock)
        kept, added = base.keep_then_add(current, candidates, spec,
                                         self._require)
        return current, kept, added

    @staticmethod
    def _require(found: int, spec: dict) -> None:
        if found < spec['min']:
            raise exceptions.NotEnoughResources(
                reason='physical:host reservation needs at least %d host(s) '
                       'matching its properties and free for the whole '
                       'lease; only %d found' % (spec['min'], found))

    def heal(self, session, reservation: dict, lost: list,
             start: datetime.datetime, end: datetime.datetime) -> dict:
        """Replace the out-of-service hosts ``lost`` with free hosts
        matching the same request over [start, end]: one query.

        Returns {lost host id: replacement id, or None where no host fits
        (that allocation stays)}. Private capabilities count: the manager
        heals on behalf of the operator.
        """
        host_filter = self._heal_filter(session, reservation)
        if host_filter is None:
            return {old: None for old in lost}
        low, high = self._window(start, end)
        # The reservation's own hosts are busy in its window already.
        found = allocation_api.host_candidates(
            session, host_filter, low, high, len(lost))
        replaced = dict(zip(lost, found))
        if replaced:
            allocation_api.release_hosts(session, reservation['id'],
                                         list(replaced))
            allocation_api.allocate_hosts(session, reservation['id'],
                                          list(replaced.values()), start,
                                          end)
        return {old: replaced.get(old) for old in lost}

    def heal_many(self, session, items: list) -> list:
        """``heal`` for many (reservation, lost, start, end) at once: the
        reservations that lost one host and ask the same thing get their
        replacements from one query; the others, and any two whose
        windows would share a host, go through ``heal`` one by one."""
        results = [None] * len(items)
        groups: dict = {}
        for i, (reservation, lost, _start, _end) in enumerate(items):
            if len(lost) == 1:
                groups.setdefault(self._request_key(reservation),
                                  []).append(i)
        for indexes in groups.values():
            self._heal_group(session, items, indexes, results)
        return [result if result is not None else self.heal(session, *item)
                for item, result in zip(items, results)]

    def _heal_group(self, session, items: list, indexes: list,
                    results: list) -> None:
        host_filter = self._heal_filter(session, items[indexes[0]][0])
        if host_filter is None:
            for i in indexes:
                results[i] = {items[i][1][0]: None}
            return
        windows = {i: self._window(items[i][2], items[i][3])
                   for i in indexes}
        picks = healing_api.first_free_hosts(
            session, host_filter, [(i, low, high)
                                   for i, (low, high) in windows.items()])
        held: dict = {}
        accepted = []
        for i in indexes:
            host_id = picks.get(i)
            low, high = windows[i]
            if host_id is None:
                results[i] = {items[i][1][0]: None}
            elif not any(low < other_high and other_low < high
                         for other_low, other_high
                         in held.get(host_id, ())):
                held.setdefault(host_id, []).append((low, high))
                accepted.append((i, host_id))
            # else: another window of this batch took it; one by one.
        healing_api.hold_hosts(session, [
            (host_id,) + windows[i] for i, host_id in accepted])
        healing_api.move_host_allocations(session, [
            (items[i][0]['id'], items[i][1][0], host_id, items[i][2],
             items[i][3]) for i, host_id in accepted])
        for i, host_id in accepted:
            results[i] = {items[i][1][0]: host_id}

    @staticmethod
    def _request_key(reservation: dict) -> tuple:
        return (reservation.get('hypervisor_properties') or '',
                reservation.get('resource_properties') or '',
                reservation.get('traits') or '')

    def _heal_filter(self, session, reservation: dict):
        """The reservation's host filter, compiled once per request and
        healing transaction; None when nothing can match."""
        filters = session.info.setdefault('heal_host_filters', {})
        key = self._request_key(reservation)
        if key not in filters:
            try:
                filters[key] = self._filter(session, base.Spec(
                    reservation,
                    parsed=HostQuery(reservation, private_visible=True)))
            except exceptions.Invalid:
                # The request names a trait deleted since: nothing fits.
                filters[key] = None
        return filters[key]

    def load_resources(self, context, resource_ids: list) -> list:
        return host_api.hosts_get(context, resource_ids)

    # Lifecycle hooks: the default actions change state only.

    def on_start(self, context, reservation: dict) -> None:
        LOG.debug('physical:host reservation %s starts', reservation['id'])

    def before_end(self, context, reservation: dict) -> None:
        LOG.debug('physical:host reservation %s nears its end',
                  reservation['id'])

    def on_end(self, context, reservation: dict) -> None:
        LOG.debug('physical:host reservation %s ends', reservation['id'])
