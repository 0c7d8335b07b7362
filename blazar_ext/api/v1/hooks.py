"""Pecan hooks of the reservation API: what is refused before a handler.

Both raise webob HTTP errors whose ``detail`` is the message;
errors.ErrorHook renders them in Blazar's error shape.
"""

import codecs

import pecan
from pecan import util as pecan_util
import webob.exc

from blazar_ext.api.middleware import faults
from blazar_ext.api import validation

JSON = 'application/json'
# The methods a collection (no id in the path) answers, by handler name.
_COLLECTION_METHODS = (('get_all', 'GET'), ('post', 'POST'))


def _refuse(status: int, message: str):
    return webob.exc.status_map[status](detail=message)


class RequestHook(pecan.hooks.PecanHook):
    """Refuses, before routing, what Pecan must not route or decode.

    The API speaks JSON only, whatever Accept says. A path or query string
    that is not UTF-8 or holds a NUL is a 400; an empty path segment
    (/v1/leases//) names nothing: 404. Pecan decodes a JSON body while
    routing and lets only ValueError and TypeError through as bad input:
    an unknown charset is a 415, a body nested too deeply a 400.
    """

    priority = 10

    def on_route(self, state):
        req = state.request
        req.environ['HTTP_ACCEPT'] = 'application/json'
        # What Pecan's negotiation would choose from that Accept for every
        # v1 handler (each serves JSON: test_v1_route_table), said here so that
        # Pecan does not parse the header twice per request to find it.
        req.pecan['content_type'] = JSON
        problem = validation.url_problem(req)
        if problem:
            raise _refuse(400, problem)
        if '//' in req.path_info:
            raise _refuse(404, faults.message_for(404))
        if req.method != 'GET':
            _check_body(req)


def _check_body(req) -> None:
    try:
        codecs.lookup(req.charset)
    except LookupError:
        raise _refuse(415, 'Unknown charset %r in the Content-Type header.'
                      % req.charset)
    if req.content_type in ('application/json', 'application/javascript'):
        if validation.keep_json(req):
            # What Pecan and the handler read: decoded here, once
            # (JsonRequest). A body parse_json refuses is decoded again
            # below, as before.
            return
        try:
            req.json
        except RecursionError:
            raise _refuse(400, 'The request body is nested too deeply.')
        except Exception:  # Pecan and the handler report the rest.
            pass


class JsonRequest(pecan.Request):
    """Pecan's request, whose ``json`` (Pecan reads it twice while
    routing) is the value RequestHook kept when the body is UTF-8 as
    parse_json reads it: the same value webob's json_body decodes."""

    @property
    def json(self):
        environ = self.environ
        if ('charset' not in environ.get('CONTENT_TYPE', '').lower()
                or codecs.lookup(self.charset).name == 'utf-8'):
            found, data = validation.kept_json(environ)
            if found:
                return data
        return pecan.Request.json.fget(self)


class ResourceIdHook(pecan.hooks.PecanHook):
    """A handler that needs an id, called on its collection, is a 405.

    Pecan's RestController calls put(), patch() or delete() on
    /v1/leases without the id. (Pecan also fills a missing argument from
    a query parameter or JSON body key of the same name; that is left as
    it was, but one given twice, or as a list or object, is a 400: ids
    are strings.)
    """

    def before(self, state):
        handler = state.controller
        spec = pecan_util.getargspec(handler)
        for name, value in zip(spec.args[1:], state.arguments.args):
            if isinstance(value, (list, dict)):
                raise _refuse(400, '%s must be one string, in the path; '
                                   'got %s.' % (name, 'a list' if isinstance(
                                       value, list) else 'an object'))
        required = len(spec.args) - 1 - len(spec.defaults or ())
        given = [arg for arg in state.arguments.args if arg]
        if len(given) >= required:
            return
        owner = getattr(handler, '__self__', None)
        allow = [method for name, method in _COLLECTION_METHODS
                 if callable(getattr(owner, name, None))]
        raise webob.exc.HTTPMethodNotAllowed(
            headers={'Allow': ', '.join(allow)})
