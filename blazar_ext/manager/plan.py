"""Find a slot: when does every reservation of a lease request fit at once?

    request = parse(values, plugins, private_visible)
    options = search(context, plugins, request)

A request is a lease create body whose dates are replaced by a duration
(``duration``, or ``min_duration``/``max_duration``, seconds) and a search
window (``not_before``, ``not_after``). Candidate start times are the
window edges (blazar_ext.db.api.slot_search): ``not_before`` and every
time an allocation of the types asked for ends (plus the cleaning time).
Each candidate is checked by asking every reservation's plugin for its
``candidates`` over the window (one query per reservation), so the search
picks by the very rules allocation uses. Nothing is held: the booking
(``create_flexible``, in the manager) allocates in its own transaction,
which re-checks, and goes on to the next option when it lost a race.

For hosts and floating IPs, one query per reservation reads the pool's
busy intervals, and the free-start ranges and stretches follow in Python
(blazar_ext.query.slot_plan) before the plugins check each option. When
two reservations draw on one pool, each option is also allocated in a
transaction that is rolled back (``trial``): checked each on its own they
could both count the same free host. That trial is a write, so such a
search runs in the manager (RPC plan_lease, 1.6); every other search only
reads and runs in the API.
"""

import dataclasses
import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.db.api import slot_search
from blazar_ext.db.api import transaction
from blazar_ext import exceptions
from blazar_ext.query import slot_plan

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

DATE_FORMAT = '%Y-%m-%d %H:%M'
PREFER = ('earliest', 'longest')
MINUTE = datetime.timedelta(minutes=1)
# At most this many host ids in the narrowed allocator check (Search.fits).
MAX_AMONG = 5000
# The keys of a plan request besides the lease's own.
SEARCH_KEYS = ('duration', 'min_duration', 'max_duration', 'not_before',
               'not_after', 'limit', 'prefer', 'with_resources')


@dataclasses.dataclass
class Request:
    """A parsed search: normalized specs, durations and the window."""

    specs: list
    min_duration: datetime.timedelta
    max_duration: datetime.timedelta
    not_before: datetime.datetime
    not_after: datetime.datetime
    limit: int
    prefer: str


@dataclasses.dataclass
class Option:
    """One slot: every reservation fits over [start, end]; ``latest_end``
    is how far it could stretch (prefer=longest); ``resources`` the ids
    each reservation would take."""

    start: datetime.datetime
    end: datetime.datetime
    latest_end: datetime.datetime | None = None
    resources: list | None = None

    def view(self) -> dict:
        out = {'start_date': _stamp(self.start),
               'end_date': _stamp(self.end),
               'duration': int((self.end - self.start).total_seconds())}
        if self.latest_end is not None:
            out['latest_end_date'] = _stamp(self.latest_end)
        if self.resources is not None:
            out['resources'] = self.resources
        return out


def _stamp(value: datetime.datetime) -> str:
    return value.strftime(DATE_FORMAT)


def _ceil_minute(value: datetime.datetime) -> datetime.datetime:
    floor = value.replace(second=0, microsecond=0)
    return floor if floor == value else floor + MINUTE


def _date(values: dict, field: str) -> datetime.datetime | None:
    value = values.get(field)
    if value is None:
        return None
    for fmt in (DATE_FORMAT, DATE_FORMAT + ':%S'):
        try:
            return datetime.datetime.strptime(value, fmt)
        except (TypeError, ValueError):
            continue
    raise exceptions.Invalid(
        reason='%s %r is not a date in the format YYYY-MM-DD HH:MM'
               % (field, exceptions.cut(value, 80)))


def _seconds(values: dict, field: str, maximum: datetime.timedelta
             ) -> datetime.timedelta | None:
    value = values.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise exceptions.Invalid(
            reason='%s must be a positive number of seconds, got %r'
                   % (field, value))
    # Compared as numbers: a huge value has no timedelta.
    if value > maximum.total_seconds():
        raise exceptions.Invalid(
            reason='%s may be at most %d seconds ([plan] max_window_days '
                   '= %d), got %d' % (field, maximum.total_seconds(),
                                      CONF.plan.max_window_days, value))
    # Lease dates are to the minute.
    return _ceil_minute(datetime.datetime.min + datetime.timedelta(
        seconds=value)) - datetime.datetime.min


