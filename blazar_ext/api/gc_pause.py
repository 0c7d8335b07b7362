"""The cyclic garbage collector paused while a request builds a large
answer.

A listing of ten thousand leases makes about a million dicts and lists,
none of them garbage until the answer is sent; each time the youngest
generation fills up, the collector walks them again, and the full
collections it triggers walk every object of the process: a third of such
a listing's CPU time. Reference counting still frees everything as usual.
"""

import contextlib
import gc
import threading

_LOCK = threading.Lock()
_PAUSED = {'count': 0, 'was_enabled': False}


@contextlib.contextmanager
def paused():
    """Collect no cycles inside the block (nestable, thread-safe); the
    collector comes back as it was when the last block leaves."""
    with _LOCK:
        if _PAUSED['count'] == 0:
            _PAUSED['was_enabled'] = gc.isenabled()
            gc.disable()
        _PAUSED['count'] += 1
    try:
        yield
    finally:
        with _LOCK:
            _PAUSED['count'] -= 1
            if _PAUSED['count'] == 0 and _PAUSED['was_enabled']:
                gc.enable()
