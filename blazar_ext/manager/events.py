"""The lease event loop: runs due events (start, before end, end) on time.

Every manager runs one. Each event is claimed with a guarded UPDATE before
it runs, so of several managers exactly one runs it; a claim left
IN_PROGRESS by a manager that died is taken over after
[manager] event_claim_timeout seconds.
"""

import datetime

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.manager import leases
from blazar_ext.manager import periodic
from blazar_ext import states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class EventLoop(periodic.PeriodicThread):
    """A daemon thread calling run_once every [manager] event_interval."""

    thread_name = 'blazar-ext-event-loop'

    def __init__(self, lease_manager: leases.LeaseManager):
        self.leases = lease_manager
        super().__init__()

    def interval(self) -> float:
        return CONF.manager.event_interval

    def run_once(self, now: datetime.datetime | None = None) -> list:
        """Claim and run every event due at ``now`` (default: the current
        time); returns [(event_type, lease_id, final status)]."""
        now = now or timeutils.utcnow()
        context = blazar_context.get_admin_context()
        timeout = datetime.timedelta(seconds=CONF.manager.event_claim_timeout)
        due = lease_api.events_due(context, now, timeout)
        due.sort(key=lambda e: (e['time'],
                                states.Event.ORDER.get(e['event_type'], 9)))
        done = []
        for event in due:
            if self.stopping():
                break
            if not lease_api.event_claim(context, event['id'], now, timeout):
                continue  # another manager has it
            status = self.leases.handle_event(context, event)
            done.append((event['event_type'], event['lease_id'], status))
        return done
