"""schemathesis hooks for run.py (loaded through SCHEMATHESIS_HOOKS).

``family_error_shape``: every 4xx answer is JSON in the family's error
shape, the document's ``components.schemas.Error``, whatever the status
code and whether or not the operation lists it.
"""

import json

import schemathesis

from blazar_ext.api import openapi


def error_shape_problems(document: dict, status: int, content_type: str,
                         body: bytes) -> list:
    """Why a response is not in the document's error shape ([] when it
    is, or when it is not a 4xx)."""
    if not 400 <= status < 500:
        return []
    if 'json' not in (content_type or ''):
        return ['%d with content type %r, not JSON' % (status, content_type)]
    try:
        data = json.loads(body)
    except ValueError:
        return ['%d: the body is not JSON' % status]
    return openapi.error_shape_errors(document, data)


@schemathesis.check
def family_error_shape(ctx, response, case):
    """A 4xx answer is in the family's error shape."""
    problems = error_shape_problems(
        case.operation.schema.raw_schema, response.status_code,
        response.headers.get('content-type', [''])[0]
        if isinstance(response.headers.get('content-type'), list)
        else response.headers.get('content-type', ''),
        response.content)
    if problems:
        raise AssertionError('Not in the family\'s error shape: '
                             + '; '.join(problems))
