"""The reservation API (Blazar v1 compatible) as a Pecan app."""

import pecan
import webob

from blazar_ext.api import hooks
from blazar_ext.api.middleware import faults
from blazar_ext.api.v1 import errors
from blazar_ext.api.v1 import root


class _JsonOnly:
    """The v1 API speaks JSON only, whatever Accept says."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        environ['HTTP_ACCEPT'] = 'application/json'
        return self.app(environ, start_response)


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
