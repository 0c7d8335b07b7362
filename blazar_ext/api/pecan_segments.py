"""Pecan's custom path segments, looked for once per controller class.

On every step of every route, pecan lists the controller's attributes
(``set(dir(obj))``) before it checks whether it has already seen the
controller's class; only a class not yet seen uses the list. Three
listings per lease GET. install() skips classes already seen, which is
all the original does for them.
"""

from pecan import routing

_original = routing._detect_custom_path_segments


def detect_custom_path_segments(obj) -> None:
    """pecan's own, for a controller class not yet seen."""
    if obj.__class__ in routing.__observed_controllers__:
        return
    _original(obj)


def install() -> None:
    """Make pecan look at each controller class once (idempotent)."""
    routing._detect_custom_path_segments = detect_custom_path_segments
