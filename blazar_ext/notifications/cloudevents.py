"""The webhook body (a CloudEvents 1.0 structured JSON event) and its
signature.

Signature header: ``Blazar-Signature: t=<unix seconds>,v1=<hex>`` where
``<hex>`` is HMAC-SHA256 with the subscription's secret over
``<unix seconds>.<body bytes>``. A receiver recomputes it, compares in
constant time, and refuses timestamps too far from its clock (replays).
"""

import hashlib
import hmac

from oslo_serialization import jsonutils

CONTENT_TYPE = 'application/cloudevents+json; charset=utf-8'
SIGNATURE_HEADER = 'Blazar-Signature'
# Fields of a lease kept when the whole lease makes the body too large.
SUMMARY = ('id', 'name', 'project_id', 'user_id', 'start_date',
           'end_date', 'status', 'degraded')


def _rfc3339(time) -> str:
    if isinstance(time, str):
        return time if time.endswith('Z') else time + 'Z'
    return time.strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def envelope(event_id: str, event_type: str, source: str, subject: str,
             time, data: dict) -> dict:
    """The structured-mode CloudEvent."""
    return {'specversion': '1.0', 'id': event_id, 'source': source,
            'type': event_type, 'subject': subject, 'time': _rfc3339(time),
            'datacontenttype': 'application/json', 'data': data}


def body(event: dict, limit: int) -> bytes:
    """The JSON bytes; past ``limit``, ``data`` is cut to the lease's
    summary and ``datatruncated`` says so."""
    encoded = jsonutils.dump_as_bytes(event)
    if len(encoded) <= limit:
        return encoded
    data = {k: event['data'][k] for k in SUMMARY if k in event['data']}
    return jsonutils.dump_as_bytes(dict(event, data=data,
                                        datatruncated=True))


def signature(secret: str, timestamp: int, payload: bytes) -> str:
    """The hex HMAC-SHA256 of ``<timestamp>.<payload>``."""
    message = str(timestamp).encode() + b'.' + payload
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, payload: bytes) -> str:
    return 't=%d,v1=%s' % (timestamp, signature(secret, timestamp, payload))


def verify(secret: str, header: str, payload: bytes, now: float,
           tolerance: float = 300) -> bool:
    """What a receiver does (the user guide shows the same)."""
    try:
        fields = dict(part.split('=', 1) for part in header.split(','))
        timestamp = int(fields['t'])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance:
        return False
    return hmac.compare_digest(signature(secret, timestamp, payload),
                               fields.get('v1', ''))
