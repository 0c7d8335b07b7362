"""Calling a WSGI application as WebOb's ``get_response`` does, without
WebOb's request and response objects.

A middleware that only looks at (or adds to) the status and headers of
the answer then costs a few microseconds instead of the 10 to 20 of a
webob request, a response and their headers per layer.
"""

from collections.abc import Callable

import webob
import webob.response

_absolute = webob.Response._make_location_absolute


def call(app: Callable, environ: dict) -> tuple:
    """(status, headers, body) of ``app``'s answer, as
    webob.Request.call_application gives them: an error start_response
    is given (exc_info) is raised; an answer started lazily or through
    write() is read here, its body closed."""
    if environ.get('webob.is_body_seekable', False):
        environ['wsgi.input'].seek(0)
    started, written = [], []

    def start_response(status, headers, exc_info=None):
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])
        started[:] = [status, headers]
        return written.append

    body = app(environ, start_response)
    if written or not started:
        try:
            written.extend(body)
        finally:
            close(body)
        body = written
    return started[0], started[1], body


def send(environ: dict, start_response: Callable, status: str,
         headers: list, body):
    """Pass an answer on as WebOb's Response would send it: a relative
    Location made absolute, no body to a HEAD."""
    start_response(status, [
        (name, _absolute(environ, value)
         if name.lower() == 'location' else value)
        for name, value in headers])
    if environ['REQUEST_METHOD'] == 'HEAD':
        return webob.response.EmptyResponse(body)
    return body


def close(body) -> None:
    """Close a WSGI body, if it can be."""
    method = getattr(body, 'close', None)
    if method is not None:
        method()


def header(headers: list, name: str) -> str | None:
    """The first value of header ``name`` (any case), or None."""
    name = name.lower()
    for key, value in headers:
        if key.lower() == name:
            return value
    return None
