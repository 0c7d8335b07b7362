"""Our plain-WSGI RequestId answers as oslo.middleware's does."""

import re

from oslo_middleware import request_id as oslo_request_id
from oslotest import base
import webob
import webob.exc

from blazar_ext.api.middleware import request_id

GLOBAL = 'req-12345678-1234-1234-1234-123456789abc'


def _app(headers=(), status='200 OK'):
    seen = []

    def app(environ, start_response):
        seen.append({key: environ.get(key) for key in (
            'openstack.request_id', 'openstack.global_request_id')})
        start_response(status, [('Content-Type', 'application/json')] +
                       list(headers))
        return [b'{}']
    return app, seen


class TestRequestId(base.BaseTestCase):

    def _both(self, inbound=None, headers=()):
        """(ours, oslo's) answers and what the app saw with each."""
        results = []
        for middleware in (request_id.RequestId,
                           oslo_request_id.RequestId):
            app, seen = _app(headers)
            req = webob.Request.blank('/v1/leases')
            if inbound is not None:
                req.headers['X-Openstack-Request-Id'] = inbound
            results.append((req.get_response(middleware(app)), seen[0]))
        return results

    def test_new_id_in_environ_and_header(self):
        (ours, seen), (theirs, _) = self._both()
        req_id = seen['openstack.request_id']
        self.assertTrue(re.match(oslo_request_id.ID_FORMAT, req_id))
        self.assertEqual(req_id, ours.headers['x-openstack-request-id'])
        self.assertEqual(b'{}', ours.body)
        self.assertEqual(list(theirs.headers.keys()),
                         list(ours.headers.keys()))
        self.assertEqual(2, len({req_id, theirs.headers[
            'x-openstack-request-id']}))  # one id per request

    def test_global_id_taken_only_when_valid(self):
        for inbound, expected in ((GLOBAL, GLOBAL), ('req-bogus', None),
                                  (GLOBAL + 'x', None), ('', None)):
            (_, ours), (_, theirs) = self._both(inbound)
            self.assertEqual(expected, ours['openstack.global_request_id'])
            self.assertEqual(theirs['openstack.global_request_id'],
                             ours['openstack.global_request_id'])

    def test_answer_with_its_own_id_keeps_it(self):
        (ours, _), (theirs, _) = self._both(
            headers=[('X-OpenStack-Request-Id', 'mine')])
        self.assertEqual(['mine'],
                         ours.headers.getall('x-openstack-request-id'))
        self.assertEqual(theirs.headerlist, ours.headerlist)

    def test_http_exception_is_the_answer(self):
        def raising(environ, start_response):
            raise webob.exc.HTTPNotFound()
        answers = [webob.Request.blank('/x').get_response(m(raising))
                   for m in (request_id.RequestId,
                             oslo_request_id.RequestId)]
        self.assertEqual([404, 404], [a.status_int for a in answers])
        self.assertEqual(answers[1].body, answers[0].body)
        self.assertEqual(list(answers[1].headers.keys()),
                         list(answers[0].headers.keys()))
