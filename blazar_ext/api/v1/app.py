"""The reservation API (Blazar v1 compatible) as a Pecan app."""

import codecs

import pecan
import webob

from blazar_ext.api import hooks
from blazar_ext.api.middleware import faults
from blazar_ext.api.v1 import errors
from blazar_ext.api.v1 import root


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


class _NoEmptySegments:
    """An empty path segment (/v1/leases//) names nothing: 404.

    Pecan would route it to get_one() or delete() without the id and fail
    with a TypeError.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if '//' in environ.get('PATH_INFO', ''):
            content_type, body = errors.render(
                404, 'Not Found', faults.message_for(404))
            return webob.Response(
                status=404, content_type=content_type, charset='UTF-8',
                body=body)(environ, start_response)
        return self.app(environ, start_response)


def build() -> object:
    app = pecan.make_app(root.RootController(),
                         hooks=[hooks.ContextHook(), errors.ErrorHook()],
                         force_canonical=False,
                         guess_content_type_from_ext=False)
    return faults.JsonErrors(_NoEmptySegments(_JsonOnly(app)),
                             errors.render)
