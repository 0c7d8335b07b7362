"""A daemon thread that calls ``run_once`` every so many seconds.

The lease event loop and the health monitor are both one of these. The
interval is read on every tick, so an option changed at run time (or by a
test) takes effect without a restart.
"""

import threading
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# The thread wakes at least this often to notice stop() and a changed
# interval.
TICK = 0.5


class PeriodicThread:
    """Subclasses name the thread, give the interval and do the work."""

    #: The thread's name, as ps and logs show it.
    thread_name = 'blazar-ext-periodic'

    def __init__(self):
        self._stop = threading.Event()
        self._thread = None

    def interval(self) -> float:
        """Seconds between two runs (read on every tick)."""
        raise NotImplementedError

    def run_once(self, now=None):
        """One run; exceptions are logged and the next run goes ahead."""
        raise NotImplementedError

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=self.thread_name)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def stopping(self) -> bool:
        """True once stop() was called: long runs check it between steps."""
        return self._stop.is_set()

    def _run(self) -> None:
        # The first run waits an interval too: a service starting does not
        # need one at once, and a test (or a config reload) that sets the
        # interval just after start must not race a run it did not ask for.
        last = time.monotonic()
        while not self._stop.wait(min(TICK, self.interval())):
            if time.monotonic() - last < self.interval():
                continue
            last = time.monotonic()
            try:
                self.run_once()
            except Exception:  # keep the thread alive; retried next time
                LOG.exception('%s failed; will retry', self.thread_name)
