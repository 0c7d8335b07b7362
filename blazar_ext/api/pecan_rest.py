"""Pecan's RestController, without a URL built to learn whether
``pecan.request`` is bound.

On each step of a RestController's routing (three per GET of a resource),
pecan takes a controller's arguments after ``self`` when the request is a
context local, and after ``self, req, resp`` when it is not; to know
which, it asks ``pecan.request.path``, which URL-quotes the script name
and the path each time (about a twentieth of a small GET's time in
process). install() asks the context local itself, as the proxy does
before it reads ``path``.
"""

from pecan import core as pecan_core
from pecan import rest
from pecan import util as pecan_util

_original = rest.RestController._get_args_for_controller


def _request_is_bound() -> bool:
    """Whether ``pecan.request`` stands for a request (a Pecan app with
    context locals is serving one in this thread)."""
    try:
        pecan_core.state.request
    except AttributeError:  # no request bound, or no Pecan app yet
        return False
    return True


def get_args_for_controller(self, controller) -> list:
    """pecan's own: the controller's positional arguments the path fills."""
    args = pecan_util.getargspec(controller).args
    return args[1:] if _request_is_bound() else args[3:]


def install() -> None:
    """Make RestController use it (idempotent)."""
    rest.RestController._get_args_for_controller = get_args_for_controller
