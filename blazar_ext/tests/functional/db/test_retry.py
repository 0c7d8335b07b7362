"""db.api.retry.on_deadlock: retried where the transaction is opened,
left to the caller inside the caller's transaction."""

import threading

from oslo_db import exception as db_exc

from blazar_ext import context as blazar_context
from blazar_ext.db.api import retry
from blazar_ext.db import session as db_session
from blazar_ext.tests import base


class TestOnDeadlock(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        self.calls = 0

        @retry.on_deadlock
        def write(context):
            self.calls += 1
            with db_session.writer.using(context):
                if self.calls == 1:
                    raise db_exc.DBDeadlock()
                return 'written'
        self.write = write

    def test_retried_when_it_opens_the_transaction(self):
        self.assertEqual('written', self.write(self.ctx))
        self.assertEqual(2, self.calls)

    def test_left_to_the_caller_inside_its_transaction(self):
        with db_session.writer.using(self.ctx):
            self.assertTrue(db_session.writing(self.ctx))
            self.assertRaises(db_exc.DBDeadlock, self.write, self.ctx)
        self.assertEqual(1, self.calls)
        self.assertFalse(db_session.writing(self.ctx))

    def test_other_contexts_and_threads_are_not_inside(self):
        seen = []
        with db_session.writer.using(self.ctx):
            seen.append(db_session.writing(
                blazar_context.get_admin_context()))
            thread = threading.Thread(
                target=lambda: seen.append(db_session.writing(self.ctx)))
            thread.start()
            thread.join()
        self.assertEqual([False, False], seen)
