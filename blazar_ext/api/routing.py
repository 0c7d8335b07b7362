"""URL routing on the ``routes`` library, shared by the Placement and
metadefs families (v1 is Pecan's object dispatch: api/v1/routes.py).

A family declares its routes as data, one Route per method and path
template (``{name}`` captures one path segment), and builds a Router:

    ROUTER = routing.Router(ROUTES, not_allowed)

``Router.match`` gives the handler, the path variables and the template
that matched. A path known under other methods matches the handler
``not_allowed(methods)`` returns, so each family answers its own 405
(with an Allow header); no match at all is the family's 404.
"""

from collections.abc import Callable
import dataclasses
import functools

import routes

# Matches kept per Router, by path and method: the same paths come again
# and again (a Routes match was a twentieth of a small GET's time).
MATCHES_KEPT = 1024


@dataclasses.dataclass(frozen=True)
class Route:
    """One method on one path template, and the function that serves it."""

    method: str
    pattern: str
    handler: Callable


def table(paths: dict) -> list:
    """Routes of ``{pattern: {method: handler}}``, in that order."""
    return [Route(method, pattern, handler)
            for pattern, methods in paths.items()
            for method, handler in methods.items()]


class Router:
    """A ``routes`` Mapper over a list of Route: every method route
    first, then, per path, a catch-all for the other methods."""

    def __init__(self, routes_: list,
                 not_allowed: Callable[[list], Callable]):
        self.routes = list(routes_)
        self.mapper = routes.Mapper()
        allowed: dict = {}
        for route in self.routes:
            allowed.setdefault(route.pattern, []).append(route.method)
            self.mapper.connect(None, route.pattern, action=route.handler,
                                conditions={'method': [route.method]})
        for pattern, methods in allowed.items():
            # A callable: Routes turns plain default values into strings.
            self.mapper.connect(None, pattern, action=not_allowed(methods))
        self._routematch = functools.lru_cache(maxsize=MATCHES_KEPT)(
            self._routematch_uncached)

    def _routematch_uncached(self, path: str, method: str):
        # The method is all of the environ the routes read (their only
        # condition); the match is Routes' (a dict and a Route), shared
        # by every request of that path and method: not to be changed.
        return self.mapper.routematch(
            url=path, environ={'REQUEST_METHOD': method})

    def match(self, path: str, environ: dict) -> tuple | None:
        """(handler, {path variable: value}, the template matched), or
        None when no template matches ``path``."""
        found = self._routematch(path, environ['REQUEST_METHOD'])
        if found is None:
            return None
        variables = dict(found[0])
        return variables.pop('action'), variables, found[1].routepath
