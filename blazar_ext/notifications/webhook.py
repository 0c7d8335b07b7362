"""One webhook POST: bounded in time and size, redirects not followed.

http.client, not a higher-level library: nothing here follows a
redirect, reads an unbounded answer or pools connections across
threads. Each delivery thread keeps its own keep-alive connection per
target.
"""

import dataclasses
import http.client
import threading
import time

from blazar_ext import exceptions
from blazar_ext.notifications import targets

_LOCAL = threading.local()


@dataclasses.dataclass
class Outcome:
    status_code: int | None
    error: str | None
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.error is None


def _connection(parts, timeout: float) -> http.client.HTTPConnection:
    pool = _LOCAL.__dict__.setdefault('connections', {})
    key = (parts.scheme, parts.hostname, parts.port)
    conn = pool.get(key)
    if conn is None:
        cls = (http.client.HTTPSConnection if parts.scheme == 'https'
               else http.client.HTTPConnection)
        conn = pool[key] = cls(parts.hostname, parts.port, timeout=timeout)
    conn.timeout = timeout
    return conn


def _drop(parts) -> None:
    pool = _LOCAL.__dict__.get('connections', {})
    conn = pool.pop((parts.scheme, parts.hostname, parts.port), None)
    if conn is not None:
        conn.close()


def _read(response, limit: int) -> tuple:
    """(the first ``limit`` bytes of the answer, whether that was all)."""
    data = response.read(limit)
    rest = response.read(1) if not response.isclosed() else b''
    return data, not rest


def post(url: str, payload: bytes, headers: dict, timeout: float,
         max_response: int, allow_private: bool) -> Outcome:
    """POST ``payload``; a 2xx is a success, anything else an error."""
    started = time.monotonic()

    def outcome(status, error=None) -> Outcome:
        return Outcome(status, error and exceptions.cut(error, 250)[:255],
                       int((time.monotonic() - started) * 1000))

    try:
        parts = targets.check(url, allow_private)
    except exceptions.Invalid as exc:
        return outcome(None, str(exc))
    path = parts.path or '/'
    if parts.query:
        path += '?' + parts.query
    try:
        conn = _connection(parts, timeout)
        conn.request('POST', path, body=payload, headers=headers)
        response = conn.getresponse()
        text, whole = _read(response, max_response)
        if not whole or response.will_close:
            _drop(parts)
    except (OSError, http.client.HTTPException) as exc:
        _drop(parts)
        return outcome(None, '%s: %s' % (type(exc).__name__, exc or
                                         'no answer'))
    status = response.status
    if 200 <= status < 300:
        return outcome(status)
    if 300 <= status < 400:
        return outcome(status, 'redirect to %s not followed'
                       % response.getheader('Location', '(none)'))
    return outcome(status, 'HTTP %d: %s' % (
        status, text.decode('utf-8', 'replace')[:200]))
