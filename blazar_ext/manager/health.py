"""The health monitor: polls the health source and heals.

Every manager runs one. Each run claims the hosts not checked for
[health] interval (a guarded UPDATE: of several managers exactly one
claims a host), asks the source about them in batches, takes the hosts
found down out of service and brings back those found up again (only if
this source took them out). Healing follows each change (see
manager/healing.py). Every run also sweeps: reservations left on hosts
out of service (a manager that died between the two steps) are healed,
and degraded reservations are retried, since deleted or shortened leases
free hosts too.
"""

import datetime
import os

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from blazar_ext import context as blazar_context
from blazar_ext import exceptions
from blazar_ext import health
from blazar_ext.manager import healing
from blazar_ext.manager import periodic

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class HealthMonitor(periodic.PeriodicThread):
    """A daemon thread calling run_once every [health] interval."""

    thread_name = 'blazar-ext-health'

    def __init__(self, healer: healing.Healer,
                 source: health.HealthSource | None = None):
        super().__init__()
        self.healer = healer
        self.source = source or health.load()
        # Unique per process, so claims by two managers never mix.
        self.checker = '%s:%d:%s' % (CONF.host, os.getpid(),
                                     uuidutils.generate_uuid()[:8])

    def interval(self) -> float:
        return CONF.health.interval

    def run_once(self, now: datetime.datetime | None = None) -> dict:
        """Check the hosts due, then sweep; returns what changed:
        {'down': [host ids], 'up': [host ids], 'healed': [outcomes]}."""
        # DATETIME columns drop microseconds on MySQL: claim to the second.
        now = (now or timeutils.utcnow()).replace(microsecond=0)
        context = blazar_context.get_admin_context()
        changed = {'down': [], 'up': []}
        if not isinstance(self.source, health.NoHealthSource):
            self._check(context, now, changed)
        changed['healed'] = self.healer.heal(context, retry_missing=True)
        return changed

    def _check(self, context, now: datetime.datetime, changed: dict) -> None:
        """Every enabled type's resources due for a check (its plugin's
        ``health_targets``), in batches."""
        for plugin in self.healer.leases.plugins:
            self._check_type(context, plugin, now, changed)

    def _check_type(self, context, plugin, now: datetime.datetime,
                    changed: dict) -> None:
        interval = datetime.timedelta(seconds=CONF.health.interval)
        while not self.stopping():
            claimed = plugin.health_targets(
                context, self.checker, now, interval,
                CONF.health.batch_size)
            if not claimed:
                return
            try:
                found = self.source.check(
                    [{key: target[key]
                      for key in ('id', 'name', 'service_name')}
                     for target in claimed])
            except exceptions.HealthSourceError as exc:
                LOG.warning('%s; %s states unchanged', exc,
                            plugin.resource_type)
                return
            for target in claimed:
                if target['id'] not in found:
                    continue
                self._apply(context, plugin.resource_type, target,
                            found[target['id']], changed)

    def _apply(self, context, resource_type: str, target: dict,
               problem: str | None, changed: dict) -> None:
        """Out of service if found down; back if found up and this
        source took it out."""
        if problem is not None and target['reservable']:
            if self.healer.set_reservable(
                    context, resource_type, target['id'], False,
                    reason=problem, by=self.source.name):
                changed['down'].append(target['id'])
        elif (problem is None and not target['reservable'] and
                target['by'] == self.source.name):
            if self.healer.set_reservable(
                    context, resource_type, target['id'], True,
                    only_if_by=self.source.name):
                changed['up'].append(target['id'])
