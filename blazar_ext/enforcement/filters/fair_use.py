"""Fair-use filters: the rules testbeds used to enforce with cron jobs.

Each is enabled by name in [enforcement] enabled_filters and configured in
[fair_use]; a rule set to 0 does nothing. Those that count other leases
do so in the lease's transaction (the allocations it just made included),
so parallel requests cannot each slip under the limit. Each refusal names
its rule and by how much the request is over.
"""

import datetime

from oslo_utils import timeutils

from blazar_ext.db.api.budgets import fair_use as fair_use_api
from blazar_ext.enforcement import base
from blazar_ext.enforcement import payload
from blazar_ext.enforcement import usage

FMT = '%Y-%m-%d %H:%M'


def _date(value) -> datetime.datetime:
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value


def _window(lease: dict) -> tuple:
    return _date(lease['start_date']), _date(lease['end_date'])


class MaxConcurrentUsageFilter(base.BaseFilter):
    """A project may hold at most [fair_use] max_concurrent_hosts hosts
    and max_concurrent_vcpus vCPUs at any one time."""

    @property
    def active(self) -> bool:
        opts = self.conf.fair_use
        return bool(opts.max_concurrent_hosts or opts.max_concurrent_vcpus)

    def _check(self, session, lease: dict) -> None:
        opts = self.conf.fair_use
        project_id = lease.get('project_id')
        start, end = _window(lease)
        windows = fair_use_api.usage_windows(
            session, project_id, start, end,
            instances=bool(opts.max_concurrent_vcpus))
        limit = opts.max_concurrent_hosts
        if limit:
            held, when = usage.peak((s, e, 1) for s, e, host_id, *_
                                    in windows if host_id is not None)
            if held > limit:
                raise self.reject(
                    'Fair-use rule max_concurrent_hosts: project %s would '
                    'hold %d hosts at once (from %s), %d more than the '
                    'limit of %d.' % (project_id, held, when.strftime(FMT),
                                      held - limit, limit))
        limit = opts.max_concurrent_vcpus
        if limit:
            held, when = usage.peak((s, e, v or 0)
                                    for s, e, _, _, v in windows)
            if held > limit:
                raise self.reject(
                    'Fair-use rule max_concurrent_vcpus: project %s would '
                    'hold %d vCPUs at once (from %s), %d more than the '
                    'limit of %d.' % (project_id, held, when.strftime(FMT),
                                      held - limit, limit))

    def write_create(self, session, context: dict, lease: dict) -> None:
        self._check(session, lease)

    def write_update(self, session, context: dict, current_lease: dict,
                     lease: dict) -> None:
        self._check(session, lease)


class MaxFutureLeasesFilter(base.BaseFilter):
    """A user may have at most [fair_use] max_future_leases leases that
    have not started yet."""

    @property
    def active(self) -> bool:
        return bool(self.conf.fair_use.max_future_leases)

    def write_create(self, session, context: dict, lease: dict) -> None:
        limit = self.conf.fair_use.max_future_leases
        user_id = lease.get('user_id')
        count = fair_use_api.future_leases(
            session, lease.get('project_id'), user_id, timeutils.utcnow())
        if count > limit:
            raise self.reject(
                'Fair-use rule max_future_leases: user %s would have %d '
                'leases not yet started, %d more than the limit of %d.'
                % (user_id, count, count - limit, limit))


class MaxAdvanceBookingFilter(base.BaseFilter):
    """A lease may start at most [fair_use] max_advance_hours ahead."""

    @property
    def active(self) -> bool:
        return bool(self.conf.fair_use.max_advance_hours)

    def _check(self, lease: dict) -> None:
        limit = datetime.timedelta(hours=self.conf.fair_use.max_advance_hours)
        start = payload.parse_date(lease.get('start_date'))
        if start is None:
            return
        ahead = start - timeutils.utcnow()
        if ahead > limit:
            raise self.reject(
                'Fair-use rule max_advance_hours: the lease starts %s hours '
                'ahead, %s hours more than the limit of %s hours.'
                % (usage.hours(ahead), usage.hours(ahead - limit),
                   usage.hours(limit)))

    # In the transaction: dates only, but the chain then builds no
    # payload (with its candidates query) for it.
    def write_create(self, session, context: dict, lease: dict) -> None:
        self._check(lease)

    def write_update(self, session, context: dict, current_lease: dict,
                     lease: dict) -> None:
        if _date(lease['start_date']) != _date(current_lease['start_date']):
            self._check(lease)


class AntiStackingFilter(base.BaseFilter):
    """A project may hold the same host at most [fair_use]
    stacking_max_hours within any stacking_window_hours, back-to-back and
    overlapping leases counted together."""

    @property
    def active(self) -> bool:
        return bool(self.conf.fair_use.stacking_max_hours)

    def _check(self, session, lease: dict) -> None:
        opts = self.conf.fair_use
        limit = datetime.timedelta(hours=opts.stacking_max_hours)
        span = datetime.timedelta(hours=opts.stacking_window_hours)
        project_id = lease.get('project_id')
        start, end = _window(lease)
        by_host = {}
        for s, e, host_id, name, _ in fair_use_api.stacking_windows(
                session, project_id, start - span, end + span, lease['id']):
            by_host.setdefault((host_id, name), []).append((s, e))
        for (host_id, name), windows in sorted(by_host.items()):
            held, at = usage.most_held(windows, span)
            if held > limit:
                raise self.reject(
                    'Fair-use rule anti-stacking: project %s would hold '
                    'host %s for %s hours out of %s (from %s), %s hours '
                    'more than the limit of %s hours out of any %s.'
                    % (project_id, name, usage.hours(held),
                       usage.hours(span), at.strftime(FMT),
                       usage.hours(held - limit), usage.hours(limit),
                       usage.hours(span)))

    def write_create(self, session, context: dict, lease: dict) -> None:
        self._check(session, lease)

    def write_update(self, session, context: dict, current_lease: dict,
                     lease: dict) -> None:
        self._check(session, lease)
