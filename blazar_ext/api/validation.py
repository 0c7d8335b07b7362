"""Request bodies: JSON parsing and jsonschema validation, shared by every
API family. Failures raise exceptions.Invalid with a message naming the
offending field."""

import jsonschema
from oslo_serialization import jsonutils

from blazar_ext import exceptions


def parse_json(body: bytes):
    """Decode a JSON request body; a missing or bad body is Invalid."""
    if not body:
        raise exceptions.Invalid(reason='a JSON request body is required')
    try:
        data = jsonutils.loads(body)
        # "\ud800" is valid JSON but no Unicode character: nothing could
        # store or print it.
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
    return data


def validate(schema: dict, data) -> None:
    """Raise Invalid when ``data`` does not match ``schema``."""
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.FormatChecker())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is None:
        return
    where = '/'.join(str(p) for p in error.absolute_path)
    reason = error.message
    if where:
        reason = "'%s': %s" % (where, reason)
    raise exceptions.Invalid(reason=reason)
