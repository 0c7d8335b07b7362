"""Pecan's argument specs, computed once per controller function.

Pecan looks up a controller's argument spec several times per request
(routing, REST dispatch, invocation), and its Python 3 ``getargspec``
defines a new namedtuple class on every call, which compiles code with
``eval``: about a fifth of a small GET's time. A function's spec does not
change, so install() caches it.
"""

import functools

from pecan import util as pecan_util

_uncached = pecan_util._getargspec


@functools.lru_cache(maxsize=4096)
def _spec_of(func):
    return _uncached(func)


def getargspec(func):
    """pecan.compat.getargspec, cached by function.

    A bound method is a new object on each attribute access; its function
    is not, and has the same spec (``self`` included).
    """
    func = getattr(func, '__func__', func)
    try:
        return _spec_of(func)
    except TypeError:  # an unhashable callable
        return _uncached(func)


def install() -> None:
    """Make pecan use the cached specs (idempotent)."""
    pecan_util._getargspec = getargspec
