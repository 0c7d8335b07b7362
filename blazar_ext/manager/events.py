"""The lease event loop: runs due events (start, before end, end) on time.

Every manager runs one. Each event is claimed with a guarded UPDATE before
it runs, so of several managers exactly one runs it; a claim left
IN_PROGRESS by a manager that died is taken over after
[manager] event_claim_timeout seconds.
"""

import datetime
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.manager import leases
from blazar_ext import states

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# The thread wakes at least this often to notice stop() and a changed
# interval.
_TICK = 0.5


class EventLoop:
    """A daemon thread calling run_once every [manager] event_interval."""

    def __init__(self, lease_manager: leases.LeaseManager):
        self.leases = lease_manager
        self._stop = threading.Event()
        self._thread = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='blazar-ext-event-loop')
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        # The first run waits an interval too: a test (or an operator's
        # config reload) that sets the interval just after start must not
        # race a run it did not ask for.
        last = time.monotonic()
        while not self._stop.wait(min(_TICK, CONF.manager.event_interval)):
            if time.monotonic() - last < CONF.manager.event_interval:
                continue
            last = time.monotonic()
            try:
                self.run_once()
            except Exception:  # keep the loop alive; retried next tick
                LOG.exception('The lease event loop failed; will retry')

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
            if self._stop.is_set():
                break
            if not lease_api.event_claim(context, event['id'], now, timeout):
                continue  # another manager has it
            status = self.leases.handle_event(context, event)
            done.append((event['event_type'], event['lease_id'], status))
        return done
