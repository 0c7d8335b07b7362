"""/calendar/: the reservation calendar, static files shipped in the
package (HTML, JavaScript, CSS and SVG written for it; no build step).

Served before authentication: the files hold no data. The page calls the
APIs with the token the user gives it, as any client does. Its tabs come
from ``tabs.json``: the ``calendar_tab`` of each enabled resource plugin,
in the order ``[manager] plugins`` names them.
"""

import os

from oslo_serialization import jsonutils
import webob
from webob import static

from blazar_ext.api.v1 import errors as v1_errors
from blazar_ext.plugins import loader

STATIC_DIR = os.path.join(os.path.dirname(__file__), 'static')
CONTENT_TYPES = {'.html': 'text/html', '.js': 'text/javascript',
                 '.css': 'text/css', '.svg': 'image/svg+xml'}
# Everything the page loads comes from this origin; no inline script.
SECURITY_HEADERS = {
    'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
}


def _files() -> dict:
    """{name: path} of the servable files, read once."""
    return {name: os.path.join(STATIC_DIR, name)
            for name in sorted(os.listdir(STATIC_DIR))
            if os.path.splitext(name)[1] in CONTENT_TYPES}


TABS = 'tabs.json'


def tabs() -> list:
    """The calendar tabs of the enabled resource types."""
    return [dict(plugin.calendar_tab, resource_type=plugin.resource_type)
            for plugin in loader.get() if plugin.calendar_tab]


def _tabs_response() -> webob.Response:
    return webob.Response(content_type='application/json', charset='UTF-8',
                          body=jsonutils.dump_as_bytes({'tabs': tabs()}))


def _error(status: int, title: str, message: str) -> webob.Response:
    """An error in the reservation API's shape, as at the root."""
    content_type, body = v1_errors.render(status, title, message)
    return webob.Response(status=status, content_type=content_type,
                          charset='UTF-8', body=body)


class CalendarApp:
    """GET /calendar/ (the page) and /calendar/<file>; /calendar
    redirects to /calendar/ so relative links resolve."""

    def __init__(self):
        self.files = _files()

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        name = req.path_info.lstrip('/') or 'index.html'
        if req.path_info == '':
            resp = webob.Response(status=301, location=req.application_url
                                  + '/')
        elif req.method not in ('GET', 'HEAD'):
            resp = _error(405, 'Method Not Allowed',
                          'The calendar is read-only: GET or HEAD.')
            resp.allow = 'GET, HEAD'
        elif name == TABS:
            resp = _tabs_response()
        elif name not in self.files:
            resp = _error(404, 'Not Found', 'No such file in the calendar.')
        else:
            resp = req.get_response(static.FileApp(
                self.files[name],
                content_type=CONTENT_TYPES[os.path.splitext(name)[1]],
                charset='UTF-8'))
        resp.headers.update(SECURITY_HEADERS)
        return resp(environ, start_response)