def _durations(values: dict, maximum: datetime.timedelta) -> tuple:
    duration = _seconds(values, 'duration', maximum)
    low = _seconds(values, 'min_duration', maximum)
    high = _seconds(values, 'max_duration', maximum)
    if duration is not None and (low or high):
        raise exceptions.Invalid(
            reason='give either duration or min_duration/max_duration, '
                   'not both')
    if duration is not None:
        return duration, duration
    if low is None:
        raise exceptions.Invalid(
            reason='duration (seconds) is required, or min_duration')
    high = high or low
    if high < low:
        raise exceptions.Invalid(
            reason='max_duration must not be less than min_duration')
    return low, high


def _window(values: dict, maximum: datetime.timedelta,
            now: datetime.datetime) -> tuple:
    now = _ceil_minute(now)
    not_before = _date(values, 'not_before')
    not_after = _date(values, 'not_after')
    if not_after is None:
        raise exceptions.Invalid(
            reason='not_after (YYYY-MM-DD HH:MM) is required')
    if not_before is not None and not_after <= not_before:
        raise exceptions.Invalid(
            reason='not_after (%s) must be later than not_before (%s)'
                   % (values['not_after'], values['not_before']))
    # A start in the past is no start: the window begins now at the
    # earliest.
    not_before = max(_ceil_minute(not_before or now), now)
    if not_after - not_before > maximum:
        raise exceptions.Invalid(
            reason='the search window (not_before to not_after) may be at '
                   'most %d days ([plan] max_window_days)'
                   % CONF.plan.max_window_days)
    return not_before, not_after


def _limit(values: dict) -> int:
    limit = values.get('limit', 5)
    if (isinstance(limit, bool) or not isinstance(limit, int)
            or not 1 <= limit <= CONF.plan.max_limit):
        raise exceptions.Invalid(
            reason='limit must be an integer from 1 to %d, got %r'
                   % (CONF.plan.max_limit, limit))
    return limit


def parse(values: dict, plugins, private_visible: bool,
          now: datetime.datetime | None = None) -> Request:
    """A validated search request; Invalid (400) names what is wrong."""
    if not isinstance(values, dict):
        raise exceptions.Invalid(reason='the body must be a JSON object')
    requested = values.get('reservations')
    if not requested or not isinstance(requested, list):
        raise exceptions.Invalid(
            reason='reservations: a search needs at least one reservation')
    maximum = datetime.timedelta(days=CONF.plan.max_window_days)
    low, high = _durations(values, maximum)
    not_before, not_after = _window(values, maximum,
                                    now or timeutils.utcnow())
    if not_after - not_before < low:
        raise exceptions.Invalid(
            reason='the window from not_before (%s) to not_after (%s) is '
                   'shorter than the duration (%d seconds)'
                   % (_stamp(not_before), _stamp(not_after),
                      low.total_seconds()))
    prefer = values.get('prefer', 'earliest')
    if prefer not in PREFER:
        raise exceptions.Invalid(
            reason='prefer must be one of %s, got %r'
                   % (', '.join(PREFER), prefer))
    specs = []
    for request in requested:
        if not isinstance(request, dict):
            raise exceptions.Invalid(
                reason='reservations: each reservation is an object')
        plugin = plugins.get(request.get('resource_type'))
        specs.append(plugin.normalize(request,
                                      private_visible=private_visible))
    return Request(specs, low, high, not_before, not_after,
                   _limit(values), prefer)


