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
