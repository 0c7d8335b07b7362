"""api/routing.Router: a path and method matched once, then kept."""

from unittest import mock

from oslotest import base

from blazar_ext.api import routing


def _list(req, **kw):
    return 'list'


def _show(req, **kw):
    return 'show'


def _not_allowed(methods):
    def handler(req, **kw):
        return 'not allowed: %s' % ','.join(sorted(methods))
    return handler


class TestRouter(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.router = routing.Router(routing.table({
            '/things': {'GET': _list},
            '/things/{uuid}': {'GET': _show},
        }), _not_allowed)

    def test_matches(self):
        handler, variables, template = self.router.match(
            '/things/abc', {'REQUEST_METHOD': 'GET'})
        self.assertIs(_show, handler)
        self.assertEqual({'uuid': 'abc'}, variables)
        self.assertEqual('/things/{uuid}', template)
        handler, variables, _ = self.router.match(
            '/things', {'REQUEST_METHOD': 'POST'})
        self.assertEqual('not allowed: GET', handler(None))
        self.assertIsNone(self.router.match('/other',
                                            {'REQUEST_METHOD': 'GET'}))

    def test_a_match_is_kept_by_path_and_method(self):
        environ = {'REQUEST_METHOD': 'GET'}
        first = self.router.match('/things/abc', environ)
        first[1]['uuid'] = 'changed by a caller'
        with mock.patch.object(self.router.mapper, 'routematch',
                               wraps=self.router.mapper.routematch) as match:
            again = self.router.match('/things/abc', environ)
            self.assertEqual((_show, {'uuid': 'abc'}, '/things/{uuid}'),
                             again)
            match.assert_not_called()
            # Another method is another match.
            handler, _, _ = self.router.match('/things/abc',
                                              {'REQUEST_METHOD': 'DELETE'})
            self.assertEqual('not allowed: GET', handler(None))
            match.assert_called_once()