class Search:
    """One search in one reader transaction."""

    def __init__(self, context, plugins, request: Request, session):
        self.context = context
        self.plugins = plugins
        self.request = request
        self.session = session
        self.cleaning = datetime.timedelta(minutes=CONF.manager.cleaning_time)
        self.tables = slot_search.tables_for(
            {spec['resource_type'] for spec in request.specs})
        self.checks = 0
        # {index of a physical:host spec: its pool's gaps, flat}: which
        # hosts the pool's read saw free (``pools``).
        self.free = {}

    def fits(self, start: datetime.datetime,
             end: datetime.datetime) -> list | None:
        """The resources each reservation would take over [start, end],
        or None when one does not fit."""
        self.checks += 1
        picked = []
        for n, spec in enumerate(self.request.specs):
            plugin = self.plugins.get(spec['resource_type'])
            try:
                picked.append(plugin.candidates(
                    self.context, self.session, spec, start, end,
                    **self._among(n, start, end)))
            except exceptions.NotEnoughResources:
                return None
        return picked

    def _among(self, n: int, start: datetime.datetime,
               end: datetime.datetime) -> dict:
        # The allocator's check asked of the hosts the pool's read saw
        # free over [start, end] rather than of every host: a primary key
        # lookup instead of a walk through the busy matching hosts. Same
        # answer: a host busy in the read is busy to the allocator in the
        # same transaction. Not for so many ids that a database's
        # parameter limit is near.
        flat = self.free.get(n)
        if flat is None:
            return {}
        among = slot_plan.free_over(flat, start, end)
        return {'among': among} if len(among) <= MAX_AMONG else {}

    def latest_end(self, start: datetime.datetime,
                   cap: datetime.datetime) -> datetime.datetime:
        """The latest end up to ``cap`` at which everything still fits
        from ``start`` (known to fit for min_duration): the window edges
        where an allocation begins, checked a page at a time, then
        bisected."""
        low = start + self.request.min_duration
        if low >= cap or self.fits(start, cap) is not None:
            return max(low, cap)
        ends = slot_search.edges(self.session, self.tables, 'start_date',
                                 low, cap, self.cleaning, -1)
        page = []
        for at in ends:
            page.append(at.replace(second=0, microsecond=0))
            if len(page) == slot_search.PAGE:
                if self.fits(start, page[-1]) is None:
                    break
                low, page = page[-1], []
        # The last fitting edge of the page: fitting is monotonic in the
        # end (a shorter window needs less).
        lo, hi = 0, len(page)
        while lo < hi:
            mid = (lo + hi) // 2
            if page[mid] > low and self.fits(start, page[mid]) is not None:
                lo = mid + 1
            else:
                hi = mid
        return page[lo - 1] if lo and page[lo - 1] > low else low

    def pools(self) -> list:
        """Per reservation, (free gaps per resource, count) when one
        query reads its type's pool (physical:host, virtual:floatingip
        without required addresses), else None."""
        low, high = self.request.not_before, self.request.not_after
        pools = []
        for n, spec in enumerate(self.request.specs):
            parsed = getattr(spec, 'parsed', None)
            if (spec['resource_type'] == 'physical:host'
                    and parsed is not None):
                host_filter = self._host_filter(spec)
                ids, gaps = slot_plan.keyed_gaps_from_rows(
                    slot_search.iter_host_busy_rows(
                        self.session, host_filter, low, high,
                        self.cleaning),
                    low, high, self.cleaning, self.request.min_duration)
                self.free[n] = slot_plan.free_throughout(ids, gaps)
                pools.append((gaps, spec['min']))
            elif (spec['resource_type'] == 'virtual:floatingip'
                    and not spec.get('required_floatingips')):
                pools.append((slot_plan.gaps_from_busy(
                    slot_search.floatingip_busy(
                        self.session, spec['network_id'], low, high),
                    low, high), spec['amount']))
            else:
                pools.append(None)
        return pools

    def _host_filter(self, spec):
        # The plugin's own, compiled once per transaction, when it keeps
        # one: the allocator's checks (``fits``) then reuse it.
        plugin = self.plugins.get(spec['resource_type'])
        if hasattr(plugin, 'pool_filter'):
            return plugin.pool_filter(self.session, spec)
        parsed = spec.parsed
        return slot_search.host_pool_filter(
            self.context, self.session, spec['hypervisor_properties'],
            spec['resource_properties'], parsed.traits,
            parsed.private_visible)

    def start_ranges(self, pools: list) -> list:
        """The ranges of starts every pooled reservation fits at; the
        whole window when none is pooled."""
        request = self.request
        last = request.not_after - request.min_duration
        ranges = slot_plan.intersect([
            slot_plan.start_ranges(pool[0], pool[1], request.min_duration)
            if pool is not None else None for pool in pools])
        return [(request.not_before, last)] if ranges is None else ranges

    def first_fit(self, low: datetime.datetime,
                  high: datetime.datetime) -> tuple | None:
        """(start, picks) of the first start in [low, high] where every
        reservation fits, checking ``low`` then the window edges."""
        def starts():
            yield low
            yield from slot_search.edges(self.session, self.tables,
                                         'end_date', low, high,
                                         self.cleaning, +1)
        for at in starts():
            at = _ceil_minute(at)
            if at > high or self.checks >= CONF.plan.max_checks:
                return None
            picked = self.fits(at, at + self.request.min_duration)
            if picked is not None:
                return at, picked
        return None

    def stretch(self, pools: list, start: datetime.datetime,
                cap: datetime.datetime) -> datetime.datetime:
        """The latest end up to ``cap`` from ``start``: from the pools
        when every reservation is pooled (checked once), else by
        walking the edges."""
        if pools and all(pool is not None for pool in pools):
            ends = [slot_plan.latest_end(gaps, count, start)
                    for gaps, count in pools]
            if None not in ends:
                end = min(min(ends), cap).replace(second=0, microsecond=0)
                if (end >= start + self.request.min_duration
                        and self.fits(start, end) is not None):
                    return end
        return self.latest_end(start, cap)

    def longest_pooled(self, pools: list) -> list:
        """prefer=longest when every reservation is pooled: how long
        each could last from every moment something becomes free, in one
        sweep per pool; the longest checked against the plugins."""
        request = self.request
        low = request.not_before
        times = sorted({low} | {_ceil_minute(t) for gaps, _count in pools
                                for t in slot_plan.gap_starts(gaps)})
        ends = [slot_plan.stretches(gaps, count, times)
                for gaps, count in pools]
        ranked = {}
        for i, at in enumerate(times):
            latest = [e[i] for e in ends]
            if None in latest:
                continue
            latest = min(latest).replace(second=0, microsecond=0)
            if latest - at >= request.min_duration and latest not in ranked:
                ranked[latest] = at
        found = []
        for latest, at in sorted(ranked.items(),
                                 key=lambda item: (item[1] - item[0],
                                                   item[1])):
            if (len(found) >= request.limit
                    or self.checks >= CONF.plan.max_checks):
                break
            end = min(latest, at + request.max_duration)
            if self.fits(at, end) is not None:
                found.append(Option(at, end, latest_end=latest))
        return found

    def run(self, with_resources: bool = False) -> list:
        request = self.request
        pools = self.pools()
        if request.prefer == 'longest' and all(
                pool is not None for pool in pools):
            found = self.longest_pooled(pools)
            if with_resources:
                for option in found:
                    option.resources = self.fits(option.start, option.end)
            return found
        found = []
        ends_seen = set()
        for low, high in self.start_ranges(pools):
            if self.checks >= CONF.plan.max_checks:
                LOG.debug('slot search stopped after %d checks',
                          self.checks)
                break
            first = self.first_fit(low, high)
            if first is None:
                continue
            start, _picked = first
            if request.prefer == 'longest':
                latest = self.stretch(pools, start, request.not_after)
                if latest in ends_seen:
                    continue
                ends_seen.add(latest)
                option = Option(start, min(latest,
                                           start + request.max_duration),
                                latest_end=latest)
            else:
                end = start + request.min_duration
                if request.max_duration > request.min_duration:
                    end = self.stretch(pools, start, min(
                        request.not_after, start + request.max_duration))
                option = Option(start, end)
            if with_resources:
                option.resources = self.fits(option.start, option.end)
            found.append(option)
            if request.prefer == 'earliest' and len(found) >= request.limit:
                break
        if request.prefer == 'longest':
            found.sort(key=lambda o: (o.start - o.latest_end, o.start))
        return found[:request.limit]


