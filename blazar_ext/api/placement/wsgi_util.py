"""Request and response helpers shared by the placement handlers."""

from email import utils as email_utils
import functools
import time
import uuid as uuid_lib

import jsonschema
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import webob

from blazar_ext.api.middleware import auth
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import text_columns
from blazar_ext.api import validation
from blazar_ext import exceptions
from blazar_ext import identity_cache


# Placement's "uuid" format: oslo's is_uuid_like, dashes optional.
FORMATS = jsonschema.FormatChecker()
FORMATS.checks('uuid')(uuidutils.is_uuid_like)


def canonical_uuid(value):
    """The dashed lower-case form of a uuid (None stays None)."""
    return None if value is None else str(uuid_lib.UUID(value))


def context(req):
    return req.environ[auth.CONTEXT_KEY]


def json_body(req, schema: dict):
    """The decoded body, validated; 400 in Placement's words otherwise."""
    length = req.headers.get('Content-Length')
    if length is not None and not length.strip().isdigit():
        raise errors.HTTPError(400, 'content-length header must be an '
                                    'integer')
    if not req.content_type and req.body:
        raise errors.HTTPError(400, 'content-type header required when '
                                    'content-length > 0')
    if req.content_type != 'application/json':
        raise errors.HTTPError(
            415, 'The media type %s is not supported, use application/json'
            % (req.content_type or 'None'))
    try:
        data = validation.parse_json(req.body)
    except exceptions.Invalid as exc:
        raise errors.HTTPError(400, 'Malformed JSON: %s'
                               % exc.kwargs['reason'])
    validate(data, schema)
    return data


# A validator per schema: jsonschema.validate() checks the schema itself
# on every call, which cost more than a large query's database work.
_VALIDATORS = identity_cache.IdentityCache(512)


def _validator(schema: dict):
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=FORMATS)


def _first_error(data, schema: dict):
    """What jsonschema.validate() raises for ``data``, or None."""
    validator = _VALIDATORS.get(schema, lambda: _validator(schema))
    return jsonschema.exceptions.best_match(validator.iter_errors(data))


# What webob says of any 400. Placement's validation errors are webob
# exceptions, whose JSON detail is this, a blank line, then the message
# with each line break a space (webob strips the HTML of its page).
BAD_REQUEST_EXPLANATION = ('The server could not comply with the request '
                           'since it is either malformed or otherwise '
                           'incorrect.')


def schema_detail(message: str) -> str:
    """``message`` (jsonschema's text, lines and all) in the detail
    Placement's webob errors carry: explanation, blank line, the message
    on one line, two closing spaces."""
    flat = message.replace('\n', ' ').replace('\r', '')
    return '%s\n\n %s  ' % (BAD_REQUEST_EXPLANATION, flat)


def validate(data, schema: dict) -> None:
    """400 with jsonschema's whole text, schema path included, in the
    detail Placement answers (schema_detail)."""
    error = _first_error(data, schema)
    if error is not None:
        raise errors.HTTPError(
            400, schema_detail('JSON does not validate: %s' % error))


def query(req, schemas: dict) -> dict:
    """The query string as a dict, validated for the request's version.

    ``schemas`` maps the first microversion of each shape to its JSON
    schema (schemas/query.py). As in Placement, a repeated key counts once
    here (its last value); handlers read repeatable ones with getall().
    """
    schema = None
    for version, candidate in schemas.items():
        if microversion.at_least(req, version):
            schema = candidate
    params = dict(req.GET)
    if schema is None:
        return params
    error = _query_error(params, schema)
    if error is not None:
        raise errors.HTTPError(400, schema_detail(
            'Invalid query string parameters: %s' % error))
    return params


# (id(schema), query items) -> (schema, jsonschema's text or None): the
# same few query strings come again and again (pollers, schedulers), and
# walking the schema cost more than a small answer's statements. Bounded,
# and only short query strings, so a flood of distinct ones costs little.
_QUERY_ERRORS = {}
_MAX_QUERY_ERRORS = 1024
_MAX_CACHED_QUERY = 2048


def _query_error(params: dict, schema: dict):
    """str(_first_error(params, schema)), or None; remembered."""
    items = tuple(params.items())
    if sum(len(k) + len(v) for k, v in items) > _MAX_CACHED_QUERY:
        error = _first_error(params, schema)
        return None if error is None else str(error)
    key = (id(schema), items)
    cached = _QUERY_ERRORS.get(key)
    if cached is None or cached[0] is not schema:
        error = _first_error(params, schema)
        if len(_QUERY_ERRORS) >= _MAX_QUERY_ERRORS:
            _QUERY_ERRORS.clear()
        cached = _QUERY_ERRORS[key] = (
            schema, None if error is None else str(error))
    return cached[1]


def http_date() -> str:
    """Now, as an HTTP date (whole seconds)."""
    return _http_date(int(time.time()))


@functools.lru_cache(maxsize=2)
def _http_date(second: int) -> str:
    # Formatted once a second, not once a request.
    return email_utils.formatdate(second, usegmt=True)


def no_cache(resp: webob.Response) -> None:
    """Cache-Control: no-cache and a Last-Modified of now (1.15)."""
    resp.headers['Cache-Control'] = 'no-cache'
    resp.headers.setdefault('Last-Modified', http_date())


def json_response(req, body, status: int = 200,
                  location=None) -> webob.Response:
    """``body`` is encoded here, unless it is a str of JSON already."""
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    if isinstance(body, text_columns.Body):
        resp.app_iter = body
        resp.content_length = len(body)
    else:
        resp.text = body if isinstance(body, str) else jsonutils.dumps(body)
    if location:
        resp.location = location
    return resp


def empty_response(status: int = 204, location=None) -> webob.Response:
    resp = webob.Response(status=status)
    resp.content_type = None
    if location:
        resp.location = location
    return resp


def url(req, path: str) -> str:
    """A link relative to the placement root, as Placement writes them."""
    return req.script_name + path
