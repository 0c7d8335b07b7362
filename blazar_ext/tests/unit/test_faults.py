"""The faults middleware: what an uncaught exception is answered with."""

from oslo_db import exception as db_exc
import testtools
import webob

from blazar_ext.api.middleware import faults


def _raising(exc: Exception):
    def app(environ, start_response):
        raise exc
    return app


def _render(status, title, message, request_id):
    return 'application/json', ('{"status": %d, "message": "%s"}'
                                % (status, message)).encode()


class RemoteDataError(Exception):
    """As oslo.messaging re-raises the manager's DBDataError."""
    exc_type = 'DBDataError'


class TestFaults(testtools.TestCase):

    def _call(self, exc: Exception) -> webob.Response:
        app = faults.JsonErrors(_raising(exc), _render)
        return webob.Request.blank('/v1/os-hosts', method='POST'
                                   ).get_response(app)

    def test_a_value_the_database_refuses_is_a_400(self):
        for exc in (db_exc.DBDataError(ValueError('Data too long')),
                    RemoteDataError('Out of range value')):
            resp = self._call(exc)
            self.assertEqual(400, resp.status_int, exc)
            self.assertIn('too long or out of range', resp.json['message'])

    def test_anything_else_is_a_500_and_an_unreachable_database_a_503(self):
        self.assertEqual(500, self._call(ValueError('bug')).status_int)
        self.assertEqual(503, self._call(db_exc.DBConnectionError(
            ValueError('gone'))).status_int)


def _answering(status: str, content_type: str, body: bytes):
    def app(environ, start_response):
        start_response(status, [('Content-Type', content_type),
                                ('X-Kept', 'yes')])
        return [body]
    return app


class TestAnswers(testtools.TestCase):
    """Answers that reach the middleware: successes pass as they are,
    errors take the family's shape unless they are JSON already."""

    def _get(self, app) -> webob.Response:
        return webob.Request.blank('/v1/leases').get_response(
            faults.JsonErrors(app, _render))

    def test_success_passes_unchanged(self):
        for status in ('200 OK', '201 Created', '302 Found'):
            resp = self._get(_answering(status, 'text/plain', b'as is'))
            self.assertEqual(status, resp.status)
            self.assertEqual('yes', resp.headers['X-Kept'])
            self.assertEqual(b'as is', resp.body)

    def test_non_json_error_in_the_family_shape(self):
        resp = self._get(_answering('404 Not Found', 'text/html',
                                    b'<html/>'))
        self.assertEqual(404, resp.status_int)
        self.assertEqual({'status': 404,
                          'message': 'The resource could not be found.'},
                         resp.json)
        self.assertEqual('yes', resp.headers['X-Kept'])

    def test_json_error_kept(self):
        resp = self._get(_answering('409 Conflict', 'application/json',
                                    b'{"own": 1}'))
        self.assertEqual(409, resp.status_int)
        self.assertEqual({'own': 1}, resp.json)

    def test_success_as_webob_would_send_it(self):
        # A relative Location made absolute, no body to a HEAD, an answer
        # written through write() read whole: as WebOb's Response did.
        def app(environ, start_response):
            write = start_response('201 Created',
                                   [('Location', '/v1/leases/x')])
            write(b'written ')
            return [b'returned']
        wrapped = faults.JsonErrors(app, _render)
        resp = webob.Request.blank('/v1/leases').get_response(wrapped)
        self.assertEqual('http://localhost/v1/leases/x',
                         resp.headers['Location'])
        self.assertEqual(b'written returned', resp.body)
        resp = webob.Request.blank('/v1/leases', method='HEAD').get_response(
            wrapped)
        self.assertEqual(201, resp.status_int)
        self.assertEqual(b'', resp.body)
