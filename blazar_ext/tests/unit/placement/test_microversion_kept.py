"""The placement microversion of a header value, parsed once."""

from unittest import mock

import microversion_parse
from oslotest import base

from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import wsgi_util


class TestExtract(base.BaseTestCase):

    def extract(self, value=None, **environ):
        if value is not None:
            environ['HTTP_OPENSTACK_API_VERSION'] = value
        return microversion.extract(environ)

    def test_versions(self):
        self.assertEqual((1, 0), self.extract())
        self.assertEqual((1, 0), self.extract(HTTP_X_OTHER='placement 1.5'))
        self.assertEqual((1, 39), self.extract('placement latest'))
        self.assertEqual((1, 17), self.extract('compute 2.1, placement 1.17'))
        self.assertEqual((1, 0), self.extract('compute 2.1'))
        self.assertRaises(microversion.UnacceptableVersion, self.extract,
                          'placement 1.99')
        self.assertRaises(microversion.InvalidVersion, self.extract,
                          'placement one')
        # Errors are not kept: raised again.
        self.assertRaises(microversion.InvalidVersion, self.extract,
                          'placement one')

    def test_a_value_is_parsed_once(self):
        self.extract('placement 1.23')
        with mock.patch.object(microversion_parse, 'get_version') as parse:
            self.assertEqual((1, 23), self.extract('placement 1.23'))
        parse.assert_not_called()


class TestHttpDate(base.BaseTestCase):

    def test_the_second_now(self):
        with mock.patch('time.time', return_value=784111777.9):
            self.assertEqual('Sun, 06 Nov 1994 08:49:37 GMT',
                             wsgi_util.http_date())
        with mock.patch('time.time', return_value=784111778.0):
            self.assertEqual('Sun, 06 Nov 1994 08:49:38 GMT',
                             wsgi_util.http_date())
