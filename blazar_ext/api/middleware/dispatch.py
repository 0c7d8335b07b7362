"""Routes a request to the app of its API family by path prefix."""

from collections.abc import Callable


class PrefixDispatcher:
    """Sends /<prefix>/... to a mounted app, everything else to ``default``.

    When ``shift`` is true for a mount, the prefix moves from PATH_INFO to
    SCRIPT_NAME, so the mounted app sees paths relative to its own root.
    """

    def __init__(self, default: Callable,
                 mounts: list[tuple[str, Callable, bool]]):
        self.default = default
        self.mounts = mounts

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '') or '/'
        for prefix, app, shift in self.mounts:
            if path == prefix or path.startswith(prefix + '/'):
                if shift:
                    environ['SCRIPT_NAME'] = (
                        environ.get('SCRIPT_NAME', '') + prefix)
                    environ['PATH_INFO'] = path[len(prefix):]
                return app(environ, start_response)
        return self.default(environ, start_response)
