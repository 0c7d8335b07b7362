"""Errors at the placement edge: HTTPError and Placement's error shape.

Domain exceptions (blazar_ext.exceptions) carry a status but no Placement
code; the code each one answers with is decided here, in one table, so
clients that branch on ``errors[].code`` see Placement's codes.
"""

import html

from oslo_serialization import jsonutils
import webob

from blazar_ext.api.placement import error_codes
from blazar_ext import exceptions


class HTTPError(Exception):
    """An error decided at the edge, rendered in Placement's error shape."""

    def __init__(self, status: int, detail: str,
                 code: str = error_codes.DEFAULT, **extra):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.code = code
        self.extra = extra


# Domain exception -> Placement error code; anything else is DEFAULT.
CODES = {
    exceptions.ResourceProviderExists: error_codes.DUPLICATE_NAME,
    exceptions.ResourceClassExists: error_codes.DUPLICATE_NAME,
    exceptions.ResourceProviderInUse: error_codes.PROVIDER_IN_USE,
    exceptions.CannotDeleteParentProvider:
        error_codes.PROVIDER_CANNOT_DELETE_PARENT,
    exceptions.ConcurrentUpdateDetected: error_codes.CONCURRENT_UPDATE,
    exceptions.InventoryInUse: error_codes.INVENTORY_INUSE,
}


GENERATION_CHANGED = ("Resource provider's generation already changed. "
                      "Please update the generation and try again.")


def generation_conflict() -> HTTPError:
    """A stale provider generation on traits or aggregates, as worded by
    Placement."""
    return HTTPError(409, GENERATION_CHANGED, error_codes.CONCURRENT_UPDATE)


def code_for(exc: Exception) -> str:
    """The Placement error code for a domain exception."""
    for cls in type(exc).__mro__:
        if cls in CODES:
            return CODES[cls]
    return error_codes.DEFAULT


def _status_title(status: int) -> str:
    return webob.Response(status=status).status.split(' ', 1)[1]


def html_response(resp: webob.Response) -> webob.Response:
    """The same error as a small HTML page, for clients asking for one."""
    error = jsonutils.loads(resp.body)['errors'][0]
    page = webob.Response(status=resp.status, content_type='text/html',
                          charset='UTF-8')
    page.text = ('<html><head><title>%(status)s %(title)s</title></head>'
                 '<body><h1>%(status)s %(title)s</h1>%(detail)s</body>'
                 '</html>' % {k: html.escape(str(v))
                              for k, v in error.items()})
    for name in ('Allow',):
        if name in resp.headers:
            page.headers[name] = resp.headers[name]
    return page


def error_response(req, status: int, detail: str, code: str,
                   version=None, **extra) -> webob.Response:
    """Placement's error shape; ``code`` only from 1.23 as upstream."""
    error = {'status': status, 'title': _status_title(status),
             'detail': detail,
             'request_id': req.environ.get('openstack.request_id')}
    if version is None or version >= (1, 23):
        error['code'] = code
    error.update(extra)
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    resp.text = jsonutils.dumps({'errors': [error]})
    return resp
