"""Writers run again after a connection lost before COMMIT (a Galera
node dying under HAProxy), not after one lost during COMMIT."""

from oslo_db import exception as db_exc
import pymysql
import sqlalchemy as sa
import testtools

from blazar_ext.db.api import retry


def lost(statement, code=2013, message='Lost connection to MySQL server '
         'during query'):
    inner = sa.exc.OperationalError(statement, {},
                                    pymysql.err.OperationalError(code,
                                                                 message))
    return db_exc.DBConnectionError(inner)


class TestLostBeforeCommit(testtools.TestCase):

    def run_with(self, error, raiser=None):
        attempts = []

        def _execute_context():  # where SQLAlchemy runs a statement
            raise error

        @retry.policy()
        def write():
            attempts.append(1)
            if len(attempts) == 1:
                (raiser or _execute_context)()
            return 'written'
        return write, attempts

    def test_lost_while_a_statement_ran_is_retried(self):
        write, attempts = self.run_with(lost('INSERT INTO leases ...'))
        self.assertEqual('written', write())
        self.assertEqual(2, len(attempts))

    def test_lost_while_connecting_is_retried(self):
        # The pool's reconnect through HAProxy to a node just gone.
        for error in (lost(None, 2003, "Can't connect to MySQL server"),
                      lost(None)):
            write, attempts = self.run_with(error)
            self.assertEqual('written', write())
            self.assertEqual(2, len(attempts))

    def test_lost_during_commit_is_not_retried(self):
        # The write may have been applied: running it again could apply
        # it twice.
        error = lost(None)

        def _commit_impl():  # SQLAlchemy's Connection._commit_impl
            raise error
        write, attempts = self.run_with(error, _commit_impl)
        self.assertRaises(db_exc.DBConnectionError, write)
        self.assertEqual(1, len(attempts))

    def test_other_database_errors_are_not_retried(self):
        self.assertFalse(retry.lost_before_commit(db_exc.DBError('x')))
        self.assertFalse(retry.lost_before_commit(ValueError('x')))


class TestVerifyCommit(testtools.TestCase):
    """A lease create whose COMMIT's answer was lost is answered from the
    database, not with a 503 for a lease that exists."""

    def writer(self, landed: bool):
        rows, calls = {}, []

        def _commit_impl():
            raise lost(None)

        def lookup(key):
            return rows.get(key)

        @retry.verify_commit(lookup)
        def create(key):
            calls.append(key)
            if len(calls) == 1:
                if landed:
                    rows[key] = 'row %s' % key
                _commit_impl()
            rows[key] = 'row %s' % key
            return rows[key]
        return create, calls

    def test_landed_write_is_answered_from_the_database(self):
        create, calls = self.writer(landed=True)
        self.assertEqual('row a', create('a'))
        self.assertEqual(['a'], calls)

    def test_write_that_died_runs_again(self):
        create, calls = self.writer(landed=False)
        self.assertEqual('row a', create('a'))
        self.assertEqual(['a', 'a'], calls)

    def test_lost_before_commit_is_left_to_the_retry_inside(self):
        @retry.verify_commit(lambda: self.fail('no lookup'))
        def create():
            raise lost('INSERT ...')
        self.assertRaises(db_exc.DBConnectionError, create)
