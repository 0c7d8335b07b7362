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


# What upstream Blazar (Flask) says for a path it has no route for.
UNKNOWN_PATH = ('The requested URL was not found on the server. If you '
                'entered the URL manually please check your spelling and '
                'try again.')
# And for a method a route does not take.
METHOD_NOT_ALLOWED = 'The method is not allowed for the requested URL.'
# Routing errors in upstream's (Flask's) shape: {"error", "error_message"}.
_ROUTING = {404: UNKNOWN_PATH, 405: METHOD_NOT_ALLOWED}


def render(status: int, title: str, message: str,
           request_id: str | None = None) -> tuple[str, bytes]:
    """Body for the faults middleware, with upstream Blazar's names.

    ``error_name`` is the status number for a 4xx, as upstream's domain
    errors, and the title in capitals for a 5xx (INTERNAL_SERVER_ERROR).
    A path nothing is routed to, or a method it does not take, also
    carries upstream's ``"error": 404`` (or 405) and its message.
    """
    body = {'error_code': status, 'error_message': message,
            'error_name': (status if status < 500
                           else title.upper().replace(' ', '_'))}
    # Routing errors come with the generic message; a domain 404 names
    # what is missing.
    if status in _ROUTING and message == faults.message_for(status):
        body.update(error=status, error_message=_ROUTING[status])
    return 'application/json', jsonutils.dump_as_bytes(body)


# Upstream Blazar's messages for these errors (its clients' users and
# scripts read them), from the error's arguments: they come first.
_UPSTREAM_WORDS = {
    exceptions.PolicyNotAuthorized:
        "Policy doesn't allow %(action)s to be performed.",
    exceptions.HostNotFound: "Object with {'host_id': '%(host)s'} not found",
    exceptions.LeaseNotFound:
        "Object with {'lease_id': '%(lease)s'} not found",
    exceptions.FloatingIPNotFound:
        "Object with {'floatingip_id': '%(floatingip)s'} not found",
    exceptions.HostInUse: "Can't delete host %(host)s. The host is reserved.",
    exceptions.FloatingIPInUse:
        "Can't delete floating IP %(floatingip)s. Floating IP id "
        "%(floatingip)s is allocated by reservations.",
}


def message_for(exc: exceptions.BlazarExtException) -> str:
    """``exc``'s message, after upstream Blazar's words for it if they
    differ (the same sentence is not said twice)."""
    words = _UPSTREAM_WORDS.get(type(exc))
    if words is None:
        return exc.message
    try:
        # Values cut as in exc.message: a long id is not echoed whole.
        words = words % {k: exceptions.cut(v) for k, v in exc.kwargs.items()}
    except (KeyError, TypeError):  # raised with a message of its own
        return exc.message
    if type(exc) is exceptions.PolicyNotAuthorized:
        return words
    return exceptions.cut('%s: %s' % (words, exc.message),
                          exceptions.MESSAGE_LIMIT)


def response_for(exc: exceptions.BlazarExtException) -> webob.Response:
    title = webob.exc.status_map.get(exc.status, webob.exc.HTTPError).title
    content_type, body = render(exc.status, title, message_for(exc))
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
            # Routing errors (404, 405) from Pecan itself, and the refusals
            # of api.v1.hooks (whose detail is the message).
            content_type, body = render(
                exc.status_int, exc.title,
                exc.detail or faults.message_for(exc.status_int))
            resp = webob.Response(status=exc.status_int, body=body,
                                  content_type=content_type,
                                  charset='UTF-8')
            if exc.headers.get('Allow'):
                resp.headers['Allow'] = exc.headers['Allow']
            return resp
        return None
