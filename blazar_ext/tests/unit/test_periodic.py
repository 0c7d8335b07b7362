"""The periodic thread under the event loop and the health monitor."""

import threading

import testtools

from blazar_ext.manager import periodic


class Counting(periodic.PeriodicThread):
    thread_name = 'test-periodic'

    def __init__(self, seconds: float, fail_first: bool = False):
        super().__init__()
        self.seconds = seconds
        self.fail_first = fail_first
        self.runs = 0
        self.ran = threading.Event()

    def interval(self) -> float:
        return self.seconds

    def run_once(self, now=None):
        self.runs += 1
        if self.fail_first and self.runs == 1:
            raise RuntimeError('first run fails')
        self.ran.set()


class TestPeriodicThread(testtools.TestCase):

    def test_first_run_waits_an_interval(self):
        thread = Counting(3600)
        thread.start()
        self.addCleanup(thread.stop)
        # Several ticks go by; an hour does not.
        self.assertFalse(thread.ran.wait(periodic.TICK * 3))
        self.assertEqual(0, thread.runs)

    def test_a_failing_run_does_not_stop_the_thread(self):
        thread = Counting(0.01, fail_first=True)
        thread.start()
        self.addCleanup(thread.stop)
        self.assertTrue(thread.ran.wait(10))
        self.assertGreaterEqual(thread.runs, 2)

    def test_stop_ends_the_thread(self):
        thread = Counting(0.01)
        thread.start()
        self.assertTrue(thread.ran.wait(10))
        thread.stop()
        self.assertTrue(thread.stopping())
        self.assertIsNone(thread._thread)
