"""oslo.middleware's RequestId, in plain WSGI.

The same request ids (``openstack.request_id``, a valid inbound
``X-Openstack-Request-Id`` as ``openstack.global_request_id``) and the
same ``x-openstack-request-id`` header on the answer, unless the answer
has one; without the WebOb request and response oslo's builds per
request (about 0.013 ms of every request). The answer's Location and a
HEAD's body are left to the WebOb middleware around it (the proxy
headers'), as they were.
"""

import re

from oslo_context import context
from oslo_middleware import request_id as oslo_request_id
import webob.exc

from blazar_ext.api.middleware import wsgi_call

_INBOUND = 'HTTP_' + oslo_request_id.INBOUND_HEADER.upper().replace('-', '_')
_ID_FORMAT = re.compile(oslo_request_id.ID_FORMAT)
_HEADER = oslo_request_id.HTTP_RESP_HEADER_REQUEST_ID


class RequestId:
    """Gives each request its id, and each answer the id's header."""

    def __init__(self, app):
        self.application = app

    def __call__(self, environ, start_response):
        if _ID_FORMAT.match(environ.get(_INBOUND, '')):
            environ[oslo_request_id.GLOBAL_REQ_ID] = environ[_INBOUND]
        req_id = context.generate_request_id()
        environ[oslo_request_id.ENV_REQUEST_ID] = req_id
        try:
            status, headers, body = wsgi_call.call(self.application,
                                                   environ)
        except webob.exc.HTTPException as exc:
            # As oslo's (webob.dec.wsgify): the exception is the answer.
            return exc(environ, start_response)
        if wsgi_call.header(headers, _HEADER) is None:
            headers = list(headers) + [(_HEADER, req_id)]
        start_response(status, headers)
        return body
