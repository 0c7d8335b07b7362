"""Pecan looks for custom path segments once per controller class."""

from unittest import mock

from oslotest import base
from pecan import expose
from pecan import routing

from blazar_ext.api import pecan_segments


class _Child:
    @expose(route='custom-name')
    def named(self):
        return 'named'


class _Root:
    child = _Child()


class TestPecanSegments(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        original = routing._detect_custom_path_segments
        self.addCleanup(setattr, routing, '_detect_custom_path_segments',
                        original)
        pecan_segments.install()

    def route(self, path: str):
        return routing.lookup_controller(
            _Root(), path.split('/')[1:], mock.Mock(method='GET'))

    def test_custom_routes_still_found(self):
        controller, remainder = self.route('/child/custom-name')
        self.assertEqual('named', controller())
        self.assertEqual([], remainder)

    def test_a_seen_class_is_not_listed_again(self):
        self.route('/child/custom-name')
        # pecan's module-level dir(), the listing skipped.
        with mock.patch.object(routing, 'dir', create=True,
                               wraps=dir) as listing:
            controller, _ = self.route('/child/custom-name')
        self.assertEqual('named', controller())
        listing.assert_not_called()

    def test_an_unseen_class_is_looked_at(self):
        class Fresh:
            pass
        with mock.patch.object(pecan_segments, '_original') as original:
            pecan_segments.detect_custom_path_segments(Fresh())
        original.assert_called_once()
