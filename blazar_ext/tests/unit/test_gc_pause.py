"""gc_pause.paused: the collector off inside, back as it was after."""

import datetime
import gc
import threading

from oslotest import base

from blazar_ext.api import gc_pause
from blazar_ext.api.v1 import views


class TestPaused(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(gc.enable if gc.isenabled() else gc.disable)
        gc.enable()

    def test_nested_blocks_restore_only_at_the_last(self):
        with gc_pause.paused():
            self.assertFalse(gc.isenabled())
            with gc_pause.paused():
                self.assertFalse(gc.isenabled())
            self.assertFalse(gc.isenabled())
        self.assertTrue(gc.isenabled())

    def test_restored_after_an_exception(self):
        def fail():
            with gc_pause.paused():
                raise ValueError('x')
        self.assertRaises(ValueError, fail)
        self.assertTrue(gc.isenabled())

    def test_left_disabled_if_it_was(self):
        gc.disable()
        with gc_pause.paused():
            pass
        self.assertFalse(gc.isenabled())

    def test_overlapping_threads(self):
        inside, leave = threading.Event(), threading.Event()

        def other():
            with gc_pause.paused():
                inside.set()
                leave.wait(10)
        thread = threading.Thread(target=other)
        thread.start()
        inside.wait(10)
        with gc_pause.paused():
            pass
        # The other block is still inside: still paused.
        self.assertFalse(gc.isenabled())
        leave.set()
        thread.join(10)
        self.assertTrue(gc.isenabled())


class TestTimestamp(base.BaseTestCase):

    def test_same_text_for_naive_and_aware_datetimes(self):
        naive = datetime.datetime(2031, 1, 2, 3, 4, 5)
        self.assertEqual('2031-01-02T03:04:05.000000',
                         views.timestamp(naive))
        self.assertEqual('2031-01-02T03:04:05.000007',
                         views.timestamp(naive.replace(microsecond=7)))
        aware = naive.replace(tzinfo=datetime.timezone.utc)
        self.assertEqual('2031-01-02T03:04:05.000000',
                         views.timestamp(aware))
        self.assertEqual('2031-01-02T03:04:05.000000',
                         views.timestamp('2031-01-02T03:04:05'))
        self.assertIsNone(views.timestamp(None))


class TestListingTimes(base.BaseTestCase):

    def _lease(self, when, created, updated=None):
        return {'id': 'l', 'start_date': when, 'end_date': when,
                'created_at': created, 'updated_at': updated,
                'reservations': [],
                'events': [{'id': 'e', 'lease_id': 'l', 'time': when,
                            'event_type': 'start_lease', 'status': 'UNDONE',
                            'created_at': created, 'updated_at': updated}]}

    def test_memo_shows_what_lease_shows(self):
        # A listing formats each distinct time once; the text is lease()'s.
        utc = datetime.timezone.utc
        east = datetime.timezone(datetime.timedelta(hours=2))
        naive = datetime.datetime(2031, 1, 2, 3, 4, 5, 6)
        aware = naive.replace(tzinfo=utc)
        # The same instant as ``aware``, in another zone: an equal key,
        # shown in its own zone's fields.
        other = aware.astimezone(east)
        listed = [self._lease(naive, naive, naive),
                  self._lease('2031-01-02T03:04:05', naive),
                  self._lease(aware, aware), self._lease(other, other)]
        self.assertEqual([views.lease(one, {}) for one in listed],
                         views.leases(listed))
        shown = views.leases(listed)
        self.assertEqual('2031-01-02T03:04:05.000006', shown[2]['start_date'])
        self.assertEqual('2031-01-02T05:04:05.000006', shown[3]['start_date'])
        self.assertEqual('2031-01-02 05:04:05.000006',
                         shown[3]['events'][0]['created_at'])
