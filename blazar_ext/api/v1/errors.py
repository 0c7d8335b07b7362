"""Blazar v1 error shape: {"error_code", "error_message", "error_name"}.

python-blazarclient shows ``error_message`` to the user.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
import pecan
import webob

from blazar_ext.api.middleware import faults
from blazar_ext import exceptions

LOG = logging.getLogger(__name__)


def render(status: int, title: str, message: str,
           request_id: str | None = None) -> tuple[str, bytes]:
    """Body for the faults middleware."""
    return 'application/json', jsonutils.dump_as_bytes({
        'error_code': status,
        'error_message': message,
        'error_name': title.upper().replace(' ', '_')})


def response_for(exc: exceptions.BlazarExtException) -> webob.Response:
    title = webob.exc.status_map.get(exc.status, webob.exc.HTTPError).title
    content_type, body = render(exc.status, title, exc.message)
    return webob.Response(status=exc.status, body=body,
                          content_type=content_type, charset='UTF-8')


class ErrorHook(pecan.hooks.PecanHook):
    """Turns domain exceptions into their HTTP status and a JSON message."""

    def on_error(self, state, exc):
        if isinstance(exc, exceptions.BlazarExtException):
            if exc.status >= 500:
                LOG.error("%s: %s", type(exc).__name__, exc.message)
            return response_for(exc)
        if isinstance(exc, webob.exc.HTTPException):
            # Routing errors (404, 405) from Pecan itself.
            content_type, body = render(exc.status_int, exc.title,
                                        faults.message_for(exc.status_int))
            return webob.Response(status=exc.status_int, body=body,
                                  content_type=content_type, charset='UTF-8',
                                  headers=_allow_header(exc))
        return None


def require_id(resource_id) -> None:
    """PUT or DELETE on a collection (no id in the path) is a 405.

    Without this Pecan calls the handler without its id argument.
    """
    if not resource_id:
        pecan.abort(405, headers={'Allow': 'GET, POST'})


def _allow_header(exc) -> dict:
    allow = exc.headers.get('Allow')
    return {'Allow': allow} if allow else {}