# Types that draw on one pool: two reservations of a request in one pool
# may want the same resources, which checking each on its own misses.
POOLS = {'physical:host': 'hosts', 'virtual:instance': 'hosts',
         'flavor:instance': 'hosts'}
ROUNDS = 5


def shares_a_pool(request: Request) -> bool:
    """Whether two reservations of ``request`` draw on one pool: its
    options are then checked by allocations rolled back (``trial``),
    which only the manager may make (RPC plan_lease); any other search
    only reads, and the API runs it itself."""
    seen = set()
    for spec in request.specs:
        pool = POOLS.get(spec['resource_type'],
                         (spec['resource_type'], spec.get('network_id')))
        if pool in seen:
            return True
        seen.add(pool)
    return False


class _Fits(Exception):
    """Every reservation was allocated: roll the trial back."""


def trial(context, plugins, specs: list, start: datetime.datetime,
          end: datetime.datetime) -> bool:
    """Whether the reservations can be allocated together over [start,
    end]: allocated as a lease create would, then rolled back. A write,
    even undone: the manager's alone (DESIGN, who writes what)."""
    from blazar_ext.manager import leases  # the lease rows, as created
    manager = leases.LeaseManager(enforcement=leases.NoEnforcement(),
                                  plugins=plugins)
    lease = {'id': uuidutils.generate_uuid(), 'name': 'plan',
             'user_id': context.user_id, 'project_id': context.project_id,
             'start_date': start, 'end_date': end, 'status': 'PENDING'}
    try:
        with transaction.allocating(context) as session:
            ids = manager._insert(session, lease, specs, 'pending')
            for reservation_id, spec in zip(ids, specs):
                plugins.get(spec['resource_type']).allocate(
                    context, session, reservation_id, spec, start, end)
            raise _Fits()
    except _Fits:
        return True
    except (exceptions.NotEnoughResources, allocation_api.AllocationRace):
        return False


