"""The cached argument specs pecan uses once installed."""

from oslotest import base
from pecan import util as pecan_util

from blazar_ext.api import pecan_argspec


class _Controller:
    def get_one(self, lease_id, detail=False):
        return lease_id


class TestPecanArgspec(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        original = pecan_util._getargspec
        self.addCleanup(setattr, pecan_util, '_getargspec', original)
        pecan_argspec.install()

    def test_spec_computed_once_per_function(self):
        # Bound methods are new objects on each access; the spec is the
        # same object, not a new namedtuple class and tuple per request.
        first = pecan_util.getargspec(_Controller().get_one)
        self.assertIs(first, pecan_util.getargspec(_Controller().get_one))

    def test_spec_as_pecan_computes_it(self):
        spec = pecan_util.getargspec(_Controller().get_one)
        self.assertEqual(['self', 'lease_id', 'detail'], spec.args)
        self.assertEqual((False,), spec.defaults)
        self.assertIsNone(spec.varargs)
        self.assertIsNone(spec.keywords)

    def test_unhashable_callable_still_answered(self):
        class Unhashable:
            __hash__ = None

            def __call__(self, a, b=1):
                return a
        spec = pecan_argspec.getargspec(Unhashable())
        self.assertEqual(['self', 'a', 'b'], spec.args)
