"""The placement query-string check remembers its verdict per query."""

from unittest import mock

from oslotest import base

from blazar_ext.api.placement.schemas import query as query_schemas
from blazar_ext.api.placement import wsgi_util

SCHEMA = query_schemas.ALLOCATION_CANDIDATES_QUERY[
    max(query_schemas.ALLOCATION_CANDIDATES_QUERY)]


class TestQueryError(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        wsgi_util._QUERY_ERRORS.clear()
        self.addCleanup(wsgi_util._QUERY_ERRORS.clear)
        self.plain = wsgi_util._first_error
        patcher = mock.patch.object(wsgi_util, '_first_error',
                                    wraps=wsgi_util._first_error)
        self.check = patcher.start()
        self.addCleanup(patcher.stop)

    def test_same_query_checked_once(self):
        params = {'resources': 'VCPU:1', 'limit': '100'}
        self.assertIsNone(wsgi_util._query_error(params, SCHEMA))
        self.assertIsNone(wsgi_util._query_error(dict(params), SCHEMA))
        self.assertEqual(1, self.check.call_count)

    def test_bad_query_same_text_every_time(self):
        params = {'resources': 'VCPU:1', 'bogus': '1'}
        expected = str(self.plain(params, SCHEMA))
        self.assertIn('bogus', expected)
        self.assertEqual(expected, wsgi_util._query_error(params, SCHEMA))
        self.assertEqual(expected, wsgi_util._query_error(params, SCHEMA))
        self.assertEqual(1, self.check.call_count)

    def test_long_query_not_kept(self):
        params = {'resources': 'VCPU:1', 'member_of': 'in:' + 'a' * 3000}
        wsgi_util._query_error(params, SCHEMA)
        wsgi_util._query_error(params, SCHEMA)
        self.assertEqual(2, self.check.call_count)
        self.assertEqual({}, wsgi_util._QUERY_ERRORS)

    def test_bounded(self):
        for i in range(wsgi_util._MAX_QUERY_ERRORS + 5):
            wsgi_util._query_error({'resources': 'VCPU:%d' % (i + 1)},
                                   SCHEMA)
        self.assertLessEqual(len(wsgi_util._QUERY_ERRORS),
                             wsgi_util._MAX_QUERY_ERRORS)
