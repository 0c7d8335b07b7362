"""Retried transactions are counted in blazar_ext_db_retries_total."""

from oslo_db import exception as db_exc
import testtools

from blazar_ext.db.api import retry
from blazar_ext import metrics


def _count(reason: str) -> float:
    for family in metrics._INSTRUMENTS.collect():
        for sample in family.samples:
            if (sample.name == 'blazar_ext_db_retries_total'
                    and sample.labels == {'reason': reason}):
                return sample.value
    return 0.0


class LostRace(Exception):
    pass


class TestRetryCounts(testtools.TestCase):

    def test_each_deadlock_retried_is_counted(self):
        before = _count('deadlock')
        attempts = []

        @retry.policy()
        def write():
            attempts.append(1)
            if len(attempts) < 3:
                raise db_exc.DBDeadlock()
            return 'done'

        self.assertEqual('done', write())
        self.assertEqual(before + 2, _count('deadlock'))

    def test_checker_accepted_errors_counted_by_name(self):
        before = _count('LostRace')
        attempts = []

        @retry.policy(lambda exc: isinstance(exc, LostRace))
        def write():
            attempts.append(1)
            if len(attempts) < 2:
                raise LostRace()

        write()
        self.assertEqual(before + 1, _count('LostRace'))

    def test_other_errors_not_counted(self):
        before = _count('ValueError')

        @retry.policy()
        def write():
            raise ValueError('bad')

        self.assertRaises(ValueError, write)
        self.assertEqual(before, _count('ValueError'))
