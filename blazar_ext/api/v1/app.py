"""The reservation API (Blazar v1 compatible) as a Pecan app."""

import codecs

import pecan
import webob

from blazar_ext.api import hooks
from blazar_ext.api.middleware import faults
from blazar_ext.api.v1 import errors
from blazar_ext.api.v1 import root
from blazar_ext.api import validation


class _JsonOnly:
    """The v1 API speaks JSON only, whatever Accept says.

    Pecan decodes the JSON body of a request other than GET while routing,
    with the declared charset, and lets only ValueError and TypeError
    through as bad input; what else that decoding can raise is refused
    here as the client's error.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        environ['HTTP_ACCEPT'] = 'application/json'
        req = webob.Request(environ)
        if req.method != 'GET':
            refusal = _undecodable(req)
            if refusal:
                status, title, message = refusal
                content_type, body = errors.render(status, title, message)
                return webob.Response(
                    status=status, content_type=content_type,
                    charset='UTF-8', body=body)(environ, start_response)
        return self.app(environ, start_response)


def _undecodable(req) -> tuple | None:
    """(status, title, message) when Pecan could not decode the body."""
    try:
        codecs.lookup(req.charset)
    except LookupError:
        return (415, 'Unsupported Media Type',
                'Unknown charset %r in the Content-Type header.'
                % req.charset)
    if req.content_type in ('application/json', 'application/javascript'):
        try:
            req.json
        except RecursionError:
            return 400, 'Bad Request', 'The request body is nested too deeply.'
        except Exception:  # Pecan and the handler report the rest.
            pass
    return None


class _RoutablePathsOnly:
    """Refuses paths Pecan must not route.

    An empty segment (/v1/leases//) names nothing: 404 (Pecan would call
    get_one() or delete() without the id). A path or query string that is
    not UTF-8, or holds a NUL character, is the client's error: 400.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        refusal = _unroutable(req)
        if refusal is None:
            return self.app(environ, start_response)
        status, title, message = refusal
        content_type, body = errors.render(status, title, message)
        return webob.Response(
            status=status, content_type=content_type, charset='UTF-8',
            body=body)(environ, start_response)


def _unroutable(req) -> tuple | None:
    """(status, title, message) for a path Pecan must not route."""
    problem = validation.url_problem(req)
    if problem:
        return 400, 'Bad Request', problem
    if '//' in req.path_info:
        return 404, 'Not Found', faults.message_for(404)
    return None


def build() -> object:
    app = pecan.make_app(root.RootController(),
                         hooks=[hooks.ContextHook(), errors.ErrorHook()],
                         force_canonical=False,
                         guess_content_type_from_ext=False)
    return faults.JsonErrors(_RoutablePathsOnly(_JsonOnly(app)),
                             errors.render)