def search(context, plugins, request: Request,
           with_resources: bool = False) -> list:
    """The options for ``request``, ranked; holds nothing.

    When two reservations draw on one pool (a host and an instance
    reservation, say: ``shares_a_pool``), each option is also allocated
    in a transaction that is rolled back, so that they are known to fit
    together: then only in the manager. Otherwise it only reads.
    """
    shared = shares_a_pool(request)
    found = []
    for _round in range(ROUNDS):
        with transaction.reading(context) as session:
            options = Search(context, plugins, request, session).run(
                with_resources)
        if not shared:
            return options
        found += [o for o in options
                  if trial(context, plugins, request.specs, o.start, o.end)]
        if (len(found) >= request.limit or not options
                or request.prefer == 'longest'):
            break
        # On from the next moment something ends after the last option.
        with transaction.reading(context) as session:
            following = next(slot_search.edges(
                session, slot_search.ALL_TABLES, 'end_date',
                options[-1].start, request.not_after,
                datetime.timedelta(minutes=CONF.manager.cleaning_time), +1),
                None)
        if (following is None or request.not_after - _ceil_minute(following)
                < request.min_duration):
            break
        request = dataclasses.replace(request,
                                      not_before=_ceil_minute(following))
    return found[:request.limit]


def create_flexible(lease_manager, context, values: dict,
                    private_visible: bool) -> dict:
    """Book the first option of a flexible lease create: the allocating
    transaction of each attempt re-checks, and an option lost to a
    concurrent booking gives way to the next one; Conflict (409) when
    none is left."""
    request = parse(values, lease_manager.plugins, private_visible)
    request.limit = CONF.plan.max_limit
    request.prefer = 'earliest'
    lease_values = {key: value for key, value in values.items()
                    if key not in SEARCH_KEYS}
    tried = 0
    while True:
        options = search(context, lease_manager.plugins, request)
        if not options:
            break
        for option in options:
            tried += 1
            try:
                return lease_manager.create_lease(context, dict(
                    lease_values, start_date=_stamp(option.start),
                    end_date=_stamp(option.end)), private_visible)
            except exceptions.NotEnoughResources as exc:
                LOG.info('flexible lease: option %s lost (%s); trying the '
                         'next', _stamp(option.start), exc)
        # Every option found was taken meanwhile: search again after them.
        request.not_before = options[-1].start + MINUTE
        if request.not_after - request.not_before < request.min_duration:
            break
    raise exceptions.NotEnoughResources(
        reason='no slot of %d seconds between %s and %s fits every '
               'reservation of the lease%s'
               % (request.min_duration.total_seconds(),
                  values.get('not_before') or 'now', values['not_after'],
                  ' any more (%d option(s) were taken meanwhile)' % tried
                  if tried else ''))
