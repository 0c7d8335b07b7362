"""Request bodies and query strings: JSON parsing and jsonschema
validation, shared by every API family. Failures raise exceptions.Invalid
with a message naming the offending field."""

import math

import jsonschema
from oslo_serialization import jsonutils
from oslo_utils import strutils

from blazar_ext import exceptions
from blazar_ext import identity_cache


def parse_json(body: bytes):
    """Decode a JSON request body; a missing or bad body is Invalid."""
    if not body:
        raise exceptions.Invalid(reason='a JSON request body is required')
    try:
        data = jsonutils.loads(body, parse_constant=_refuse_constant,
                               parse_float=_finite_float)
        # "\ud800" is valid JSON but no Unicode character: nothing could
        # store or print it. Only an escape makes one of UTF-8 bytes
        # (their decoder refuses an encoded surrogate).
        if _may_have(body, (b'\\ud', b'\\uD')):
            jsonutils.dumps(data, ensure_ascii=False).encode('utf-8')
    except UnicodeEncodeError:
        raise exceptions.Invalid(
            reason='the request body has a string with an unpaired UTF-16 '
                   'surrogate escape (\\ud800 to \\udfff)')
    except (ValueError, UnicodeDecodeError) as exc:
        raise exceptions.Invalid(
            reason='the request body is not valid JSON: %s' % exc)
    except RecursionError:
        # json gives up past the interpreter's recursion limit.
        raise exceptions.Invalid(
            reason='the request body is nested too deeply')
    # Likewise a NUL: JSON text holds none but as an escape.
    if _may_have(body, (b'\\u0000',)) and _has_nul(data):
        # PostgreSQL cannot store it, and no name or value needs it.
        raise exceptions.Invalid(
            reason='the request body has a string with a NUL character '
                   '(\\u0000)')
    return data


# The environ key of a request's body decoded by parse_json: (the body's
# stream, its length, the value). The reservation API's RequestHook
# decodes the body before Pecan does, Pecan then reads it (twice, while
# routing) and the handler last: one decode, and one read of the body (50
# function calls through WebOb each), for the three. A body set anew
# (``req.body = ...``) is a new stream: the value kept is then not used.
_KEPT = 'blazar_ext.json_body'


def keep_json(req) -> bool:
    """Decode ``req``'s body with parse_json and keep the value for
    kept_json and request_json; False (nothing kept) if it fails."""
    body = req.body  # now seekable: the stream holds these bytes
    try:
        data = parse_json(body)
    except Exception:  # the callers decode it again and say why
        return False
    environ = req.environ
    environ[_KEPT] = (environ['wsgi.input'], environ.get('CONTENT_LENGTH'),
                      data)
    return True


def kept_json(environ: dict):
    """(True, the value keep_json kept for the request's body as it is
    now) or (False, None)."""
    kept = environ.get(_KEPT)
    if (kept is not None and kept[0] is environ.get('wsgi.input')
            and kept[1] == environ.get('CONTENT_LENGTH')):
        return True, kept[2]
    return False, None


def request_json(req):
    """parse_json(req.body), the value keep_json kept if it has one for
    this body. Handed over once: a second call decodes again, so what a
    handler changes in its value is never seen by another reader."""
    environ = req.environ
    found, data = kept_json(environ)
    if found:
        del environ[_KEPT]
        return data
    return parse_json(req.body)


def _may_have(body, escapes: tuple) -> bool:
    """Whether the JSON text ``body`` may hold a string these escapes
    begin: any text but bytes, or bytes with one of them in it."""
    if type(body) is not bytes:
        return True
    return any(escape in body for escape in escapes)


def _refuse_constant(name: str):
    """NaN, Infinity and -Infinity: Python's json reads them, but they are
    not JSON, no database column holds them and no client reads them
    back."""
    raise exceptions.Invalid(
        reason='the request body has %s, which is not a JSON number; send '
               'a finite number' % name)


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent, refused where it
    overflows to infinity (1e999)."""
    value = float(text)
    if not math.isfinite(value):
        raise exceptions.Invalid(
            reason='the request body has the number %s, which is too '
                   'large; send a finite number'
                   % exceptions.cut(text, 40))
    return value


def url_problem(req) -> str | None:
    """Why the request's path or query string cannot be routed, if so.

    Not UTF-8, or holding a NUL character (PostgreSQL cannot compare a
    string with one, and no name or id needs it). Decodes the path and
    the query once, so handlers never meet bad bytes; each API family
    answers the message as a 400 in its own error shape.
    """
    try:
        path = req.path_info
        query = req.GET
    except UnicodeDecodeError:
        return 'The request path or query string is not valid UTF-8.'
    texts = [path] + [text for item in query.items() for text in item]
    if any('\x00' in text for text in texts):
        return 'The request path or query string has a NUL character (%00).'
    return None


def _has_nul(data) -> bool:
    """Whether a NUL character is in any string, key or value, of
    ``data`` (already bounded in depth by the parser)."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if '\x00' in item:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


# A validator per schema, built at its first use: building one (with its
# format checker) cost as much again as validating a lease create's body.
_FORMATS = jsonschema.FormatChecker()
_VALIDATORS = identity_cache.IdentityCache(512)


def _validator(schema: dict):
    return _VALIDATORS.get(schema, lambda: jsonschema.Draft202012Validator(
        schema, format_checker=_FORMATS))


def validate(schema: dict, data) -> None:
    """Raise Invalid when ``data`` does not match ``schema``."""
    error = jsonschema.exceptions.best_match(
        _validator(schema).iter_errors(data))
    if error is None:
        return
    where = '/'.join(str(p) for p in error.absolute_path)
    raise exceptions.Invalid(reason=_message(error, where))


def validate_query(params, schema: dict) -> dict:
    """The query string as a dict checked against ``schema``.

    ``params`` is the request's GET multidict; a parameter given twice is a
    list and fails a scalar type. Values arrive as strings: those whose
    property is declared ``integer`` or ``boolean`` are converted first
    when they can be, so the schema states types and bounds, and a value
    that cannot be converted fails with the type in the message.
    """
    query = params.mixed()
    for name, value in query.items():
        declared = schema.get('properties', {}).get(name, {}).get('type')
        if isinstance(value, str):
            query[name] = _converted(value, declared)
    validate(schema, query)
    return query


def _converted(value: str, declared):
    if declared == 'integer':
        try:
            return int(value)
        except ValueError:
            return value
    if declared == 'boolean':
        try:
            return strutils.bool_from_string(value, strict=True)
        except ValueError:
            return value
    return value


# Longer reprs of the offending value are cut in messages.
_ECHO = 80


def _message(error, where: str) -> str:
    """jsonschema's message (clients match on its words) after the field's
    name, with the value it echoes cut and a length limit stated."""
    message = error.message
    shown = repr(error.instance)
    if len(shown) > _ECHO:
        message = message.replace(shown, '%s...' % shown[:_ECHO // 2])
    name = "'%s'" % where if where else 'the value'
    if error.validator == 'maxLength' and isinstance(error.instance, str):
        return '%s is longer than %d characters (%s)' % (
            name, error.validator_value, message)
    if error.validator == 'maxItems':
        return '%s has more than %d items (%s)' % (
            name, error.validator_value, message)
    return "%s: %s" % (name, message) if where else message
