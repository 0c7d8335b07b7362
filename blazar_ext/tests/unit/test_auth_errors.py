"""Errors of the authentication middleware leave as JSON."""

import testtools
import webob
import webob.exc

from blazar_ext.api.middleware import auth


def _keystone_down(environ, start_response):
    # What keystonemiddleware answers when Keystone cannot be reached.
    return webob.exc.HTTPServiceUnavailable(
        'The Keystone service is temporarily unavailable.')(
            environ, start_response)


def _misconfigured(environ, start_response):
    raise RuntimeError('internal endpoint for identity service not found')


def _api_error(environ, start_response):
    environ[auth.CONTEXT_KEY] = object()
    return webob.Response(status=404, body=b'not json',
                          content_type='text/plain')(environ,
                                                     start_response)


class JsonAuthErrorsTest(testtools.TestCase):

    def get(self, app) -> webob.Response:
        req = webob.Request.blank('/v1/leases',
                                  headers={'Accept': 'text/html'})
        return req.get_response(auth.JsonAuthErrors(app))

    def test_503_is_json(self):
        resp = self.get(_keystone_down)
        self.assertEqual(503, resp.status_int)
        self.assertEqual('application/json', resp.content_type)
        self.assertEqual(503, resp.json['error']['code'])
        self.assertIn('Keystone', resp.json['error']['message'])

    def test_exception_is_500_json(self):
        resp = self.get(_misconfigured)
        self.assertEqual(500, resp.status_int)
        self.assertEqual(500, resp.json['error']['code'])
        self.assertNotIn('endpoint', resp.json['error']['message'])

    def test_api_responses_left_alone(self):
        resp = self.get(_api_error)
        self.assertEqual(404, resp.status_int)
        self.assertEqual(b'not json', resp.body)
